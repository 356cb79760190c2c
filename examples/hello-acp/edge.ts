/**
 * hello-acp: the ACP edge over one in-process tool server, `hello-acp-srv`, with `hello_tool`
 * (upstream's hello-acp walkthrough). `serve` speaks line-based JSON-RPC on stdio:
 * session/list_capabilities, session/request_permission, tool/invoke, tool/stream, tool/resume,
 * tool/cancel. The agent holds a 300-second capability scoped to hello_tool. State (kernel seed,
 * ledger) lives in $HELLO_ACP_HOME/.state (default: this example's folder).
 * Run through ./run-edge.sh (after `npm ci`, which builds dist/).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AcpEdge, serveAcpStdio } from '../../src/edges/acp/index.js';
import { generateSeed, Kernel, parseSeed, signerFromSeed, toHex } from '../../src/index.js';
import { helloServer, SERVER_ID, TOOL } from './server.js';

const HOME = process.env.HELLO_ACP_HOME ?? join(import.meta.dirname, '..', '..', '..', 'examples', 'hello-acp');
const STATE = join(HOME, '.state');

function openKernel(): Kernel {
  mkdirSync(STATE, { recursive: true });
  const seedFile = join(STATE, 'kernel.seed');
  if (!existsSync(seedFile)) writeFileSync(seedFile, `${toHex(generateSeed())}\n`, { mode: 0o600, flag: 'wx' });
  const kernel = Kernel.open({
    ledgerPath: join(STATE, 'receipts.sqlite'),
    seed: parseSeed(readFileSync(seedFile)),
    producer: 'hello-acp',
  });
  kernel.registerToolServer(helloServer);
  return kernel;
}

const [mode = 'serve', extra] = process.argv.slice(2);
if (mode !== 'serve' || extra !== undefined) {
  process.stderr.write(
    mode !== 'serve' ? `unknown mode: ${mode}\nusage: run-edge.sh serve\n` : `unexpected argument: ${extra}\n`,
  );
  process.exit(2);
}
const kernel = openKernel();
try {
  const agent = signerFromSeed(generateSeed());
  const capability = kernel.issueCapability({
    subject: agent.publicKeyHex,
    scope: { grants: [{ server_id: SERVER_ID, tool_name: TOOL, operations: ['invoke'] }] },
    ttlSeconds: 300,
  });
  await serveAcpStdio(
    new AcpEdge({ kernel, capability, agentId: agent.publicKeyHex, sessionId: process.env.HELLO_ACP_SESSION }),
    process.stdin,
    process.stdout,
  );
} finally {
  await kernel.close();
}
