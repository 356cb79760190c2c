/**
 * Read queries over the ledger: one entry by receipt id (or unique prefix), filtered pages of
 * entries with a seq cursor, counts and statistics. Typed through drizzle over the projected,
 * indexed columns.
 * Owns: query shapes. Must not import the append path, kernel, edges or cli.
 */
import { and, asc, count, eq, gt, gte, like, lte, max, min, sql } from './drizzle.js';
import type { SQL } from 'drizzle-orm';
import type { Ledger } from './open.js';
import { ledgerEntries } from './schema.js';
import type { LedgerEntryRow } from './schema.js';

export interface EntryFilter {
  toolServer?: string | undefined;
  toolName?: string | undefined;
  /** Decision verdict: allow | deny | cancelled | incomplete. */
  outcome?: string | undefined;
  sessionId?: string | undefined;
  capabilityId?: string | undefined;
  receiptKind?: string | undefined;
  /** Unix seconds, inclusive. */
  since?: number | undefined;
  /** Unix seconds, inclusive. */
  until?: number | undefined;
}

/** The columns filters read, on either store's table (the same names and meanings: ./pg/schema.ts). */
type EntryColumns = Pick<
  typeof ledgerEntries,
  'toolServer' | 'toolName' | 'verdict' | 'sessionId' | 'capabilityId' | 'receiptKind' | 'timestamp'
>;

/** The WHERE clause of `filter` over `c` (SQLite's ledger_entries by default; PostgreSQL's has the same columns). */
export function conditions(filter: EntryFilter, c: EntryColumns = ledgerEntries): SQL | undefined {
  const parts: Array<SQL | undefined> = [
    filter.toolServer === undefined ? undefined : eq(c.toolServer, filter.toolServer),
    filter.toolName === undefined ? undefined : eq(c.toolName, filter.toolName),
    filter.outcome === undefined ? undefined : eq(c.verdict, filter.outcome),
    filter.sessionId === undefined ? undefined : eq(c.sessionId, filter.sessionId),
    filter.capabilityId === undefined ? undefined : eq(c.capabilityId, filter.capabilityId),
    filter.receiptKind === undefined ? undefined : eq(c.receiptKind, filter.receiptKind),
    filter.since === undefined ? undefined : gte(c.timestamp, filter.since),
    filter.until === undefined ? undefined : lte(c.timestamp, filter.until),
  ];
  return and(...parts.filter((p): p is SQL => p !== undefined));
}

export interface EntryPage {
  entries: LedgerEntryRow[];
  /** Pass as `cursor` for the next page; null when this page is the last. */
  nextCursor: number | null;
  /** Entries matching the filter, over all pages. */
  totalCount: number;
}

/** Entries matching `filter` with seq > cursor, in seq order. */
export function listEntries(
  ledger: Ledger,
  filter: EntryFilter,
  page: { limit: number; cursor?: number | undefined },
): EntryPage {
  const where = conditions(filter);
  const after = page.cursor === undefined ? where : and(where, gt(ledgerEntries.seq, page.cursor));
  const rows = ledger.orm
    .select()
    .from(ledgerEntries)
    .where(after)
    .orderBy(asc(ledgerEntries.seq))
    .limit(page.limit + 1)
    .all();
  const more = rows.length > page.limit;
  const entries = more ? rows.slice(0, page.limit) : rows;
  const totalCount = ledger.orm.select({ n: count() }).from(ledgerEntries).where(where).get()?.n ?? 0;
  return { entries, nextCursor: more ? entries[entries.length - 1]!.seq : null, totalCount };
}

/** The entry whose receipt id is `idOrPrefix`, or whose id starts with it (at least 8 hex characters, unique). */
export function findEntry(
  ledger: Ledger,
  idOrPrefix: string,
): { entry: LedgerEntryRow } | { entry: null; matches: number } {
  const exact = ledger.orm.select().from(ledgerEntries).where(eq(ledgerEntries.receiptId, idOrPrefix)).get();
  if (exact !== undefined) return { entry: exact };
  if (!/^[0-9a-f]{8,63}$/.test(idOrPrefix)) return { entry: null, matches: 0 };
  const rows = ledger.orm
    .select()
    .from(ledgerEntries)
    .where(like(ledgerEntries.receiptId, `${idOrPrefix}%`))
    .limit(2)
    .all();
  return rows.length === 1 ? { entry: rows[0]! } : { entry: null, matches: rows.length };
}

export interface LedgerStats {
  entries: number;
  head: { seq: number; entryHash: string } | null;
  sessions: number;
  firstTimestamp: number | null;
  lastTimestamp: number | null;
  byKind: Record<string, number>;
  byVerdict: Record<string, number>;
  kernelKeys: Record<string, number>;
  producers: Record<string, number>;
}

function tally(rows: Array<{ k: string | null; n: number }>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of rows) out[r.k ?? 'none'] = r.n;
  return out;
}

export function ledgerStats(ledger: Ledger): LedgerStats {
  const c = ledgerEntries;
  const o = ledger.orm;
  const totals = o
    .select({ n: count(), first: min(c.timestamp), last: max(c.timestamp) })
    .from(c)
    .get();
  const head = o.select({ seq: c.seq, entryHash: c.entryHash }).from(c).orderBy(sql`${c.seq} DESC`).limit(1).get();
  const sessions = o
    .select({ n: sql<number>`count(DISTINCT ${c.sessionId})` })
    .from(c)
    .get();
  return {
    entries: totals?.n ?? 0,
    head: head ?? null,
    sessions: sessions?.n ?? 0,
    firstTimestamp: totals?.first ?? null,
    lastTimestamp: totals?.last ?? null,
    byKind: tally(o.select({ k: c.receiptKind, n: count() }).from(c).groupBy(c.receiptKind).all()),
    byVerdict: tally(o.select({ k: c.verdict, n: count() }).from(c).groupBy(c.verdict).all()),
    kernelKeys: tally(o.select({ k: c.kernelKey, n: count() }).from(c).groupBy(c.kernelKey).all()),
    producers: tally(o.select({ k: c.producer, n: count() }).from(c).groupBy(c.producer).all()),
  };
}
