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
async function readSource(source: AnyLedger, after: number, each: (rows: RawLedgerEntry[]) => Promise<void>): Promise<void> {
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
  if (isPg(ledger)) return ((await ledger.pool.query('SELECT entry_hash FROM ledger_entries WHERE seq = $1', [seq])).rows[0] as { entry_hash: string } | undefined)?.entry_hash;
  return (ledger.db.prepare('SELECT entry_hash FROM ledger_entries WHERE seq = ?').get(seq) as { entry_hash: string } | undefined)?.entry_hash;
}

/** Writes one page into the target in one transaction. */
async function writePage(target: AnyLedger, rows: RawLedgerEntry[]): Promise<void> {
  if (!isPg(target)) {
    const inserter = new EntryInserter(target);
    target.db.transaction(() => {
      for (const row of rows) inserter.insertRow(row);
    }).immediate();
    return;
  }
  await inTransaction(target.pool, async (client) => {
    await lockHead(client);
    await insertRows(client, rows, rows.map((row) => {
      const receipt = JSON.parse(row.body) as Receipt;
      return { revokes: revokedCapabilityOf(receipt), grants: grantsOf(receipt) };
    }));
  });
}

export interface CopyResult {
  /** Entries the target held before (a prefix of the source). */
  kept: number;
  copied: number;
  /** The target's verification after the copy. */
  verdict: ChainVerdict;
}

/** Copies `from` into `to` (created when missing); see the module comment. */
export async function copyLedger(from: string, to: string, options: { onProgress?: (copied: number) => void } = {}): Promise<CopyResult> {
  if (from === to) throw new ChioError('CHIO-LEDGER-COPY-TARGET', 'the source and the target are the same ledger');
  const source = await openAnyLedger(from, { readonly: true });
  let target: AnyLedger | undefined;
  try {
    target = await openAnyLedger(to);
    const head = await headOf(target);
    if (head !== null) {
      const there = await entryHashAt(source, head.seq);
      if (there !== head.entryHash) {
        throw new ChioError('CHIO-LEDGER-COPY-TARGET', there === undefined
          ? `the target holds ${head.seq} entries, more than the source`
          : `the target's entry ${head.seq} is not the source's (entry_hash ${head.entryHash} vs ${there}): it is not a prefix of the source`);
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
