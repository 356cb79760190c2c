// A producer process appending to a PostgreSQL ledger through its group-commit writer (built
// library, dist/). Prints "ack <receipt id> <seq>" once an append's COMMIT returned, "fail <code>"
// when one was refused, and "done" at the end.
//   node pg-append-worker.mjs <url> <worker-id> <count> <in-flight>
import { workerReceipt, workerSession } from './worker-receipts.mjs';
import { openPgLedger, PgLedgerWriter } from 'chio/postgres';

const [url, workerId, countArg, inFlightArg] = process.argv.slice(2);
const count = Number(countArg);
const ledger = await openPgLedger(url, { maxConnections: 2 });
const writer = new PgLedgerWriter(ledger);

const receipt = (i) => workerReceipt(workerId, i);
const session = (i) => workerSession(workerId, i);

let next = 0;
const lane = async () => {
  while (next < count) {
    const i = next++;
    const r = receipt(i);
    try {
      const at = await writer.append({ receipt: r, sessionId: session(i), producer: `worker-${workerId}` });
      process.stdout.write(`ack ${r.id} ${at.seq}\n`);
    } catch (e) {
      process.stdout.write(`fail ${e.code ?? e.message}\n`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
};
await Promise.all(Array.from({ length: Number(inFlightArg) }, lane));
await writer.close();
await ledger.close();
process.stdout.write('done\n');
