/**
 * Appending to a PostgreSQL ledger (DESIGN §6, §11): producers on many hosts keep one contiguous
 * chain because every append transaction first takes the ledger's transaction-scoped advisory
 * lock, then reads the head, links, inserts and updates the projections, and COMMITs; a result is
 * returned only after COMMIT. A connection lost mid-transaction leaves nothing: PostgreSQL rolls
 * the transaction back and releases the lock, and the callers get CHIO-LEDGER-APPEND-FAILED.
 * Entries are prepared (validated, encoded, hashed) before the transaction, exactly as for SQLite
 * (../append.ts `prepareEntry`), so the same receipts give the same rows and entry hashes.
 * Owns: the append transaction on PostgreSQL. Must not import kernel, edges or cli.
 */
import type pg from 'pg';
import { ChioError } from '../../errors.js';
import { appendFailed, prepareEntry } from '../append.js';
import type { AppendRequest, AppendResult, PreparedEntry } from '../append.js';
import { entryHash, GENESIS_PREV_HASH } from '../entry.js';
import type { RawLedgerEntry } from '../schema.js';
import type { PgLedger } from './open.js';
import { inTransaction } from './transaction.js';

/** The append lock (pg_advisory_xact_lock): 'Chio' in ASCII, then 2. One per database. */
export const APPEND_LOCK = (0x4368696f_02n).toString();

interface Head {
  seq: number;
  entryHash: string;
}

const INSERT = `INSERT INTO ledger_entries (seq, kind, receipt_id, session_id, session_prev_seq, prev_hash, entry_hash, body,
    timestamp, capability_id, tool_server, tool_name, verdict, receipt_kind, trust_level, kernel_key, tenant_id, producer)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`;
const UPSERT_SESSION = `INSERT INTO ledger_sessions (session_id, first_seq, last_seq, entry_count, first_timestamp, last_timestamp, head_entry_hash)
  VALUES ($1, $2, $2, 1, $3, $3, $4)
  ON CONFLICT (session_id) DO UPDATE SET
    last_seq = excluded.last_seq,
    entry_count = ledger_sessions.entry_count + 1,
    first_timestamp = least(ledger_sessions.first_timestamp, excluded.first_timestamp),
    last_timestamp = greatest(ledger_sessions.last_timestamp, excluded.last_timestamp),
    head_entry_hash = excluded.head_entry_hash`;

/** Takes the append lock and reads the head: the first statements of every append transaction. */
export async function lockHead(client: pg.PoolClient): Promise<Head | null> {
  await client.query('SELECT pg_advisory_xact_lock($1)', [APPEND_LOCK]);
  const row = (await client.query('SELECT seq, entry_hash FROM ledger_entries ORDER BY seq DESC LIMIT 1')).rows[0] as { seq: number; entry_hash: string } | undefined;
  return row === undefined ? null : { seq: row.seq, entryHash: row.entry_hash };
}

/** Inserts one linked row and its projections; `row` is complete (computed here or copied verbatim). */
export async function insertRow(client: pg.PoolClient, row: RawLedgerEntry, projections: { revokes?: string | undefined; grants: Array<{ capabilityId: string; grantIndex: number }>; releases?: string | undefined }): Promise<void> {
  await client.query(INSERT, [row.seq, row.kind, row.receipt_id, row.session_id, row.session_prev_seq, row.prev_hash, row.entry_hash, row.body,
    row.timestamp, row.capability_id, row.tool_server, row.tool_name, row.verdict, row.receipt_kind, row.trust_level, row.kernel_key, row.tenant_id, row.producer]);
  if (row.session_id !== null) await client.query(UPSERT_SESSION, [row.session_id, row.seq, row.timestamp, row.entry_hash]);
  // The first revocation of a capability counts; budgets and revocations are kept per signing key (as on SQLite).
  if (projections.revokes !== undefined) {
    await client.query('INSERT INTO revoked_capabilities (capability_id, kernel_key, seq, revoked_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING', [projections.revokes, row.kernel_key, row.seq, row.timestamp]);
  }
  for (const g of projections.grants) {
    await client.query(`INSERT INTO grant_usage (capability_id, grant_index, kernel_key, invocations) VALUES ($1, $2, $3, 1)
      ON CONFLICT (capability_id, grant_index, kernel_key) DO UPDATE SET invocations = grant_usage.invocations + 1`, [g.capabilityId, g.grantIndex, row.kernel_key]);
  }
  if (projections.releases !== undefined) await client.query('DELETE FROM pending_calls WHERE request_id = $1', [projections.releases]);
}

export async function insertLinked(client: pg.PoolClient, entry: PreparedEntry, head: Head | null): Promise<AppendResult> {
  const dup = await client.query('SELECT 1 FROM ledger_entries WHERE receipt_id = $1', [entry.receiptId]);
  if (dup.rowCount !== 0) throw new ChioError('CHIO-LEDGER-DUPLICATE-RECEIPT', `receipt ${entry.receiptId} is already in the ledger`);
  const seq = (head?.seq ?? 0) + 1;
  const prevHash = head?.entryHash ?? GENESIS_PREV_HASH;
  const sessionPrevSeq = entry.sessionId === null ? null
    : ((await client.query('SELECT max(seq) AS seq FROM ledger_entries WHERE session_id = $1', [entry.sessionId])).rows[0] as { seq: number | null }).seq;
  const hash = entryHash({ seq, prevHash, receiptSha256: entry.receiptSha256, sessionId: entry.sessionId, sessionPrevSeq });
  const c = entry.columns;
  await insertRow(client, {
    seq, kind: entry.kind, receipt_id: entry.receiptId, session_id: entry.sessionId, session_prev_seq: sessionPrevSeq, prev_hash: prevHash, entry_hash: hash,
    body: entry.body, timestamp: c.timestamp, capability_id: c.capabilityId, tool_server: c.toolServer, tool_name: c.toolName, verdict: c.verdict,
    receipt_kind: c.receiptKind, trust_level: c.trustLevel, kernel_key: c.kernelKey, tenant_id: c.tenantId, producer: entry.producer,
  }, { revokes: entry.revokes, grants: entry.grants, releases: entry.releases });
  return { seq, receiptId: entry.receiptId, entryHash: hash, prevHash, sessionId: entry.sessionId, sessionPrevSeq };
}

/**
 * Appends receipts in one transaction, in order, and returns after COMMIT. Every request is
 * checked before the transaction: an invalid one throws and nothing is appended. A fault (a
 * duplicate, a lost connection) rolls the whole batch back.
 */
export async function appendReceiptsPg(ledger: PgLedger, requests: AppendRequest[]): Promise<AppendResult[]> {
  if (ledger.readonly) throw new ChioError('CHIO-LEDGER-APPEND-FAILED', 'append not committed: the ledger is open read-only');
  const entries = requests.map(prepareEntry);
  try {
    return await inTransaction(ledger.pool, async (client) => {
      let head = await lockHead(client);
      const results: AppendResult[] = [];
      for (const entry of entries) {
        const r = await insertLinked(client, entry, head);
        results.push(r);
        head = { seq: r.seq, entryHash: r.entryHash };
      }
      return results;
    });
  } catch (e) {
    throw appendFailed(e);
  }
}
