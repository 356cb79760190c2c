/**
 * Applies the drizzle-kit migrations in `migrations-pg/` to a PostgreSQL ledger.
 * Owns: the schema version of a PostgreSQL ledger (the chio_ledger_meta row). Must not import
 * kernel, edges or cli.
 *
 * Several producers may open a new ledger at once: the migration runs in one transaction under a
 * transaction-scoped advisory lock, and re-reads the version after taking it. A database holding
 * other tables and no chio_ledger_meta is not ours and is refused untouched; a newer schema is
 * refused (CHIO-LEDGER-SCHEMA-TOO-NEW), as for SQLite.
 */
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { readMigrationFiles } from '../drizzle.js';
import type { MigrationMeta } from 'drizzle-orm/migrator';
import { ChioError } from '../../errors.js';
import { inTransaction } from './transaction.js';
import { rebuildSubtreesPg } from './tree.js';

/** The application name stored in chio_ledger_meta. */
export const PG_LEDGER_APPLICATION = 'chio-ledger';
/** Advisory lock keys (pg_advisory_xact_lock(bigint)): 'Chio' in ASCII, then a role. */
export const MIGRATE_LOCK = 0x4368696f_01n;

/** From src/ledger/pg/ and dist/src/ledger/pg/ alike, ../../../migrations-pg (the build copies it to dist/). */
const FOLDER = fileURLToPath(new URL('../../../migrations-pg/', import.meta.url));
let cached: MigrationMeta[] | undefined;
const migrations = () => (cached ??= readMigrationFiles({ migrationsFolder: FOLDER }));

/** The schema version this build writes on PostgreSQL: one per migration in the journal. */
export const PG_LEDGER_SCHEMA_VERSION = migrations().length;

interface State {
  meta: boolean;
  version: number;
  application: string | null;
  tables: number;
}

async function state(client: pg.PoolClient | pg.Pool): Promise<State> {
  const meta = (
    await client.query(`SELECT to_regclass('public.chio_ledger_meta') IS NOT NULL AS meta,
      (SELECT count(*) FROM pg_tables WHERE schemaname = 'public')::int AS tables`)
  ).rows[0] as { meta: boolean; tables: number };
  if (!meta.meta) return { meta: false, version: 0, application: null, tables: meta.tables };
  const row = (await client.query('SELECT application, schema_version FROM chio_ledger_meta WHERE id = 1')).rows[0] as
    | { application: string; schema_version: number }
    | undefined;
  return { meta: true, version: row?.schema_version ?? 0, application: row?.application ?? null, tables: meta.tables };
}

function refuseForeign(s: State, shown: string): void {
  if ((!s.meta && s.tables > 0) || (s.meta && s.application !== null && s.application !== PG_LEDGER_APPLICATION)) {
    throw new ChioError('CHIO-LEDGER-FOREIGN-DATABASE', `${shown} holds tables but is not a Chio ledger`);
  }
  if (s.version > PG_LEDGER_SCHEMA_VERSION) {
    throw new ChioError(
      'CHIO-LEDGER-SCHEMA-TOO-NEW',
      `${shown} has ledger schema version ${s.version}; this chio reads up to version ${PG_LEDGER_SCHEMA_VERSION}`,
    );
  }
}

export async function applyPgMigrations(pool: pg.Pool, shown: string, options: { readonly: boolean }): Promise<void> {
  const first = await state(pool);
  refuseForeign(first, shown);
  if (first.version === PG_LEDGER_SCHEMA_VERSION) return;
  if (options.readonly) {
    throw new ChioError(
      first.meta ? 'CHIO-LEDGER-SCHEMA-TOO-NEW' : 'CHIO-LEDGER-NOT-FOUND',
      first.meta
        ? `${shown} has ledger schema version ${first.version}, older than this chio's ${PG_LEDGER_SCHEMA_VERSION}: open it once for writing to migrate`
        : `${shown} holds no Chio ledger yet`,
    );
  }
  await inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATE_LOCK.toString()]);
    const s = await state(client);
    refuseForeign(s, shown);
    for (const migration of migrations().slice(s.version)) {
      for (const statement of migration.sql) if (statement.trim() !== '') await client.query(statement);
    }
    // Schema 4 keeps merkle_subtrees on every append: derive them for the entries appended before,
    // holding the append lock so no producer appends in between.
    if (s.version >= 1 && s.version < 4) {
      await client.query('SELECT id FROM chio_append_lock WHERE id = 1 FOR UPDATE');
      await rebuildSubtreesPg(client);
    }
    await client.query(
      `INSERT INTO chio_ledger_meta (id, application, schema_version) VALUES (1, $1, $2)
       ON CONFLICT (id) DO UPDATE SET schema_version = excluded.schema_version`,
      [PG_LEDGER_APPLICATION, PG_LEDGER_SCHEMA_VERSION],
    );
  });
}
