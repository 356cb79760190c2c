/**
 * Appending to a PostgreSQL ledger (DESIGN §6, §11): producers on many hosts keep one contiguous
 * chain because every append transaction first locks the ledger's one chio_append_lock row (held
 * to COMMIT or ROLLBACK; schema.ts says why a row and not an advisory lock), then reads the
 * head, links, inserts and updates the projections, and COMMITs; a result is
 * returned only after COMMIT. A connection lost mid-transaction leaves nothing: PostgreSQL rolls
 * the transaction back and releases the lock, and the callers get CHIO-LEDGER-APPEND-FAILED.
 * Entries are prepared (validated, encoded, hashed) before the transaction, exactly as for SQLite
 * (../append.ts `prepareEntry`), so the same receipts give the same rows and entry hashes.
 *
 * A batch costs a fixed number of round trips whatever its size (bench/README.md: on PostgreSQL a
 * round trip, not the disk, is what an entry would otherwise cost): one query for duplicates, one
 * for the sessions' heads, the links computed here, then one set-based statement (UNNEST of
 * arrays) per table. The link trigger still checks every row as it goes in.
 * Owns: the append transaction on PostgreSQL. Must not import kernel, edges or cli.
 */
import type pg from 'pg';
import { ChioError } from '../../errors.js';
import { appendFailed, prepareEntry } from '../append.js';
import type { AppendRequest, AppendResult, PreparedEntry } from '../append.js';
import { entryHash, GENESIS_PREV_HASH } from '../entry.js';
import type { GrantKey } from '../entry.js';
import type { RawLedgerEntry } from '../schema.js';
import type { PgLedger } from './open.js';
import { inTransaction } from './transaction.js';
import { appendSubtrees } from './tree.js';

export interface Head {
  seq: number;
  entryHash: string;
}

/** What a row implies beyond itself: a revocation, the grants it counts against, a reservation it settles. */
export interface RowEffects {
  revokes?: string | undefined;
  grants: GrantKey[];
  releases?: string | undefined;
}

const COLUMNS: Array<[keyof RawLedgerEntry, string]> = [
  ['seq', 'bigint'],
  ['kind', 'text'],
  ['receipt_id', 'text'],
  ['session_id', 'text'],
  ['session_prev_seq', 'bigint'],
  ['prev_hash', 'text'],
  ['entry_hash', 'text'],
  ['body', 'text'],
  ['timestamp', 'bigint'],
  ['capability_id', 'text'],
  ['tool_server', 'text'],
  ['tool_name', 'text'],
  ['verdict', 'text'],
  ['receipt_kind', 'text'],
  ['trust_level', 'text'],
  ['kernel_key', 'text'],
  ['tenant_id', 'text'],
  ['producer', 'text'],
];
const INSERT = `INSERT INTO ledger_entries (${COLUMNS.map(([c]) => c).join(', ')})
  SELECT * FROM unnest(${COLUMNS.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ')})`;
const UPSERT_SESSIONS = `INSERT INTO ledger_sessions (session_id, first_seq, last_seq, entry_count, first_timestamp, last_timestamp, head_entry_hash)
  SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[], $7::text[])
  ON CONFLICT (session_id) DO UPDATE SET
    last_seq = excluded.last_seq,
    entry_count = ledger_sessions.entry_count + excluded.entry_count,
    first_timestamp = least(ledger_sessions.first_timestamp, excluded.first_timestamp),
    last_timestamp = greatest(ledger_sessions.last_timestamp, excluded.last_timestamp),
    head_entry_hash = excluded.head_entry_hash`;

/** Takes the append lock (the chio_append_lock row) and reads the head: the first statements of every append transaction. */
export async function lockHead(client: pg.PoolClient): Promise<Head | null> {
  await client.query('SELECT id FROM chio_append_lock WHERE id = 1 FOR UPDATE');
  const row = (await client.query('SELECT seq, entry_hash FROM ledger_entries ORDER BY seq DESC LIMIT 1')).rows[0] as
    | { seq: number; entry_hash: string }
    | undefined;
  return row === undefined ? null : { seq: row.seq, entryHash: row.entry_hash };
}

