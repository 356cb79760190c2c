// A kernel in its own process (either ledger: an SQLite path or a postgres:// URL), for the cross-process budget test. Uses the built library (dist/).
//   node kernel-worker.mjs <db> <seed-hex> <capability-json-file> <caller-hex> <calls>
// Makes <calls> concurrent calls and prints one JSON line: {"allowed": n, "denied": m, "invoked": k}.
import { readFileSync } from 'node:fs';
import { Kernel } from '../../dist/src/kernel/index.js';

const [db, seedHex, capFile, caller, calls] = process.argv.slice(2);
const kernel = await Kernel.connect({
  ledgerPath: db,
  seed: Uint8Array.from(Buffer.from(seedHex, 'hex')),
  producer: `worker-${process.pid}`,
});
let invoked = 0;
kernel.registerToolServer({
  manifest: {
    schema: 'chio.manifest.v1',
    server_id: 'fs',
    name: 'w',
    version: '1',
    tools: [{ name: 'hello_tool', description: '', input_schema: {}, has_side_effects: false }],
  },
  async invoke() {
    invoked += 1;
    await new Promise((r) => setTimeout(r, 5)); // calls overlap across both processes
    return { ok: true };
  },
});
const capability = JSON.parse(readFileSync(capFile, 'utf8'));
const results = await Promise.all(
  Array.from({ length: Number(calls) }, () =>
    kernel.evaluateToolCall({ capability, caller, serverId: 'fs', toolName: 'hello_tool', arguments: {} }),
  ),
);
await kernel.close();
process.stdout.write(
  `${JSON.stringify({ allowed: results.filter((r) => r.ok).length, denied: results.filter((r) => !r.ok && r.guard === 'budget').length, invoked })}\n`,
);
