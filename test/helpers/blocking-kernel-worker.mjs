// A producer with a call in flight, in its own process (the built library, dist/).
//   node blocking-kernel-worker.mjs <db> <seed-hex> <marker-dir> <request-id> <session-id>
// Makes one call to `mark`, which writes <marker-dir>/<request-id> and then waits for a line on
// stdin; prints the call's result as one JSON line and exits.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { signerFromSeed } from '../../dist/src/crypto/index.js';
import { Kernel } from '../../dist/src/kernel/index.js';

const [db, seedHex, markerDir, requestId, sessionId] = process.argv.slice(2);
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const kernel = await Kernel.connect({
  ledgerPath: db,
  seed: Uint8Array.from(Buffer.from(seedHex, 'hex')),
  producer: `worker-${process.pid}`,
});
kernel.registerToolServer({
  manifest: {
    schema: 'chio.manifest.v1',
    server_id: 'fs',
    name: 'w',
    version: '1',
    tools: [{ name: 'mark', description: '', input_schema: {}, has_side_effects: true }],
  },
  async invoke(_tool, args) {
    writeFileSync(join(markerDir, requestId), `${process.pid}\n`);
    await lines.next();
    return { marked: args.name };
  },
});
const agent = signerFromSeed(new Uint8Array(32).fill(7));
const capability = kernel.issueCapability({ subject: agent.publicKeyHex });
const r = await kernel.evaluateToolCall({
  capability,
  caller: agent.publicKeyHex,
  serverId: 'fs',
  toolName: 'mark',
  arguments: { name: requestId },
  requestId,
  sessionId,
});
await kernel.close();
process.stdout.write(`${JSON.stringify({ ok: r.ok, verdict: r.receipt.decision?.verdict, seq: r.entry.seq })}\n`);
process.exit(0);
