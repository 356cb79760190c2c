/**
 * The floor under "the ledger alone": SQLite writing exactly the rows the ledger wrote, and nothing
 * else. The rows of a ledger the group-commit writer built in the same run (entries, the Merkle
 * subtrees each entry completed, the sessions projection) are read back beforehand, then written
 * again into a fresh ledger file of the same schema (its link trigger, its indexes, its checks) by
 * the ledger's own INSERT statements, in `BEGIN IMMEDIATE … COMMIT` transactions of 64 at
 * synchronous=FULL, with the WAL backfill thread running as the writer's does. What the ledger's
 * own JavaScript does per entry (checking and projecting the receipt, hashing the entry and its
 * subtrees, reading the heads, the producers' promises) is left out, so no writer of these rows
 * through better-sqlite3 can append them faster on this machine: the bound of the pre-signed row.
 * `bare` writes them into a table stripped of its link trigger and of every index but the unique
 * `receipt_id` one (the least any ledger of receipts needs): what a leaner schema could reach at most.
 * Owns: that replay. Imports the ledger's open, backfill thread and statement texts only.
 */
import { setImmediate as yieldToLoop, setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { ENTRY_COLUMNS, INSERT_ENTRY_SQL, UPSERT_SESSION_SQL } from '../src/ledger/append.js';
import { openLedger, WalBackfiller } from '../src/ledger/index.js';
import { INSERT_SUBTREE_SQL } from '../src/ledger/tree.js';

type EntryRow = unknown[];
interface Subtree {
  level: number;
  idx: number;
  hash: Buffer;
}
interface SessionParams {
  sessionId: string;
  seq: number;
  timestamp: number;
  entryHash: string;
}

/** The indexes of ledger_entries besides its primary key and the unique receipt_id (src/ledger/schema.ts). */
const SECONDARY_INDEXES = [
  'ledger_entries_session_seq',
  'ledger_entries_timestamp_verdict',
  'ledger_entries_tool',
  'ledger_entries_capability',
  'ledger_entries_verdict_not_allow',
];

/** The entries of `source` in seq order, the subtrees each one completed, its session upsert. */
function readRows(source: string): Array<{ entry: EntryRow; subtrees: Subtree[]; session: SessionParams | null }> {
  const db = new Database(source, { readonly: true });
  try {
    const entries = db.prepare(`SELECT ${ENTRY_COLUMNS} FROM ledger_entries ORDER BY seq`).raw().all() as EntryRow[];
    // Subtree (level, idx) covers entries idx·2^level + 1 … (idx + 1)·2^level: it is completed,
    // and inserted, by the append of its last entry (DESIGN §10).
    const completedBy = new Map<number, Subtree[]>();
    for (const s of db.prepare('SELECT level, idx, hash FROM merkle_subtrees ORDER BY level').all() as Subtree[]) {
      const seq = (s.idx + 1) * 2 ** s.level;
      const list = completedBy.get(seq) ?? [];
      list.push(s);
      completedBy.set(seq, list);
    }
    return entries.map((entry) => {
      const seq = entry[0] as number;
      const sessionId = entry[3] as string | null;
      return {
        entry,
        subtrees: completedBy.get(seq) ?? [],
        session:
          sessionId === null ? null : { sessionId, seq, timestamp: entry[8] as number, entryHash: entry[6] as string },
      };
    });
  } finally {
    db.close();
  }
}

export interface FloorFigures {
  /** Entries per second (each with its subtrees and session row). */
  rate: number;
  /** CPU of this process (every thread: the backfill thread's copy included) per entry written, µs. */
  cpuUsPerEntry: number;
}

/**
 * Entries per second SQLite takes to write the rows of the ledger at `source` again into a new
 * ledger at `target`, `batch` entries a commit, and the CPU it spends per entry; the first 1,024
 * entries warm up and are not timed.
 */
export async function sqliteFloor(source: string, target: string, bare = false, batch = 64): Promise<FloorFigures> {
  const rows = readRows(source);
  const ledger = openLedger(target);
  if (bare) for (const name of SECONDARY_INDEXES) ledger.db.exec(`DROP INDEX ${name}`);
  if (bare) ledger.db.exec('DROP TRIGGER ledger_entries_links');
  const backfiller = new WalBackfiller(ledger);
  try {
    for (let waited = 0; !backfiller.stats.running && waited < 2000; waited += 10) await sleep(10);
    const db = ledger.db;
    const insertEntry = db.prepare(INSERT_ENTRY_SQL);
    const insertSubtree = db.prepare(INSERT_SUBTREE_SQL);
    const upsertSession = db.prepare(UPSERT_SESSION_SQL);
    const write = db.transaction((from: number) => {
      for (const row of rows.slice(from, from + batch)) {
        insertEntry.run(row.entry);
        for (const s of row.subtrees) insertSubtree.run(s.level, s.idx, s.hash);
        if (row.session !== null) upsertSession.run(row.session);
      }
    });
    const warm = Math.min(1024, rows.length);
    let start = 0n;
    let cpu = process.cpuUsage();
    for (let from = 0; from < rows.length; from += batch) {
      if (from === warm) {
        start = process.hrtime.bigint();
        cpu = process.cpuUsage();
      }
      write.immediate(from);
      backfiller.committed();
      await yieldToLoop(); // as the writer does between commits: the backfill thread's messages get through
    }
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    const spent = process.cpuUsage(cpu);
    return { rate: (rows.length - warm) / seconds, cpuUsPerEntry: (spent.user + spent.system) / (rows.length - warm) };
  } finally {
    await backfiller.close();
    ledger.close();
  }
}
