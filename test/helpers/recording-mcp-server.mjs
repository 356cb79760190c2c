// A real upstream MCP server (the SDK's low-level Server over stdio) with one tool, `record`, that
// takes any object and records each call it receives — its arguments as one JSON line in the log
// file given as argv[2] — before answering with them. A call that reached it is in the log.
import { appendFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const log = process.argv[2];
const server = new Server({ name: 'recording', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [{ name: 'record', description: 'records its arguments', inputSchema: { type: 'object' } }],
}));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const text = JSON.stringify(request.params.arguments ?? {});
  appendFileSync(log, `${text}\n`);
  return { content: [{ type: 'text', text }] };
});
await server.connect(new StdioServerTransport());
