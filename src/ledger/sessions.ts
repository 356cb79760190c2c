/**
 * The sessions projection (DESIGN §6): one row per session, derived from ledger_entries. The
 * append keeps it current; `rebuildSessions` drops and re-derives it, and must give the same rows.
 * Owns: the derivation. Must not import kernel, edges or cli.
 */
import { asc } from 'drizzle-orm';
import type { Ledger } from './open.js';
import { GRANT_INDEX_KEY } from './entry.js';
import { ledgerSessions } from './schema.js';
import type { LedgerSessionRow } from './schema.js';

/** Re-derives ledger_sessions from ledger_entries in one IMMEDIATE transaction. Returns the row count. */
export function rebuildSessions(ledger: Ledger): number {
  const db = ledger.db;
  return db.transaction(() => {
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
  }).immediate();
}

/**
 * Re-derives every projection (sessions, revocations, grant usage) from ledger_entries in one
 * IMMEDIATE transaction. pending_calls is working state, not a projection, and is left alone.
 */
export function rebuildProjections(ledger: Ledger): { sessions: number; revocations: number; grants: number } {
  const db = ledger.db;
  return db.transaction(() => {
    const sessions = rebuildSessions(ledger);
    db.prepare('DELETE FROM revoked_capabilities').run();
    const revocations = db
      .prepare(
        `INSERT INTO revoked_capabilities (capability_id, seq, revoked_at)
         SELECT body ->> '$.action.parameters.capability_id', min(seq), 0 FROM ledger_entries
         WHERE kind = 'revocation' GROUP BY body ->> '$.action.parameters.capability_id'`,
      )
      .run().changes;
    db.prepare('UPDATE revoked_capabilities SET revoked_at = (SELECT timestamp FROM ledger_entries WHERE seq = revoked_capabilities.seq)').run();
    db.prepare('DELETE FROM grant_usage').run();
    const grants = db
      .prepare(
        `INSERT INTO grant_usage (capability_id, grant_index, invocations)
         SELECT capability_id, body ->> '$.metadata.${GRANT_INDEX_KEY}', count(*) FROM ledger_entries
         WHERE kind = 'receipt' AND verdict = 'allow' AND receipt_kind = 'mediated_decision'
           AND json_type(body, '$.metadata.${GRANT_INDEX_KEY}') = 'integer' AND (body ->> '$.metadata.${GRANT_INDEX_KEY}') >= 0
         GROUP BY capability_id, body ->> '$.metadata.${GRANT_INDEX_KEY}'`,
      )
      .run().changes;
    return { sessions, revocations, grants };
  }).immediate();
}

export function readSessions(ledger: Ledger): LedgerSessionRow[] {
  return ledger.orm.select().from(ledgerSessions).orderBy(asc(ledgerSessions.sessionId)).all();
}
