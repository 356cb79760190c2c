/**
 * Receipt queries on a PostgreSQL ledger: filtered pages with a seq cursor and one entry by receipt
 * id or unique prefix, with the same filters, order and answers as on SQLite (../read.ts), each
 * page and its count read in one snapshot.
 * Owns: query shapes on PostgreSQL. Never writes. Must not import kernel, edges or cli.
 */
import { and, asc, count, eq, gt, like } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import { conditions } from '../read.js';
import type { EntryFilter, EntryPage } from '../read.js';
import type { LedgerEntryRow } from '../schema.js';
import type { PgLedger } from './open.js';
import { pgSnapshot } from './read.js';
import { ledgerEntries } from './schema.js';

// The PostgreSQL table has the SQLite table's columns under the same names (schema.ts): the
// filter builder takes either.
const columns = ledgerEntries as unknown as Parameters<typeof conditions>[1];

/** Entries matching `filter` with seq > cursor, in seq order, and how many match in all. */
export async function listEntriesPg(ledger: PgLedger, filter: EntryFilter, page: { limit: number; cursor?: number | undefined }): Promise<EntryPage> {
  return pgSnapshot(ledger, async (client) => {
    const db = drizzle(client);
    const where = conditions(filter, columns);
    const after = page.cursor === undefined ? where : and(where, gt(ledgerEntries.seq, page.cursor));
    const rows: LedgerEntryRow[] = await db.select().from(ledgerEntries).where(after).orderBy(asc(ledgerEntries.seq)).limit(page.limit + 1);
    const more = rows.length > page.limit;
    const entries = more ? rows.slice(0, page.limit) : rows;
    const totalCount = (await db.select({ n: count() }).from(ledgerEntries).where(where))[0]?.n ?? 0;
    return { entries, nextCursor: more ? entries[entries.length - 1]!.seq : null, totalCount };
  });
}

/** The entry whose receipt id is `idOrPrefix`, or whose id starts with it (at least 8 hex characters, unique). */
export async function findEntryPg(ledger: PgLedger, idOrPrefix: string): Promise<{ entry: LedgerEntryRow } | { entry: null; matches: number }> {
  return pgSnapshot(ledger, async (client) => {
    const db = drizzle(client);
    const exact = (await db.select().from(ledgerEntries).where(eq(ledgerEntries.receiptId, idOrPrefix)))[0];
    if (exact !== undefined) return { entry: exact };
    // Checked before it reaches LIKE: a prefix of hex characters only, so no % or _ wildcards.
    if (!/^[0-9a-f]{8,63}$/.test(idOrPrefix)) return { entry: null, matches: 0 };
    const rows = await db.select().from(ledgerEntries).where(like(ledgerEntries.receiptId, `${idOrPrefix}%`)).limit(2);
    return rows.length === 1 ? { entry: rows[0]! } : { entry: null, matches: rows.length };
  });
}
