/**
 * The sessions projection (DESIGN §6): one row per session, derived from ledger_entries. The
 * append keeps it current; `rebuildSessions` drops and re-derives it, and must give the same rows.
 * Owns: the derivation. Must not import kernel, edges or cli.
 */
import { asc } from './drizzle.js';
import type { Ledger } from './open.js';
import { ANCESTOR_GRANTS_KEY, GRANT_INDEX_KEY } from './entry.js';
import { ledgerSessions } from './schema.js';
import { rebuildMerkleSubtrees } from './tree.js';
import type { LedgerSessionRow } from './schema.js';

/** Re-derives ledger_sessions from ledger_entries in one IMMEDIATE transaction. Returns the row count. */
export function rebuildSessions(ledger: Ledger): number {
  const db = ledger.db;
  return db
    .transaction(() => {
      db.prepare('DELETE FROM ledger_sessions').run();
      const info = db
        .prepare(
          `INSERT INTO ledger_sessions (session_id, first_seq, last_seq, entry_count, first_timestamp, last_timestamp, head_entry_hash)
         SELECT g.session_id, g.first_seq, g.last_seq, g.n, g.first_ts, g.last_ts, h.entry_hash
         FROM (SELECT session_id, min(seq) AS first_seq, max(seq) AS last_seq, count(*) AS n,
                      min(timestamp) AS first_ts, max(timestamp) AS last_ts
               FROM ledger_entries WHERE session_id IS NOT NULL GROUP BY session_id) g
         JOIN ledger_entries h ON h.seq = g.last_seq`,
        )
        .run();
      return info.changes;
    })
    .immediate();
}

/** An allowed mediated call that names its grant (columns of ledger_entries, prefixed by `t`). */
const allowedCall = (
  t: string,
) => `${t}kind = 'receipt' AND ${t}verdict = 'allow' AND ${t}receipt_kind = 'mediated_decision'
  AND json_type(${t}body, '$.metadata.${GRANT_INDEX_KEY}') = 'integer' AND (${t}body ->> '$.metadata.${GRANT_INDEX_KEY}') >= 0`;

/** The first revocation of each capability by each signing key (entry.ts revokedCapabilityOf, per key). */
export const REBUILD_REVOCATIONS_SQL = `INSERT INTO revoked_capabilities (capability_id, kernel_key, seq, revoked_at)
  SELECT e.body ->> '$.action.parameters.capability_id', e.kernel_key, e.seq, e.timestamp FROM ledger_entries e
  WHERE e.kind = 'revocation' AND e.seq = (SELECT min(f.seq) FROM ledger_entries f WHERE f.kind = 'revocation'
    AND f.kernel_key = e.kernel_key AND f.body ->> '$.action.parameters.capability_id' = e.body ->> '$.action.parameters.capability_id')`;

/** Allowed calls per (capability, grant, signing key), ancestors' grants included (entry.ts grantsOf). */
export const REBUILD_GRANT_USAGE_SQL = `INSERT INTO grant_usage (capability_id, grant_index, kernel_key, invocations)
  SELECT cap, idx, key, count(*) FROM (
    SELECT capability_id AS cap, body ->> '$.metadata.${GRANT_INDEX_KEY}' AS idx, kernel_key AS key FROM ledger_entries WHERE ${allowedCall('')}
    UNION ALL
    SELECT a.value ->> '$.capability_id', a.value ->> '$.grant_index', e.kernel_key FROM ledger_entries e, json_each(e.body, '$.metadata.${ANCESTOR_GRANTS_KEY}') a
    WHERE ${allowedCall('e.')}
      AND json_type(e.body, '$.metadata.${ANCESTOR_GRANTS_KEY}') = 'array' AND a.key < 256
      AND json_type(a.value, '$.capability_id') = 'text' AND json_type(a.value, '$.grant_index') = 'integer' AND (a.value ->> '$.grant_index') >= 0
  ) GROUP BY cap, idx, key`;

/**
 * Re-derives every projection (sessions, revocations, grant usage, Merkle subtrees) from ledger_entries in one
 * IMMEDIATE transaction. pending_calls is working state, not a projection, and is left alone.
 */
export function rebuildProjections(ledger: Ledger): {
  sessions: number;
  revocations: number;
  grants: number;
  subtrees: number;
} {
  const db = ledger.db;
  return db
    .transaction(() => {
      const sessions = rebuildSessions(ledger);
      db.prepare('DELETE FROM revoked_capabilities').run();
      const revocations = db.prepare(REBUILD_REVOCATIONS_SQL).run().changes;
      db.prepare('DELETE FROM grant_usage').run();
      const grants = db.prepare(REBUILD_GRANT_USAGE_SQL).run().changes;
      const subtrees = rebuildMerkleSubtrees(db);
      return { sessions, revocations, grants, subtrees };
    })
    .immediate();
}

export function readSessions(ledger: Ledger): LedgerSessionRow[] {
  return ledger.orm.select().from(ledgerSessions).orderBy(asc(ledgerSessions.sessionId)).all();
}
