// One process of an open race (test/ledger/concurrent-open.test.ts). Uses the built library (dist/).
//   node open-race-worker.mjs <db> <kernel|verify> <id>
// Prints "ready", waits for a line on stdin (so every process of a round starts opening at the
// same moment, whatever its start-up time), then:
//   kernel  Kernel.open (two connections, recovery), one signed revocation appended, close; prints {"ok":true,"seq":n}
//   verify  open read-only (retrying only while the file does not exist yet) and verify the chain;
//           prints {"ok":true,"entries":n}
// Any error prints {"ok":false,"code":…,"message":…}.
import { randomUUID } from 'node:crypto';
import { openLedger, verifyChain } from '../../dist/src/ledger/index.js';
import { Kernel } from '../../dist/src/kernel/index.js';

const [db, mode, id] = process.argv.slice(2);
const seed = new Uint8Array(32).fill(9);

async function kernel() {
  const k = Kernel.open({ ledgerPath: db, seed, producer: `racer-${id}` });
  try {
    const { entry } = await k.revokeCapability(`cap-${randomUUID()}`, `racer ${id}`);
    return { ok: true, seq: entry.seq };
  } finally {
    await k.close();
  }
}

function verify() {
  for (;;) {
    let ledger;
    try {
      ledger = openLedger(db, { readonly: true });
    } catch (e) {
      // Before any producer has created the file there is nothing to verify yet: look again.
      if (e.code === 'CHIO-LEDGER-NOT-FOUND') {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2);
        continue;
      }
      throw e;
    }
    try {
      const v = verifyChain(ledger);
      return v.ok
        ? { ok: true, entries: v.entries }
        : { ok: false, code: 'CHAIN', message: `${v.check}: ${v.message}` };
    } finally {
      ledger.close();
    }
  }
}

process.stdout.write('ready\n');
process.stdin.once('data', async () => {
  let result;
  try {
    result = mode === 'kernel' ? await kernel() : verify();
  } catch (e) {
    result = { ok: false, code: e.code ?? 'THROWN', message: e.message };
  }
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
});