/**
 * Inserts complete rows (linked here, or copied verbatim) in seq order and updates the projections
 * they imply, as SQLite's EntryInserter does row by row: the Merkle subtrees they complete,
 * sessions, the first revocation of a capability per key, grant usage per key, settled reservations.
 */
export async function insertRows(client: pg.PoolClient, rows: RawLedgerEntry[], effects: RowEffects[]): Promise<void> {
  if (rows.length === 0) return;
  await client.query(
    INSERT,
    COLUMNS.map(([c]) => rows.map((r) => r[c])),
  );
  await applyProjections(client, rows, effects);
}

/**
 * The projections entries imply, for rows in seq order contiguous from the head + 1 (an append, a
 * copy, or rebuild.ts re-deriving them from seq 1).
 */
export async function applyProjections(
  client: pg.PoolClient,
  rows: RawLedgerEntry[],
  effects: RowEffects[],
): Promise<void> {
  if (rows.length === 0) return;
  // The Merkle subtrees the new entries complete (tree.ts).
  await appendSubtrees(
    client,
    rows[0]!.seq,
    rows.map((r) => r.entry_hash),
  );
  const sessions = new Map<
    string,
    { first: number; last: number; count: number; lo: number; hi: number; head: string }
  >();
  for (const r of rows) {
    if (r.session_id === null) continue;
    const s = sessions.get(r.session_id);
    if (s === undefined)
      sessions.set(r.session_id, {
        first: r.seq,
        last: r.seq,
        count: 1,
        lo: r.timestamp,
        hi: r.timestamp,
        head: r.entry_hash,
      });
    else
      Object.assign(s, {
        last: r.seq,
        count: s.count + 1,
        lo: Math.min(s.lo, r.timestamp),
        hi: Math.max(s.hi, r.timestamp),
        head: r.entry_hash,
      });
  }
  if (sessions.size > 0) {
    const s = [...sessions];
    await client.query(UPSERT_SESSIONS, [
      s.map(([id]) => id),
      s.map(([, v]) => v.first),
      s.map(([, v]) => v.last),
      s.map(([, v]) => v.count),
      s.map(([, v]) => v.lo),
      s.map(([, v]) => v.hi),
      s.map(([, v]) => v.head),
    ]);
  }
  // The first revocation of a capability (per signing key) is the one that counts.
  const revocations = new Map<string, [string, string, number, number]>();
  const usage = new Map<string, [string, number, string, number]>();
  const releases: string[] = [];
  rows.forEach((r, i) => {
    const e = effects[i]!;
    if (e.revokes !== undefined && !revocations.has(`${e.revokes}\u0000${r.kernel_key}`))
      revocations.set(`${e.revokes}\u0000${r.kernel_key}`, [e.revokes, r.kernel_key, r.seq, r.timestamp]);
    for (const g of e.grants) {
      const key = `${g.capabilityId}\u0000${g.grantIndex}\u0000${r.kernel_key}`;
      const u = usage.get(key);
      if (u === undefined) usage.set(key, [g.capabilityId, g.grantIndex, r.kernel_key, 1]);
      else u[3] += 1;
    }
    if (e.releases !== undefined) releases.push(e.releases);
  });
  if (revocations.size > 0) {
    const v = [...revocations.values()];
    await client.query(
      `INSERT INTO revoked_capabilities (capability_id, kernel_key, seq, revoked_at)
      SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[]) ON CONFLICT DO NOTHING`,
      [v.map((x) => x[0]), v.map((x) => x[1]), v.map((x) => x[2]), v.map((x) => x[3])],
    );
  }
  if (usage.size > 0) {
    const v = [...usage.values()];
    await client.query(
      `INSERT INTO grant_usage (capability_id, grant_index, kernel_key, invocations)
      SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::bigint[])
      ON CONFLICT (capability_id, grant_index, kernel_key) DO UPDATE SET invocations = grant_usage.invocations + excluded.invocations`,
      [v.map((x) => x[0]), v.map((x) => x[1]), v.map((x) => x[2]), v.map((x) => x[3])],
    );
  }
  if (releases.length > 0)
    await client.query('DELETE FROM pending_calls WHERE request_id = ANY($1::text[])', [releases]);
}

