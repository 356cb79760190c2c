// A real upstream MCP server (the SDK's low-level Server over stdio) that offers every tool the
// guard corpora call, and records each call it receives — one JSON line in the log file given as
// argv[2] — before answering "ok". A hostile call that reached it would be in the log.
import { appendFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { HARMLESS_CORPUS, HOSTILE_CORPUS } from '../../dist/src/kernel/guards/corpus/index.js';

const log = process.argv[2];
const names = [...new Set([...HOSTILE_CORPUS, ...HARMLESS_CORPUS].map((c) => c.tool))];
const server = new Server({ name: 'corpus', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: names.map((name) => ({ name, description: `corpus tool ${name}`, inputSchema: { type: 'object' } })),
}));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  appendFileSync(log, `${JSON.stringify({ tool: request.params.name, arguments: request.params.arguments ?? {} })}\n`);
  return { content: [{ type: 'text', text: 'ok' }] };
});
await server.connect(new StdioServerTransport());
