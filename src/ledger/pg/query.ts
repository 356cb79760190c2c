/**
 * Receipt queries on a PostgreSQL ledger: filtered pages with a seq cursor and one entry by receipt
 * id or unique prefix, with the same filters, order and answers as on SQLite (../read.ts), each
 * page and its count read in one snapshot.
 * Owns: query shapes on PostgreSQL. Never writes. Must not import kernel, edges or cli.
 */
import { and, asc, count, eq, gt, like } from '../drizzle.js';
import type pg from 'pg';
import { conditions } from '../read.js';
import type { EntryFilter, EntryPage, LedgerStats } from '../read.js';
import type { LedgerEntryRow } from '../schema.js';
import type { PgLedger } from './open.js';
import { pgSnapshot } from './read.js';

/**
 * drizzle's PostgreSQL side (its pg-core, node-postgres and so the pg driver: a third of the
 * modules a CLI start would load) and the table, loaded by the first query: every command imports
 * this module, most of them for an SQLite file.
 */
let modules: Promise<[typeof import('./drizzle.js'), typeof import('./schema.js')]> | undefined;

async function orm(client: pg.PoolClient) {
  modules ??= Promise.all([import('./drizzle.js'), import('./schema.js')]);
  const [{ drizzle }, { ledgerEntries }] = await modules;
  // The PostgreSQL table has the SQLite table's columns under the same names (schema.ts): the
  // filter builder takes either.
  const columns = ledgerEntries as unknown as Parameters<typeof conditions>[1];
  return { db: drizzle(client), ledgerEntries, columns };
}

/** Entries matching `filter` with seq > cursor, in seq order, and how many match in all. */
export async function listEntriesPg(
  ledger: PgLedger,
  filter: EntryFilter,
  page: { limit: number; cursor?: number | undefined },
): Promise<EntryPage> {
  return pgSnapshot(ledger, async (client) => {
    const { db, ledgerEntries, columns } = await orm(client);
    const where = conditions(filter, columns);
    const after = page.cursor === undefined ? where : and(where, gt(ledgerEntries.seq, page.cursor));
    const rows: LedgerEntryRow[] = await db
      .select()
      .from(ledgerEntries)
      .where(after)
      .orderBy(asc(ledgerEntries.seq))
      .limit(page.limit + 1);
    const more = rows.length > page.limit;
    const entries = more ? rows.slice(0, page.limit) : rows;
    const totalCount = (await db.select({ n: count() }).from(ledgerEntries).where(where))[0]?.n ?? 0;
    return { entries, nextCursor: more ? entries[entries.length - 1]!.seq : null, totalCount };
  });
}

/** The entry whose receipt id is `idOrPrefix`, or whose id starts with it (at least 8 hex characters, unique). */
export async function findEntryPg(
  ledger: PgLedger,
  idOrPrefix: string,
): Promise<{ entry: LedgerEntryRow } | { entry: null; matches: number }> {
  return pgSnapshot(ledger, async (client) => {
    const { db, ledgerEntries } = await orm(client);
    const exact = (await db.select().from(ledgerEntries).where(eq(ledgerEntries.receiptId, idOrPrefix)))[0];
    if (exact !== undefined) return { entry: exact };
    // Checked before it reaches LIKE: a prefix of hex characters only, so no % or _ wildcards.
    if (!/^[0-9a-f]{8,63}$/.test(idOrPrefix)) return { entry: null, matches: 0 };
    const rows = await db
      .select()
      .from(ledgerEntries)
      .where(like(ledgerEntries.receiptId, `${idOrPrefix}%`))
      .limit(2);
    return rows.length === 1 ? { entry: rows[0]! } : { entry: null, matches: rows.length };
  });
}

/** The ledger's counts, head and time span (../read.ts `ledgerStats`), in one snapshot, with the schema version and the database's size. */
export async function ledgerStatsPg(
  ledger: PgLedger,
): Promise<LedgerStats & { schemaVersion: number; databaseBytes: number }> {
  return pgSnapshot(ledger, async (client) => {
    const one = async <T>(sql: string) => (await client.query(sql)).rows[0] as T;
    const tally = async (column: string) => {
      const out: Record<string, number> = {};
      for (const r of (
        await client.query(`SELECT ${column} AS k, count(*) AS n FROM ledger_entries GROUP BY ${column}`)
      ).rows as Array<{ k: string | null; n: number }>)
        out[r.k ?? 'none'] = r.n;
      return out;
    };
    const totals = await one<{ n: number; first: number | null; last: number | null; sessions: number }>(
      'SELECT count(*) AS n, min(timestamp) AS first, max(timestamp) AS last, count(DISTINCT session_id) AS sessions FROM ledger_entries',
    );
    const head = await one<{ seq: number; entryHash: string } | undefined>(
      'SELECT seq, entry_hash AS "entryHash" FROM ledger_entries ORDER BY seq DESC LIMIT 1',
    );
    const meta = await one<{ v: number; bytes: number }>(
      'SELECT (SELECT schema_version FROM chio_ledger_meta WHERE id = 1) AS v, pg_database_size(current_database()) AS bytes',
    );
    return {
      entries: totals.n,
      head: head ?? null,
      sessions: totals.sessions,
      firstTimestamp: totals.first,
      lastTimestamp: totals.last,
      byKind: await tally('receipt_kind'),
      byVerdict: await tally('verdict'),
      kernelKeys: await tally('kernel_key'),
      producers: await tally('producer'),
      schemaVersion: meta.v,
      databaseBytes: meta.bytes,
    };
  });
}
