/**
 * Either ledger behind one small async face (DESIGN §11): open by --receipt-db value (a
 * postgres:// URL or an SQLite path), append, read the head, verify, close. What a command or a
 * test needs when it must not care where the ledger lives.
 * Owns: choosing the store. Must not import kernel, edges or cli.
 */
import type { AppendRequest, AppendResult } from '../append.js';
import { appendFailed, EntryInserter, prepareEntry } from '../append.js';
import { openLedger } from '../open.js';
import type { Ledger } from '../open.js';
import { verifyChainParallel } from '../verify-chain-parallel.js';
import type { ChainVerdict } from '../verify-chain.js';
import { appendReceiptsPg } from './append.js';
import { isPostgresUrl, openPgLedger } from './open.js';
import type { PgLedger } from './open.js';
import { pgHead, verifyChainPg } from './read.js';

export type AnyLedger = Ledger | PgLedger;
export const isPg = (l: AnyLedger): l is PgLedger => 'kind' in l && l.kind === 'postgres';

/** Opens either store by its --receipt-db value (a postgres:// URL or an SQLite path). */
export async function openAnyLedger(location: string, options: { readonly?: boolean } = {}): Promise<AnyLedger> {
  return isPostgresUrl(location) ? openPgLedger(location, options) : openLedger(location, options);
}

export async function closeAnyLedger(ledger: AnyLedger): Promise<void> {
  await ledger.close(); // a promise on PostgreSQL, nothing to wait for on SQLite
}

export async function verifyAnyChain(
  ledger: AnyLedger,
  options: Parameters<typeof verifyChainPg>[1] = {},
): Promise<ChainVerdict> {
  return isPg(ledger) ? verifyChainPg(ledger, options) : verifyChainParallel(ledger, options);
}

/** Appends in order in one transaction and resolves after COMMIT; an invalid request or a fault appends none of them. */
export async function appendAny(ledger: AnyLedger, requests: AppendRequest[]): Promise<AppendResult[]> {
  if (isPg(ledger)) return appendReceiptsPg(ledger, requests);
  const entries = requests.map(prepareEntry);
  const inserter = new EntryInserter(ledger);
  try {
    return ledger.db
      .transaction(() => {
        const batch = inserter.batch();
        return entries.map((e) => inserter.insertLinked(e, batch));
      })
      .immediate();
  } catch (e) {
    throw appendFailed(e);
  }
}

export async function headOf(ledger: AnyLedger): Promise<{ seq: number; entryHash: string } | null> {
  if (isPg(ledger)) return pgHead(ledger.pool);
  const row = ledger.db.prepare('SELECT seq, entry_hash FROM ledger_entries ORDER BY seq DESC LIMIT 1').get() as
    | { seq: number; entry_hash: string }
    | undefined;
  return row === undefined ? null : { seq: row.seq, entryHash: row.entry_hash };
}
