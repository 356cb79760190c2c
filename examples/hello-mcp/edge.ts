/**
 * hello-mcp: an authoritative MCP edge over a native (in-process) tool server — no upstream
 * process. `serve` speaks MCP on stdio; `bridge-call` calls the kernel directly and prints
 * `receipt_id`, `decision` (the receipt's tagged decision, e.g. {"verdict":"allow"}) and `output`. State (kernel seed, ledger) lives in $HELLO_MCP_HOME
 * (default: this example's folder), so both modes sign with one key into one ledger.
 * Run through ./run-edge.sh (after `npm ci`, which builds dist/).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { McpSession, serveStdio } from '../../src/edges/mcp/index.js';
import { generateSeed, Kernel, parseSeed, signerFromSeed, toHex } from '../../src/index.js';
import { helloServer } from './hello-server.js';

const HOME = process.env.HELLO_MCP_HOME ?? join(import.meta.dirname, '..', '..', '..', 'examples', 'hello-mcp');
const STATE = join(HOME, '.state');

function openKernel(): Kernel {
  mkdirSync(STATE, { recursive: true });
  const seedFile = join(STATE, 'kernel.seed');
  if (!existsSync(seedFile)) writeFileSync(seedFile, `${toHex(generateSeed())}\n`, { mode: 0o600, flag: 'wx' });
  const kernel = Kernel.open({
    ledgerPath: join(STATE, 'receipts.sqlite'),
    seed: parseSeed(readFileSync(seedFile)),
    producer: 'hello-mcp',
  });
  kernel.registerToolServer(helloServer);
  return kernel;
}

const mode = process.argv[2];
const kernel = openKernel();
try {
  if (mode === 'serve') {
    await serveStdio(
      new McpSession({ kernel, serverInfo: { name: 'Chio MCP Edge', version: '0.1.0' }, nullNextCursor: true }),
      process.stdin,
      process.stdout,
    );
  } else if (mode === 'bridge-call') {
    const agent = signerFromSeed(generateSeed());
    const capability = kernel.issueCapability({ subject: agent.publicKeyHex });
    const name = process.argv[3] ?? 'world';
    const r = await kernel.evaluateToolCall({
      capability,
      caller: agent.publicKeyHex,
      serverId: 'hello-mcp-srv',
      toolName: 'hello_tool',
      arguments: { name },
      sessionId: 'hello-mcp-bridge',
    });
    process.stdout.write(
      `${JSON.stringify({ receipt_id: r.receipt.id, decision: r.receipt.decision ?? null, output: r.ok ? r.output : null })}\n`,
    );
  } else {
    process.stderr.write('usage: run-edge.sh serve | bridge-call [name]\n');
    process.exitCode = 2;
  }
} finally {
  await kernel.close();
}
