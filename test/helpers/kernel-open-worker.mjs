// Opens a kernel on a ledger in its own process (the built library, dist/), which runs recovery,
// and prints what recovery did as one JSON line: {settled: [request ids], left: [{requestId, why}], error}.
//   node kernel-open-worker.mjs <db> <seed-hex>
import { Kernel } from '../../dist/src/kernel/index.js';

const [db, seedHex] = process.argv.slice(2);
const kernel = await Kernel.connect({
  ledgerPath: db,
  seed: Uint8Array.from(Buffer.from(seedHex, 'hex')),
  producer: `opener-${process.pid}`,
});
const r = kernel.lastRecovery;
await kernel.close();
process.stdout.write(
  `${JSON.stringify({ pid: process.pid, settled: r.settled.map((s) => s.requestId), left: r.left.map((l) => ({ requestId: l.requestId, why: l.why })), error: r.error?.message ?? null })}\n`,
);
