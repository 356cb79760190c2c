// A real upstream MCP server (the SDK's McpServer over stdio) with a resource template
// `file:///{+path}` that reads real files, one `note://{+name}` (an opaque scheme), a subscribable resource, a prompt with an argument,
// and one tool. Every resources/read, resources/subscribe and prompts/get it is asked for is
// appended to <log> (one JSON line each), so a test can prove a denied request never reached it.
//   node resource-mcp-server.mjs <log>
import { appendFileSync, readFileSync } from 'node:fs';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { SubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

const log = process.argv[2];
const asked = (entry) => appendFileSync(log, `${JSON.stringify(entry)}\n`);
const server = new McpServer(
  { name: 'resources', version: '1.0.0' },
  { capabilities: { resources: { subscribe: true } } },
);
server.registerResource(
  'files',
  new ResourceTemplate('file:///{+path}', { list: undefined }),
  { description: 'real files' },
  async (uri) => {
    asked({ method: 'resources/read', uri: uri.href });
    return {
      contents: [
        { uri: uri.href, mimeType: 'text/plain', text: readFileSync(decodeURIComponent(uri.pathname), 'utf8') },
      ],
    };
  },
);
server.registerResource(
  'notes',
  new ResourceTemplate('note://{+name}', { list: undefined }),
  { description: 'opaque names' },
  async (uri) => {
    asked({ method: 'resources/read', uri: uri.href });
    return { contents: [{ uri: uri.href, mimeType: 'text/plain', text: `note ${uri.href}` }] };
  },
);
server.registerPrompt(
  'review',
  { description: 'review a topic', argsSchema: { topic: z.string() } },
  async ({ topic }) => {
    asked({ method: 'prompts/get', topic });
    return { messages: [{ role: 'user', content: { type: 'text', text: `Please review: ${topic}` } }] };
  },
);
server.registerTool('echo', { description: 'echo', inputSchema: { text: z.string() } }, async ({ text }) => ({
  content: [{ type: 'text', text }],
}));
server.server.setRequestHandler(SubscribeRequestSchema, async (request) => {
  asked({ method: 'resources/subscribe', uri: request.params.uri });
  return {};
});
process.stdin.on('end', () => process.exit(0));
process.stdin.on('close', () => process.exit(0));
await server.connect(new StdioServerTransport());
