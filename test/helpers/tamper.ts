/** A forger's tools for the tamper tests: copy a ledger, drop its triggers, edit it, re-hash the chain. */
import { copyFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { entryHash, rebuildMerkleSubtrees, receiptSha256 } from '../../src/ledger/index.js';

export type Row = Record<string, any>;

/** Copies `source` to `dest` with the append-only and link triggers dropped, applies `edit`, returns `dest`. */
export function tamperedCopy(source: string, dest: string, edit: (db: Database.Database) => void): string {
  copyFileSync(source, dest);
  const db = new Database(dest);
  db.exec(
    'DROP TRIGGER ledger_entries_no_update; DROP TRIGGER ledger_entries_no_delete; DROP TRIGGER ledger_entries_links',
  );
  edit(db);
  db.close();
  return dest;
}

export const row = (db: Database.Database, seq: number) =>
  db.prepare('SELECT * FROM ledger_entries WHERE seq = ?').get(seq) as Row;

/** What a careful forger does after editing: recompute prev_hash/entry_hash from `fromSeq` to the head, and the sessions' heads. */
export function rehashFrom(db: Database.Database, fromSeq: number, options: { subtrees?: boolean } = {}): void {
  let prev = fromSeq === 1 ? '0'.repeat(64) : row(db, fromSeq - 1).entry_hash;
  for (const r of db.prepare('SELECT * FROM ledger_entries WHERE seq >= ? ORDER BY seq').all(fromSeq) as Row[]) {
    const hash = entryHash({
      seq: r.seq,
      prevHash: prev,
      receiptSha256: receiptSha256(r.body),
      sessionId: r.session_id,
      sessionPrevSeq: r.session_prev_seq,
    });
    db.prepare('UPDATE ledger_entries SET prev_hash = ?, entry_hash = ? WHERE seq = ?').run(prev, hash, r.seq);
    prev = hash;
  }
  db.prepare(
    'UPDATE ledger_sessions SET head_entry_hash = (SELECT entry_hash FROM ledger_entries WHERE seq = last_seq)',
  ).run();
  // A thorough forger re-derives the stored Merkle subtrees too (a stale one is its own failure).
  if (options.subtrees !== false) rebuildMerkleSubtrees(db);
}
