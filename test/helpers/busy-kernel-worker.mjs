// A producer with many calls in flight, in its own process (the built library, dist/), for the
// shared-commit crash trials.
//   node busy-kernel-worker.mjs <db> <seed-hex> <lanes> <sync>
// Runs <lanes> loops of governed calls to `mark` at once, so reservations and receipts of different
// calls are handed to the writer in the same turns. Writes (synchronously, unbuffered) a line
// `dispatched <n>` when call n's tool runs and `ack <n> <receipt-id> <seq>` after call n's
// evaluateToolCall resolved: what a caller would have been answered. Runs until killed.
import { writeSync } from 'node:fs';
import { signerFromSeed } from '../../dist/src/crypto/index.js';
import { Kernel } from '../../dist/src/kernel/index.js';

const [db, seedHex, lanes, sync] = process.argv.slice(2);
const kernel = Kernel.open({
  ledgerPath: db,
  seed: Uint8Array.from(Buffer.from(seedHex, 'hex')),
  producer: `worker-${process.pid}`,
  reservationSync: sync,
  checkpoints: false,
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
    writeSync(1, `dispatched ${args.n}\n`);
    if (args.n % 3 === 0) await new Promise((r) => setImmediate(r)); // some tools finish a turn later
    return { marked: args.n };
  },
});
const agent = signerFromSeed(new Uint8Array(32).fill(9));
const capability = kernel.issueCapability({ subject: agent.publicKeyHex });
let next = 0;
async function lane(i) {
  for (;;) {
    const n = next++;
    const r = await kernel.evaluateToolCall({
      capability,
      caller: agent.publicKeyHex,
      serverId: 'fs',
      toolName: 'mark',
      arguments: { n },
      sessionId: `lane-${i}`,
    });
    writeSync(1, `ack ${n} ${r.receipt.id} ${r.entry.seq}\n`);
  }
}
writeSync(1, 'ready\n');
await Promise.all(Array.from({ length: Number(lanes) }, (_, i) => lane(i)));
