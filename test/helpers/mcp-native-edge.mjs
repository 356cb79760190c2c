// An MCP edge over a native (in-process) tool server, speaking stdio: what an MCP client spawns.
//   node mcp-native-edge.mjs <ledger> <kernel-seed-hex> [max-message-bytes]
import { McpSession, serveStdio } from '../../dist/src/edges/mcp/index.js';
import { Kernel } from '../../dist/src/kernel/index.js';

const [db, seedHex, maxBytes] = process.argv.slice(2);
const kernel = Kernel.open({
  ledgerPath: db,
  seed: Uint8Array.from(Buffer.from(seedHex, 'hex')),
  producer: 'mcp-edge',
});
kernel.registerToolServer({
  manifest: {
    schema: 'chio.manifest.v1',
    server_id: 'hello-mcp-srv',
    name: 'hello',
    version: '1.0.0',
    tools: [
      {
        name: 'hello_tool',
        description: 'Greets',
        input_schema: { properties: { name: { type: 'string' } } },
        has_side_effects: false,
      },
      {
        name: 'read_file',
        description: 'Reads a file',
        input_schema: { properties: { path: { type: 'string' } } },
        has_side_effects: false,
      },
      { name: 'count_tool', description: 'Streams a count', input_schema: {}, has_side_effects: false },
    ],
  },
  async invoke(tool, args) {
    if (tool === 'hello_tool') return { message: `hello from mcp, ${args.name ?? 'world'}` };
    if (tool === 'count_tool') return { count: 3 };
    return { text: `contents of ${args.path}` };
  },
  async *invokeStream(_tool) {
    for (let i = 1; i <= 3; i++) yield { data: { n: i } };
  },
});
await serveStdio(
  new McpSession({ kernel }),
  process.stdin,
  process.stdout,
  maxBytes === undefined ? {} : { maxMessageBytes: Number(maxBytes) },
);
await kernel.close();
