/**
 * Copying a ledger between stores (SQLite ⇄ PostgreSQL, or two of one kind): every entry byte for
 * byte — seq, links, hashes, body and columns as stored — with the projections each implies, in
 * transactions of a page of entries. The target must be empty or hold a prefix of the source
 * (then the copy continues it); anything else is refused before a row is written. The target is
 * verified after the copy (the caller reports the verdict).
 * Owns: moving entries between two ledgers. Must not import kernel, edges or cli.
 * The source is attacker-controlled: its rows go in only through the target's link trigger and
 * the verification after.
 */
import { ChioError } from '../../errors.js';
import { EntryInserter } from '../append.js';
import { grantsOf, revokedCapabilityOf } from '../entry.js';
import type { Receipt } from '../../receipt/index.js';
import type { RawLedgerEntry } from '../schema.js';
import type { ChainVerdict } from '../verify-chain.js';
import { insertRows, lockHead } from './append.js';
import { closeAnyLedger, headOf, isPg, openAnyLedger, verifyAnyChain } from './any.js';
import type { AnyLedger } from './any.js';
import { entryPages, pgSnapshot } from './read.js';
import { inTransaction } from './transaction.js';

const PAGE = 1000;

/** The source's entries after `after`, a page at a time, from one read snapshot. */
async function readSource(
  source: AnyLedger,
  after: number,
  each: (rows: RawLedgerEntry[]) => Promise<void>,
): Promise<void> {
  if (isPg(source)) {
    await pgSnapshot(source, async (client) => {
      for await (const rows of entryPages(client, after, PAGE)) await each(rows);
    });
    return;
  }
  const db = source.db;
  db.exec('BEGIN');
  try {
    const statement = db.prepare('SELECT * FROM ledger_entries WHERE seq > ? ORDER BY seq LIMIT ?');
    let last = after;
    for (;;) {
      const rows = statement.all(last, PAGE) as RawLedgerEntry[];
      if (rows.length === 0) break;
      await each(rows);
      last = rows[rows.length - 1]!.seq;
    }
  } finally {
    db.exec('COMMIT');
  }
}

async function entryHashAt(ledger: AnyLedger, seq: number): Promise<string | undefined> {
  if (isPg(ledger))
    return (
      (await ledger.pool.query('SELECT entry_hash FROM ledger_entries WHERE seq = $1', [seq])).rows[0] as
        | { entry_hash: string }
        | undefined
    )?.entry_hash;
  return (
    ledger.db.prepare('SELECT entry_hash FROM ledger_entries WHERE seq = ?').get(seq) as
      | { entry_hash: string }
      | undefined
  )?.entry_hash;
}

/**
 * The target must still end where this page begins: another writer appending to it during the
 * copy (a second copy, a producer) stops this one, with nothing of the page written.
 */
function checkContinues(head: { seq: number; entryHash: string } | null, first: RawLedgerEntry): void {
  if ((head?.seq ?? 0) !== first.seq - 1 || (head?.entryHash ?? first.prev_hash) !== first.prev_hash) {
    throw new ChioError(
      'CHIO-LEDGER-COPY-TARGET',
      `the target changed during the copy (it now ends at seq ${head?.seq ?? 0}, the next entry to copy is seq ${first.seq}): another writer appended to it; run the copy again to continue`,
    );
  }
}

/** A row the target's constraints refused: the source is not a valid ledger (its links or ids lie). */
function sourceRefused(e: unknown, first: RawLedgerEntry): unknown {
  const code = (e as { code?: unknown }).code;
  const pgIntegrity = typeof code === 'string' && /^23/.test(code);
  const sqliteConstraint = typeof code === 'string' && code.startsWith('SQLITE_CONSTRAINT');
  if (!pgIntegrity && !sqliteConstraint) return e;
  return new ChioError(
    'CHIO-LEDGER-COPY-SOURCE',
    `the target refused an entry of the source's page from seq ${first.seq}: ${(e as Error).message}; the source is not a valid ledger (run chio ledger verify on it); nothing of this page was written`,
    { cause: e },
  );
}

/** Writes one page into the target in one transaction. */
async function writePage(target: AnyLedger, rows: RawLedgerEntry[]): Promise<void> {
  const first = rows[0]!;
  if (!isPg(target)) {
    const inserter = new EntryInserter(target);
    const head = target.db.prepare('SELECT seq, entry_hash AS entryHash FROM ledger_entries ORDER BY seq DESC LIMIT 1');
    try {
      target.db
        .transaction(() => {
          checkContinues((head.get() as { seq: number; entryHash: string } | undefined) ?? null, first);
          for (const row of rows) inserter.insertRow(row);
        })
        .immediate();
    } catch (e) {
      throw sourceRefused(e, first);
    }
    return;
  }
  try {
    await inTransaction(target.pool, async (client) => {
      checkContinues(await lockHead(client), first);
      await insertRows(
        client,
        rows,
        rows.map((row) => {
          const receipt = JSON.parse(row.body) as Receipt;
          return { revokes: revokedCapabilityOf(receipt), grants: grantsOf(receipt) };
        }),
      );
    });
  } catch (e) {
    throw sourceRefused(e, first);
  }
}

export interface CopyResult {
  /** Entries the target held before (a prefix of the source). */
  kept: number;
  copied: number;
  /** The target's verification after the copy. */
  verdict: ChainVerdict;
}

/** Copies `from` into `to` (created when missing); see the module comment. */
export async function copyLedger(
  from: string,
  to: string,
  options: { onProgress?: (copied: number) => void } = {},
): Promise<CopyResult> {
  if (from === to) throw new ChioError('CHIO-LEDGER-COPY-TARGET', 'the source and the target are the same ledger');
  const source = await openAnyLedger(from, { readonly: true });
  let target: AnyLedger | undefined;
  try {
    target = await openAnyLedger(to);
    const head = await headOf(target);
    if (head !== null) {
      const there = await entryHashAt(source, head.seq);
      if (there !== head.entryHash) {
        throw new ChioError(
          'CHIO-LEDGER-COPY-TARGET',
          there === undefined
            ? `the target holds ${head.seq} entries, more than the source`
            : `the target's entry ${head.seq} is not the source's (entry_hash ${head.entryHash} vs ${there}): it is not a prefix of the source`,
        );
      }
    }
    let copied = 0;
    const into = target;
    await readSource(source, head?.seq ?? 0, async (rows) => {
      await writePage(into, rows);
      copied += rows.length;
      options.onProgress?.(copied);
    });
    return { kept: head?.seq ?? 0, copied, verdict: await verifyAnyChain(target) };
  } finally {
    await closeAnyLedger(source);
    if (target !== undefined) await closeAnyLedger(target);
  }
}
