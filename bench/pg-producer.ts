/**
 * One producer process for bench/postgres.ts: signs its receipts first (the figure is the
 * ledger's, not signing's), says "ready", waits for "go" on stdin, appends them 16 at a time
 * through the process's group-commit writer (SQLite: LedgerWriter; PostgreSQL: PgLedgerWriter),
 * then prints "done".
 *   node dist/bench/pg-producer.js <sqlite|postgres> <path or url> <producer id> <count>
 */
import { createInterface } from 'node:readline';
import { hashCanonical, NULL_CONTENT_HASH, signerFromSeed } from '../src/crypto/index.js';
import { LedgerWriter, openLedger } from '../src/ledger/index.js';
import { openPgLedger, PgLedgerWriter } from '../src/ledger/pg/index.js';
import { signReceipt } from '../src/receipt/index.js';

const [kind, location, id, countText] = process.argv.slice(2) as [string, string, string, string];
const signer = signerFromSeed(new Uint8Array(32).fill(9));
const receipts = Array.from({ length: Number(countText) }, (_, i) =>
  signReceipt(
    {
      timestamp: 1_790_000_000 + i,
      capability_id: `cap-${id}`,
      tool_server: 'fs',
      tool_name: 'read_text_file',
      action: { parameters: { path: `/p${id}/${i}` } },
      decision: { verdict: 'allow' },
      receipt_kind: 'mediated_decision',
      boundary_class: 'prevent',
      tool_origin: 'caller_executed',
      redaction_mode: 'none',
      content_hash: NULL_CONTENT_HASH,
      policy_hash: hashCanonical({ p: 1 }),
      evidence: [{ guard_name: 'forbidden-path', verdict: true }],
      trust_level: 'mediated',
    },
    signer,
    { nonce: `p${id}-${i}` },
  ),
);

const sqlite = kind === 'sqlite' ? openLedger(location) : null;
const pg = kind === 'postgres' ? await openPgLedger(location, { maxConnections: 2 }) : null;
const writer: { append: LedgerWriter['append']; close(): Promise<void> } =
  sqlite !== null ? new LedgerWriter(sqlite) : new PgLedgerWriter(pg!);
process.stdout.write('ready\n');
await new Promise<void>((resolve) => {
  const lines = createInterface({ input: process.stdin });
  lines.once('line', () => {
    lines.close();
    resolve();
  });
});
let next = 0;
await Promise.all(
  Array.from({ length: 16 }, async () => {
    while (next < receipts.length) {
      const i = next++;
      await writer.append({ receipt: receipts[i]!, sessionId: `p${id}-${i % 4}`, producer: `bench-${id}` });
    }
  }),
);
await writer.close();
sqlite?.close();
await pg?.close();
process.stdout.write('done\n', () => process.exit(0));
