// A small real upstream MCP server (the SDK's McpServer over stdio) that says who it is: a
// serverInfo with name, title and version, instructions, and an `argv` tool that returns the
// arguments it was started with (so a test sees whether they reached it untouched).
//   node identity-mcp-server.mjs [any args…]
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const SERVER_INFO = { name: 'identity-upstream', title: 'Identity Upstream', version: '3.1.4' };
const INSTRUCTIONS = 'Call argv to see how this server was started. Prefer echo for small talk.';

const server = new McpServer(SERVER_INFO, { instructions: INSTRUCTIONS });
server.registerTool(
  'argv',
  { description: 'the arguments this server was started with', annotations: { readOnlyHint: true } },
  async () => ({
    content: [{ type: 'text', text: JSON.stringify(process.argv.slice(2)) }],
  }),
);
server.registerTool(
  'echo',
  { description: 'echo', inputSchema: { text: z.string() }, annotations: { readOnlyHint: true } },
  async ({ text }) => ({ content: [{ type: 'text', text }] }),
);
await server.connect(new StdioServerTransport());
