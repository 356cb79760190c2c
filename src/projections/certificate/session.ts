/**
 * Reading one session out of the ledger by walking its chain: from the session's last
 * entry back through `session_prev_seq` to its first, so a receipt deleted from the middle (or a
 * re-linked one) is a broken link, not a silently shorter session. The walk is cross-checked
 * against every entry that names the session, and each entry's own hash is recomputed.
 * The walk itself is pure (`walkSession`), over rows an SQLite file gives synchronously
 * (`readSession`) or rows a PostgreSQL ledger gives in one snapshot (`readSessionPg`).
 * Owns: session completeness. Reads only; must not import the append path.
 */
import { entryHash, receiptSha256 } from '../../ledger/index.js';
import type { Ledger, RawLedgerEntry } from '../../ledger/index.js';
import type { PgLedger } from '../../ledger/pg/open.js';
import { pgSnapshot } from '../../ledger/pg/read.js';

export interface SessionEntry {
  seq: number;
  receiptId: string;
  body: string;
  entryHash: string;
}

export interface SessionRead {
  entries: SessionEntry[];
  /** Why the session chain is not continuous, or null. */
  chainProblem: string | null;
}

type Row = Pick<
  RawLedgerEntry,
  'seq' | 'receipt_id' | 'session_id' | 'session_prev_seq' | 'prev_hash' | 'entry_hash' | 'body'
>;
const COLUMNS = 'seq, receipt_id, session_id, session_prev_seq, prev_hash, entry_hash, body';

/** What the walk reads: the seqs of every entry naming the session, the projection's last seq, any entry by seq. */
export interface SessionRows {
  claimed: readonly number[];
  projectedLast: number | undefined;
  bySeq(seq: number): Row | undefined;
}

export function readSession(ledger: Ledger, sessionId: string): SessionRead {
  const db = ledger.db;
  const bySeq = db.prepare(`SELECT ${COLUMNS} FROM ledger_entries WHERE seq = ?`);
  const claimed = (
    db.prepare('SELECT seq FROM ledger_entries WHERE session_id = ? ORDER BY seq').all(sessionId) as Array<{
      seq: number;
    }>
  ).map((r) => r.seq);
  const projected = db.prepare('SELECT last_seq FROM ledger_sessions WHERE session_id = ?').get(sessionId) as
    | { last_seq: number }
    | undefined;
  return walkSession(sessionId, {
    claimed,
    projectedLast: projected?.last_seq,
    bySeq: (seq) => bySeq.get(seq) as Row | undefined,
  });
}

/**
 * The same read on PostgreSQL, in one snapshot: the session's entries in one query, then the walk;
 * a link that leaves them (to another session's entry, or to a missing seq) is looked up and the
 * walk run again, which ends at that link.
 */
export async function readSessionPg(ledger: PgLedger, sessionId: string): Promise<SessionRead> {
  return pgSnapshot(ledger, async (client) => {
    const rows = (
      await client.query(`SELECT ${COLUMNS} FROM ledger_entries WHERE session_id = $1 ORDER BY seq`, [sessionId])
    ).rows as Row[];
    const projected = (await client.query('SELECT last_seq FROM ledger_sessions WHERE session_id = $1', [sessionId]))
      .rows[0] as { last_seq: number } | undefined;
    const known = new Map<number, Row | undefined>(rows.map((r) => [r.seq, r]));
    for (;;) {
      const missed: number[] = [];
      const read = walkSession(sessionId, {
        claimed: rows.map((r) => r.seq),
        projectedLast: projected?.last_seq,
        bySeq: (seq) => {
          if (!known.has(seq)) missed.push(seq);
          return known.get(seq);
        },
      });
      if (missed.length === 0) return read;
      for (const seq of missed)
        known.set(
          seq,
          (await client.query(`SELECT ${COLUMNS} FROM ledger_entries WHERE seq = $1`, [seq])).rows[0] as
            | Row
            | undefined,
        );
    }
  });
}

/** Walks the session from its head back through session_prev_seq and cross-checks the walk against `claimed`. */
export function walkSession(sessionId: string, source: SessionRows): SessionRead {
  const { claimed, projectedLast } = source;
  if (claimed.length === 0 && projectedLast === undefined) return { entries: [], chainProblem: null };

  const head = Math.max(claimed.at(-1) ?? 0, projectedLast ?? 0);
  const walked: Row[] = [];
  let problem: string | null = null;
  let seq: number | null = head;
  while (seq !== null) {
    const row = source.bySeq(seq);
    if (row === undefined) {
      problem ??=
        walked.length === 0
          ? `the session's head entry seq ${seq} is missing`
          : `session entry seq ${seq} is missing (seq ${walked.at(-1)!.seq} links to it)`;
      break;
    }
    if (row.session_id !== sessionId) {
      problem ??= `seq ${seq} is linked into the session but belongs to ${JSON.stringify(row.session_id)}`;
      break;
    }
    const recomputed = entryHash({
      seq: row.seq,
      prevHash: row.prev_hash,
      receiptSha256: receiptSha256(row.body),
      sessionId: row.session_id,
      sessionPrevSeq: row.session_prev_seq,
    });
    // Keep walking: the caller checks receipts before the chain, so an altered receipt is named as such.
    if (recomputed !== row.entry_hash) problem ??= `session entry seq ${seq} does not match its entry_hash`;
    walked.push(row);
    if (row.session_prev_seq !== null && row.session_prev_seq >= row.seq) {
      problem ??= `session entry seq ${seq} links forward to seq ${row.session_prev_seq}`;
      break;
    }
    seq = row.session_prev_seq;
  }
  walked.reverse();
  if (problem === null) {
    const walkedSeqs = walked.map((r) => r.seq);
    if (walkedSeqs.join(',') !== claimed.join(',')) {
      const stray = claimed.find((s) => !walkedSeqs.includes(s)) ?? walkedSeqs.find((s) => !claimed.includes(s));
      problem = `the session chain does not account for entry seq ${String(stray)}`;
    }
  }
  return {
    entries: walked.map((r) => ({ seq: r.seq, receiptId: r.receipt_id, body: r.body, entryHash: r.entry_hash })),
    chainProblem: problem,
  };
}