/**
 * Links prepared entries after `head` and inserts them: the entries already in the ledger (or
 * repeated earlier in the batch) are left out and returned as refused, before anything is written.
 */
export async function insertLinked(
  client: pg.PoolClient,
  entries: PreparedEntry[],
  head: Head | null,
): Promise<{ results: Array<AppendResult | ChioError> }> {
  const ids = entries.map((e) => e.receiptId);
  const present = new Set(
    (
      (await client.query('SELECT receipt_id FROM ledger_entries WHERE receipt_id = ANY($1::text[])', [ids]))
        .rows as Array<{ receipt_id: string }>
    ).map((r) => r.receipt_id),
  );
  const sessionIds = [...new Set(entries.map((e) => e.sessionId).filter((s): s is string => s !== null))];
  const sessionHead = new Map<string, number>();
  if (sessionIds.length > 0) {
    const rows = (
      await client.query(
        'SELECT session_id, max(seq) AS seq FROM ledger_entries WHERE session_id = ANY($1::text[]) GROUP BY session_id',
        [sessionIds],
      )
    ).rows as Array<{ session_id: string; seq: number }>;
    for (const r of rows) sessionHead.set(r.session_id, r.seq);
  }
  let seq = head?.seq ?? 0;
  let prevHash = head?.entryHash ?? GENESIS_PREV_HASH;
  const rows: RawLedgerEntry[] = [];
  const effects: RowEffects[] = [];
  const results: Array<AppendResult | ChioError> = [];
  for (const entry of entries) {
    if (present.has(entry.receiptId)) {
      results.push(
        new ChioError('CHIO-LEDGER-DUPLICATE-RECEIPT', `receipt ${entry.receiptId} is already in the ledger`),
      );
      continue;
    }
    present.add(entry.receiptId);
    seq += 1;
    const sessionPrevSeq = entry.sessionId === null ? null : (sessionHead.get(entry.sessionId) ?? null);
    const hash = entryHash({
      seq,
      prevHash,
      receiptSha256: entry.receiptSha256,
      sessionId: entry.sessionId,
      sessionPrevSeq,
    });
    const c = entry.columns;
    rows.push({
      seq,
      kind: entry.kind,
      receipt_id: entry.receiptId,
      session_id: entry.sessionId,
      session_prev_seq: sessionPrevSeq,
      prev_hash: prevHash,
      entry_hash: hash,
      body: entry.body,
      timestamp: c.timestamp,
      capability_id: c.capabilityId,
      tool_server: c.toolServer,
      tool_name: c.toolName,
      verdict: c.verdict,
      receipt_kind: c.receiptKind,
      trust_level: c.trustLevel,
      kernel_key: c.kernelKey,
      tenant_id: c.tenantId,
      producer: entry.producer,
    });
    effects.push({ revokes: entry.revokes, grants: entry.grants, releases: entry.releases });
    results.push({
      seq,
      receiptId: entry.receiptId,
      entryHash: hash,
      prevHash,
      sessionId: entry.sessionId,
      sessionPrevSeq,
    });
    if (entry.sessionId !== null) sessionHead.set(entry.sessionId, seq);
    prevHash = hash;
  }
  await insertRows(client, rows, effects);
  return { results };
}

/**
 * Appends receipts in one transaction, in order, and returns after COMMIT. Every request is
 * checked before the transaction: an invalid one throws and nothing is appended. A duplicate or a
 * fault (a lost connection) appends none of them.
 */
export async function appendReceiptsPg(ledger: PgLedger, requests: AppendRequest[]): Promise<AppendResult[]> {
  if (ledger.readonly)
    throw new ChioError('CHIO-LEDGER-APPEND-FAILED', 'append not committed: the ledger is open read-only');
  const entries = requests.map(prepareEntry);
  try {
    return await inTransaction(ledger.pool, async (client) => {
      const { results } = await insertLinked(client, entries, await lockHead(client));
      const refused = results.find((r): r is ChioError => r instanceof ChioError);
      if (refused !== undefined) throw refused; // rolls the whole batch back
      return results as AppendResult[];
    });
  } catch (e) {
    throw appendFailed(e);
  }
}
