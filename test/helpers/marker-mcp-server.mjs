// A real upstream MCP server (the SDK's McpServer over stdio) whose `mark` tool proves it ran: it
// writes <marker-dir>/<name>, then never answers (the producer in front of it is killed meanwhile).
//   node marker-mcp-server.mjs <marker-dir>
// Exits when its stdin closes, so a killed producer leaves no orphan behind.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const markerDir = process.argv[2];
const server = new McpServer({ name: 'marker', version: '1.0.0' });
server.registerTool('echo', { description: 'echo', inputSchema: { text: z.string() } }, async ({ text }) => ({
  content: [{ type: 'text', text }],
}));
server.registerTool(
  'mark',
  { description: 'writes a marker file, then hangs', inputSchema: { name: z.string().regex(/^[a-z0-9-]{1,32}$/) } },
  async ({ name }) => {
    writeFileSync(join(markerDir, name), `${process.pid}\n`);
    return new Promise(() => {});
  },
);
process.stdin.on('end', () => process.exit(0));
process.stdin.on('close', () => process.exit(0));
await server.connect(new StdioServerTransport());
