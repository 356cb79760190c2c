// A small real upstream MCP server (the SDK's McpServer over stdio): `echo`, and `wait`, which answers after `ms` milliseconds.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'slow', version: '1.0.0' });
server.registerTool('echo', { description: 'echo', inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
server.registerTool('wait', { description: 'answers after ms milliseconds', inputSchema: { ms: z.number().int().min(0).max(60_000) } }, async ({ ms }) => {
  await new Promise((resolve) => setTimeout(resolve, ms));
  return { content: [{ type: 'text', text: `waited ${ms} ms` }] };
});
await server.connect(new StdioServerTransport());
