/**
 * `chio ledger rebuild-projections` on PostgreSQL: drop the projections (sessions, revocations,
 * grant usage, Merkle subtrees) and re-derive them from the entries, under the append lock, in one
 * transaction, with the same derivation as every append and copy (append.ts `applyProjections`,
 * the receipts read through ../entry.ts). The entries, the checkpoints and pending_calls (working
 * state, not a projection) are never touched.
 * Owns: the rebuild on PostgreSQL. Must not import kernel, edges or cli.
 * Every body is attacker-controlled: one that is not JSON stops the rebuild and nothing changes.
 */
import { ChioError } from '../../errors.js';
import type { Receipt } from '../../receipt/index.js';
import { grantsOf, revokedCapabilityOf } from '../entry.js';
import type { RawLedgerEntry } from '../schema.js';
import { applyProjections } from './append.js';
import type { PgLedger } from './open.js';
import { inTransaction } from './transaction.js';

const PAGE = 5000;

export async function rebuildProjectionsPg(
  ledger: PgLedger,
): Promise<{ sessions: number; revocations: number; grants: number; subtrees: number }> {
  return inTransaction(ledger.pool, async (client) => {
    await client.query('SELECT id FROM chio_append_lock WHERE id = 1 FOR UPDATE');
    for (const table of ['ledger_sessions', 'revoked_capabilities', 'grant_usage', 'merkle_subtrees'])
      await client.query(`DELETE FROM ${table}`);
    for (let after = 0; ; ) {
      const rows = (
        await client.query('SELECT * FROM ledger_entries WHERE seq > $1 ORDER BY seq LIMIT $2', [after, PAGE])
      ).rows as RawLedgerEntry[];
      if (rows.length === 0) break;
      await applyProjections(
        client,
        rows,
        rows.map((row) => {
          let receipt: Receipt;
          try {
            receipt = JSON.parse(row.body) as Receipt;
          } catch {
            throw new ChioError(
              'CHIO-LEDGER-CORRUPT',
              `the body of entry seq ${row.seq} is not JSON: the projections cannot be derived (nothing was changed)`,
            );
          }
          return { revokes: revokedCapabilityOf(receipt), grants: grantsOf(receipt) };
        }),
      );
      after = rows.at(-1)!.seq;
    }
    const count = async (table: string) =>
      ((await client.query(`SELECT count(*) AS n FROM ${table}`)).rows[0] as { n: number }).n;
    return {
      sessions: await count('ledger_sessions'),
      revocations: await count('revoked_capabilities'),
      grants: await count('grant_usage'),
      subtrees: await count('merkle_subtrees'),
    };
  });
}
