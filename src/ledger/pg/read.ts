/**
 * Reading a PostgreSQL ledger: entries in seq order a page at a time, and chain verification
 * (DESIGN §6) with the same checks as on SQLite (../verify-chain.ts ChainChecker), in one
 * REPEATABLE READ, READ ONLY transaction so the walk sees one snapshot while producers append.
 * Owns: the read queries on PostgreSQL. Never writes. Must not import kernel, edges or cli.
 * Every row is attacker-controlled: whoever can write the database can write anything.
 */
import type pg from 'pg';
import { verifySignature } from '../../crypto/index.js';
import { ChainChecker, signatureFailure } from '../verify-chain.js';
import type { ChainVerdict, StoredProjections, VerifyChainOptions } from '../verify-chain.js';
import type { RawLedgerEntry } from '../schema.js';
import { splitPending } from '../pending.js';
import type { PendingCallsReport } from '../pending.js';
import type { PgLedger } from './open.js';
import { inTransaction } from './transaction.js';

const PAGE = 2000;

/**
 * Runs `read` in one REPEATABLE READ, READ ONLY transaction: one snapshot. It ends in ROLLBACK:
 * PostgreSQL still lets a read-only transaction create large objects or take advisory locks, and
 * nothing a read ran may outlive it.
 */
export async function pgSnapshot<T>(ledger: PgLedger, read: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return inTransaction(ledger.pool, read, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', 'ROLLBACK');
}

/** Entries with seq > `after`, in seq order, a page at a time (inside a snapshot). */
export async function* entryPages(client: pg.PoolClient, after = 0, page = PAGE): AsyncGenerator<RawLedgerEntry[]> {
  let last = after;
  for (;;) {
    const rows = (await client.query('SELECT * FROM ledger_entries WHERE seq > $1 ORDER BY seq LIMIT $2', [last, page]))
      .rows as RawLedgerEntry[];
    if (rows.length === 0) return;
    yield rows;
    last = rows[rows.length - 1]!.seq;
  }
}

export async function pgHead(client: pg.PoolClient | pg.Pool): Promise<{ seq: number; entryHash: string } | null> {
  const row = (await client.query('SELECT seq, entry_hash FROM ledger_entries ORDER BY seq DESC LIMIT 1')).rows[0] as
    | { seq: number; entry_hash: string }
    | undefined;
  return row === undefined ? null : { seq: row.seq, entryHash: row.entry_hash };
}

/** Verifies the chain, signatures included unless disabled; a broken chain is a verdict, a fault throws. */
export async function verifyChainPg(ledger: PgLedger, options: VerifyChainOptions = {}): Promise<ChainVerdict> {
  const progressEvery = options.progressEvery ?? 1000;
  return pgSnapshot(ledger, async (client) => {
    const checker = new ChainChecker(options);
    const total = (await pgHead(client))?.seq ?? 0;
    for await (const rows of entryPages(client)) {
      for (const row of rows) {
        const first = checker.beforeSignature(row);
        if ('fail' in first) return first.fail;
        if (first.job !== null && !verifySignature(first.job.kernelKey, first.job.signed, first.job.signature))
          return signatureFailure(first.job, checker.checked);
        const after = checker.afterSignature(row);
        if (after !== null) return after;
        if (options.onProgress !== undefined && checker.checked % progressEvery === 0)
          options.onProgress(checker.checked, total);
      }
    }
    const stored: StoredProjections = {
      sessions: (await client.query('SELECT * FROM ledger_sessions')).rows as Array<Record<string, unknown>>,
      revocations: (await client.query('SELECT capability_id, kernel_key, seq, revoked_at FROM revoked_capabilities'))
        .rows as StoredProjections['revocations'],
      grants: (await client.query('SELECT capability_id, grant_index, kernel_key, invocations FROM grant_usage'))
        .rows as StoredProjections['grants'],
    };
    const verdict = checker.finish(stored);
    if (verdict.ok) options.onProgress?.(checker.checked, total);
    return verdict;
  });
}

/** Reservations without a receipt (../pending.ts), read from a PostgreSQL ledger. */
export async function readPendingCallsPg(
  ledger: PgLedger,
  options: { now: number; maxAgeSeconds: number },
): Promise<PendingCallsReport> {
  const rows = (
    await ledger.pool.query(
      'SELECT request_id, capability_id, grant_index, owner, reserved_at, tool_server, tool_name FROM pending_calls ORDER BY reserved_at, request_id',
    )
  ).rows as Array<Record<string, unknown>>;
  return splitPending(rows, options);
}
