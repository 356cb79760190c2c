// A producer in its own process, for the multi-process tests. Uses the built library (dist/).
//   node append-worker.mjs <db> <worker-id> batch <count>   append <count> receipts, 8 in flight, then print "done"
//   node append-worker.mjs <db> <worker-id> crash [thread]  append forever, one at a time; print each id once its append resolved
//                                                           (thread: through the writer thread, LedgerWriter.onThread)
//                                                           prints "backfilling" once the WAL backfill thread has made a pass
//   node append-worker.mjs <db> <worker-id> unclosed <count>  append <count> receipts one at a time, print "appended" once
//                                                           the WAL backfill thread runs, and end without closing anything
import { LedgerWriter, openLedger } from '../../dist/src/ledger/index.js';
import { workerReceipt, workerSession } from './worker-receipts.mjs';

const [db, workerId, mode, countArg] = process.argv.slice(2);
const onThread = countArg === 'thread';
const ledger = onThread ? null : openLedger(db);
const writer = onThread ? await LedgerWriter.onThread(db) : new LedgerWriter(ledger);

const receipt = (i) => workerReceipt(workerId, i);
const session = (i) => workerSession(workerId, i);

if (mode === 'batch') {
  const count = Number(countArg);
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const i = next++;
      await writer.append({ receipt: receipt(i), sessionId: session(i), producer: `worker-${workerId}` });
    }
  };
  await Promise.all(Array.from({ length: 8 }, lane));
  await writer.close();
  ledger.close();
  process.stdout.write('done\n');
} else if (mode === 'crash') {
  let backfilling = false;
  for (let i = 0; ; i++) {
    const r = receipt(i);
    await writer.append({ receipt: r, sessionId: session(i), producer: 'crash-worker' });
    process.stdout.write(`${r.id}\n`); // pipes are synchronous on Linux: written before the next append starts
    if (!backfilling && (writer.walBackfiller?.stats.passes ?? 0) > 0) {
      backfilling = true;
      process.stdout.write('backfilling\n');
    }
  }
} else if (mode === 'unclosed') {
  for (let i = 0; i < Number(countArg); i++) await writer.append({ receipt: receipt(i), sessionId: session(i) });
  while (!writer.walBackfiller?.stats.running) await new Promise((r) => setTimeout(r, 10));
  process.stdout.write('appended\n'); // the process must now end by itself: nothing of the ledger keeps it alive
} else {
  throw new Error(`unknown mode ${mode}`);
}
