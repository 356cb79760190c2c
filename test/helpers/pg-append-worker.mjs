// A producer process appending to a PostgreSQL ledger through its group-commit writer (built
// library, dist/). Prints "ack <receipt id> <seq>" once an append's COMMIT returned, "fail <code>"
// when one was refused, and "done" at the end.
//   node pg-append-worker.mjs <url> <worker-id> <count> <in-flight>
import { hashCanonical, signerFromSeed, signReceipt } from '../../dist/src/index.js';
import { openPgLedger, PgLedgerWriter } from 'chio/postgres';

const [url, workerId, countArg, inFlightArg] = process.argv.slice(2);
const count = Number(countArg);
const signer = signerFromSeed(new Uint8Array(32).fill(7));
const ledger = await openPgLedger(url, { maxConnections: 2 });
const writer = new PgLedgerWriter(ledger);

function receipt(i) {
  return signReceipt(
    {
      timestamp: 1_790_000_000 + i,
      capability_id: `cap-w${workerId}`,
      tool_server: 'fs',
      tool_name: 'read_text_file',
      action: { parameters: { path: `/w${workerId}/file-${i}` } },
      decision: { verdict: 'allow' },
      receipt_kind: 'mediated_decision',
      boundary_class: 'prevent',
      tool_origin: 'caller_executed',
      redaction_mode: 'none',
      content_hash: hashCanonical({ i }),
      policy_hash: hashCanonical({ p: 1 }),
      trust_level: 'mediated',
    },
    signer,
    { nonce: `w${workerId}-${i}` },
  );
}

/** Own sessions plus one every worker shares, so session chains cross processes and hosts. */
const session = (i) => (i % 3 === 0 ? 'shared' : `w${workerId}-${i % 2}`);

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
