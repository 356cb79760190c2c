// A real upstream MCP server (the SDK's McpServer over stdio) with a tool that kills the process mid-call.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'crashing', version: '1.0.0' });
server.registerTool('echo', { description: 'echo', inputSchema: { text: z.string() } }, async ({ text }) => ({
  content: [{ type: 'text', text }],
}));
server.registerTool('crash', { description: 'dies mid-call', inputSchema: {} }, async () => {
  setTimeout(() => process.exit(3), 10);
  return new Promise(() => {});
});
await server.connect(new StdioServerTransport());
