// A small real upstream MCP server (the SDK's McpServer): `echo`, and `wait`, which answers after `ms` milliseconds
// (after one progress notification when the call carries a progressToken).
// Over stdio by default; with `--http` over Streamable HTTP at 127.0.0.1 on a free port (one McpServer
// per session, sessions ended by DELETE), printing `listening <url>` once ready.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

function slowServer() {
  const server = new McpServer({ name: 'slow', version: '1.0.0' });
  server.registerTool('echo', { description: 'echo', inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  server.registerTool(
    'wait',
    { description: 'answers after ms milliseconds', inputSchema: { ms: z.number().int().min(0).max(60_000) } },
    async ({ ms }, extra) => {
      // With a progressToken, one progress notification first (MCP basic/utilities/progress).
      const progressToken = extra._meta?.progressToken;
      if (progressToken !== undefined)
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken, progress: 0, total: 1 },
        });
      await new Promise((resolve) => setTimeout(resolve, ms));
      return { content: [{ type: 'text', text: `waited ${ms} ms` }] };
    },
  );
  return server;
}

if (process.argv.includes('--http')) {
  const sessions = new Map();
  const http = createServer(async (req, res) => {
    const id = req.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? sessions.get(id) : undefined;
    if (transport === undefined) {
      if (typeof id === 'string') return void res.writeHead(404).end();
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => void sessions.set(sid, transport),
        onsessionclosed: (sid) => void sessions.delete(sid),
      });
      await slowServer().connect(transport);
    }
    await transport.handleRequest(req, res);
  });
  http.listen(0, '127.0.0.1', () => process.stdout.write(`listening http://127.0.0.1:${http.address().port}/mcp\n`));
} else {
  await slowServer().connect(new StdioServerTransport());
}
