// A real upstream MCP server (the SDK's McpServer over stdio) whose tools ask the client things:
// `ask-llm` (sampling/createMessage, with a progressToken; answers with the client's progress too), `ask-user` (elicitation/create, form), `open-url` (elicitation,
// URL mode), `list-roots` (roots/list), `ping-client` (ping), `slow-ask` (a sampling request the
// server gives up on after `ms`, so it cancels it), `client-caps` (what the client declared, as
// this server sees it), `add-tool` (registers `cat-file` {path} while connected, which makes the
// SDK send notifications/tools/list_changed). Tools answer with what came back, as JSON text.
import { readFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer(
  { name: 'relay-upstream', version: '2.0.0' },
  { capabilities: { tools: { listChanged: true } } },
);
const text = (value) => ({ content: [{ type: 'text', text: JSON.stringify(value) }] });
const failed = (e) => ({
  content: [{ type: 'text', text: JSON.stringify({ error: { code: e.code ?? null, message: e.message } }) }],
  isError: true,
});

server.registerTool(
  'ask-llm',
  { description: 'asks the client to sample', inputSchema: { prompt: z.string() } },
  async ({ prompt }, extra) => {
    try {
      const progress = [];
      const r = await server.server.createMessage(
        { messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 50 },
        { relatedRequestId: extra.requestId, onprogress: (p) => progress.push(p) },
      );
      return text({ ...r, progress });
    } catch (e) {
      return failed(e);
    }
  },
);
server.registerTool(
  'slow-ask',
  { description: 'a sampling request given up after ms', inputSchema: { ms: z.number() } },
  async ({ ms }, extra) => {
    try {
      return text(
        await server.server.createMessage(
          { messages: [{ role: 'user', content: { type: 'text', text: 'never answered' } }], maxTokens: 5 },
          { relatedRequestId: extra.requestId, timeout: ms },
        ),
      );
    } catch (e) {
      return failed(e);
    }
  },
);
server.registerTool('ask-user', { description: 'asks the user for a name', inputSchema: {} }, async (_args, extra) => {
  try {
    return text(
      await server.server.elicitInput(
        {
          mode: 'form',
          message: 'Your name?',
          requestedSchema: {
            type: 'object',
            properties: { name: { type: 'string', default: 'anon' } },
            required: ['name'],
          },
        },
        { relatedRequestId: extra.requestId },
      ),
    );
  } catch (e) {
    return failed(e);
  }
});
server.registerTool(
  'open-url',
  { description: 'asks the user to visit a URL', inputSchema: {} },
  async (_args, extra) => {
    try {
      return text(
        await server.server.elicitInput(
          { mode: 'url', message: 'Sign in', url: 'https://example.com/sign-in', elicitationId: 'el-1' },
          { relatedRequestId: extra.requestId },
        ),
      );
    } catch (e) {
      return failed(e);
    }
  },
);
server.registerTool('list-roots', { description: 'lists the client roots', inputSchema: {} }, async (_args, extra) => {
  try {
    return text(await server.server.listRoots(undefined, { relatedRequestId: extra.requestId }));
  } catch (e) {
    return failed(e);
  }
});
server.registerTool('ping-client', { description: 'pings the client', inputSchema: {} }, async (_args, extra) => {
  try {
    return text(await server.server.ping({ relatedRequestId: extra.requestId }));
  } catch (e) {
    return failed(e);
  }
});
server.registerTool(
  'flood',
  { description: 'n sampling requests at once', inputSchema: { n: z.number().int() } },
  async ({ n }, extra) => {
    const settled = await Promise.allSettled(
      Array.from({ length: n }, () =>
        server.server.createMessage(
          { messages: [{ role: 'user', content: { type: 'text', text: 'flood' } }], maxTokens: 1 },
          { relatedRequestId: extra.requestId, timeout: 20_000 },
        ),
      ),
    );
    return text({
      answered: settled.filter((x) => x.status === 'fulfilled').length,
      refused: settled.filter((x) => x.status === 'rejected').map((x) => x.reason.message),
    });
  },
);
server.registerTool('client-caps', { description: 'the client capabilities', inputSchema: {} }, async () =>
  text(server.server.getClientCapabilities() ?? null),
);
server.registerTool('add-tool', { description: 'adds cat-file', inputSchema: {} }, async () => {
  server.registerTool(
    'cat-file',
    { description: 'reads a file', inputSchema: { path: z.string() } },
    async ({ path }) => ({ content: [{ type: 'text', text: readFileSync(path, 'utf8') }] }),
  );
  return text({ added: 'cat-file' });
});

await server.connect(new StdioServerTransport());
