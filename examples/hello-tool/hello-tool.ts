/**
 * hello-tool: the kernel as a library. Builds a kernel over ./hello-tool.sqlite, registers one
 * in-process tool server, issues a capability to an agent, makes one allowed and one denied call,
 * and prints both receipt ids. Run: `npm run build && node dist/examples/hello-tool/hello-tool.js`.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { generateSeed, Kernel, parseSeed, signerFromSeed, toHex } from '../../src/index.js';
import type { ToolServerConnection } from '../../src/index.js';

const LEDGER = process.env.CHIO_HELLO_DB ?? './hello-tool.sqlite';

/** One tool server, two tools: a greeting, and a file reader the guards watch. */
const server: ToolServerConnection = {
  manifest: {
    schema: 'chio.manifest.v1',
    server_id: 'hello-srv',
    name: 'hello server',
    version: '1.0.0',
    tools: [
      {
        name: 'hello_tool',
        description: 'Greets someone',
        input_schema: { type: 'object', properties: { name: { type: 'string' } } },
        has_side_effects: false,
      },
      {
        name: 'read_file',
        description: 'Reads a file',
        input_schema: { type: 'object', properties: { path: { type: 'string' } } },
        has_side_effects: false,
      },
    ],
  },
  async invoke(tool, args) {
    const a = args as { name?: string; path?: string };
    if (tool === 'hello_tool') return { message: `hello, ${a.name ?? 'world'}` };
    throw new Error(`hello-srv does not really read ${a.path}`);
  },
};

// The kernel key persists next to the ledger, so every run's receipts verify under one pinned key.
const SEED_FILE = `${LEDGER}.kernel.seed`;
if (!existsSync(SEED_FILE)) writeFileSync(SEED_FILE, `${toHex(generateSeed())}\n`, { mode: 0o600, flag: 'wx' });
const kernelSeed = parseSeed(readFileSync(SEED_FILE));
const kernel = Kernel.open({ ledgerPath: LEDGER, seed: kernelSeed, producer: 'hello-tool' });
writeFileSync(`${LEDGER}.kernel.pub`, `${kernel.publicKeyHex}\n`);
kernel.registerToolServer(server);

const agent = signerFromSeed(generateSeed());
const capability = kernel.issueCapability({ subject: agent.publicKeyHex });
console.log(`kernel key   ${kernel.publicKeyHex} (written to ${LEDGER}.kernel.pub)`);
console.log(`capability   ${capability.id} for agent ${agent.publicKeyHex.slice(0, 16)}…`);

const allowed = await kernel.evaluateToolCall({
  capability,
  caller: agent.publicKeyHex,
  serverId: 'hello-srv',
  toolName: 'hello_tool',
  arguments: { name: 'world' },
  sessionId: 'hello-session',
});
console.log(`allowed      receipt ${allowed.receipt.id} → ${JSON.stringify(allowed.ok ? allowed.output : null)}`);

const denied = await kernel.evaluateToolCall({
  capability,
  caller: agent.publicKeyHex,
  serverId: 'hello-srv',
  toolName: 'read_file',
  arguments: { path: '/etc/shadow' },
  sessionId: 'hello-session',
});
console.log(
  `denied       receipt ${denied.receipt.id} → ${denied.ok ? 'allowed?!' : `${denied.guard}: ${denied.reason}`}`,
);

await kernel.close();
