/**
 * Applies the drizzle-kit migrations in `migrations/` to a ledger file.
 * Owns: the schema version (PRAGMA user_version = number of migrations applied) and the file's
 * identity (PRAGMA application_id). Must not import kernel, edges or cli.
 *
 * drizzle-orm's own `migrate()` reads the applied set, then begins a DEFERRED transaction; two
 * processes opening a new ledger at once would both decide to run `CREATE TABLE`. So the files
 * drizzle-kit wrote are read with drizzle's `readMigrationFiles` and applied here inside one
 * `BEGIN IMMEDIATE` transaction that re-reads the version after taking the write lock.
 *
 * Most opens find the schema current. That is checked first on a read snapshot, without the
 * write lock, so an open never queues behind a running writer's append only to learn there is
 * nothing to do. (application_id and user_version are set together in the migrating commit and
 * never go back, so seeing both current means the migration has committed.)
 */
import { fileURLToPath } from 'node:url';
import type Database from 'better-sqlite3';
import { readMigrationFiles } from './drizzle.js';
import type { MigrationMeta } from 'drizzle-orm/migrator';
import { ChioError } from '../errors.js';
import { CHIO_APPLICATION_ID } from './application-id.js';
import { rebuildMerkleSubtrees } from './tree.js';

export { CHIO_APPLICATION_ID };

/**
 * From src/ledger/ and from dist/src/ledger/ alike, ../../migrations is the folder drizzle-kit
 * writes (the build copies it to dist/migrations).
 */
const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../migrations/', import.meta.url));

let cached: MigrationMeta[] | undefined;
function migrations(): MigrationMeta[] {
  cached ??= readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER });
  return cached;
}

/**
 * Data steps SQL cannot do, keyed by the schema version they complete, run right after that
 * migration's statements in the same transaction: schema 7 stores the Merkle subtrees of the
 * entries already in the ledger (SHA-256).
 */
const AFTER_MIGRATION: Record<number, (db: Database.Database) => void> = {
  7: (db) => void rebuildMerkleSubtrees(db),
};

/** The schema version this build writes: one per migration in the journal. */
export const LEDGER_SCHEMA_VERSION = migrations().length;

/** True when the file already carries this build's schema (one read snapshot, no write lock). */
function isCurrent(db: Database.Database): boolean {
  const row = db
    .prepare(
      'SELECT (SELECT application_id FROM pragma_application_id) AS appId, (SELECT user_version FROM pragma_user_version) AS version',
    )
    .get() as {
    appId: number;
    version: number;
  };
  return row.appId === CHIO_APPLICATION_ID && row.version === LEDGER_SCHEMA_VERSION;
}

export function applyMigrations(db: Database.Database, path: string): void {
  if (isCurrent(db)) return;
  const run = db.transaction(() => {
    const appId = db.pragma('application_id', { simple: true }) as number;
    const version = db.pragma('user_version', { simple: true }) as number;
    if (appId !== CHIO_APPLICATION_ID) {
      const tables = db.prepare("SELECT count(*) AS n FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%'").get() as {
        n: number;
      };
      if (appId !== 0 || version !== 0 || tables.n !== 0) {
        throw new ChioError('CHIO-LEDGER-FOREIGN-DATABASE', `${path} is an SQLite database but not a Chio ledger`);
      }
    }
    if (version > LEDGER_SCHEMA_VERSION) {
      throw new ChioError(
        'CHIO-LEDGER-SCHEMA-TOO-NEW',
        `${path} has ledger schema version ${version}; this chio reads up to version ${LEDGER_SCHEMA_VERSION}`,
      );
    }
    if (appId === CHIO_APPLICATION_ID && version === LEDGER_SCHEMA_VERSION) return;
    migrations()
      .slice(version)
      .forEach((migration, i) => {
        for (const statement of migration.sql) {
          if (statement.trim() !== '') db.exec(statement);
        }
        AFTER_MIGRATION[version + i + 1]?.(db);
      });
    db.pragma(`application_id = ${CHIO_APPLICATION_ID}`);
    db.pragma(`user_version = ${LEDGER_SCHEMA_VERSION}`);
  });
  run.immediate();
}
