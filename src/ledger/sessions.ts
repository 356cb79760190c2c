/**
 * The sessions projection (DESIGN §6): one row per session, derived from ledger_entries. The
 * append keeps it current; `rebuildSessions` drops and re-derives it, and must give the same rows.
 * Owns: the derivation. Must not import kernel, edges or cli.
 */
import { asc } from 'drizzle-orm';
import type { Ledger } from './open.js';
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

export function readSessions(ledger: Ledger): LedgerSessionRow[] {
  return ledger.orm.select().from(ledgerSessions).orderBy(asc(ledgerSessions.sessionId)).all();
}
