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
         SELECT e.session_id, min(e.seq), max(e.seq), count(*), min(e.timestamp), max(e.timestamp),
                (SELECT h.entry_hash FROM ledger_entries h WHERE h.seq = max(e.seq))
         FROM ledger_entries e
         WHERE e.session_id IS NOT NULL
         GROUP BY e.session_id`,
      )
      .run();
    return info.changes;
  }).immediate();
}

export function readSessions(ledger: Ledger): LedgerSessionRow[] {
  return ledger.orm.select().from(ledgerSessions).orderBy(asc(ledgerSessions.sessionId)).all();
}
