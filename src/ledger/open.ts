/**
 * Opening a ledger file: inspect before touching, refuse what is not ours, set and assert the
 * pragmas of DESIGN §6, migrate.
 * Owns: the SQLite connection settings and the identity of a Chio ledger file
 * (application_id + user_version in the SQLite header). Must not import kernel, edges or cli.
 *
 * The path and the file are user input: a text file, somebody else's database, or a ledger from a
 * newer Chio must be refused with a clear error and left byte-for-byte unchanged. So the file is
 * inspected first (header bytes, then a read-only connection) and only a file that is ours, or
 * empty, is ever opened for writing.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { ChioError } from '../errors.js';
import { applyMigrations, CHIO_APPLICATION_ID, LEDGER_SCHEMA_VERSION } from './migrate.js';
import * as schema from './schema.js';

/**
 * FULL (default): every commit is fsynced before it returns (DESIGN §6). NORMAL: for benchmarks of
 * the difference. OFF: only for connections that never append receipts — the kernel's reservation
 * connection, whose rows are working state; its WAL frames reach the disk with the next FULL commit.
 */
export type SynchronousMode = 'FULL' | 'NORMAL' | 'OFF';

export interface OpenLedgerOptions {
  /** Read-only connection; never creates or migrates. Default false. */
  readonly?: boolean;
  /** Create the file when it does not exist (writers only). Default true for writers. */
  create?: boolean;
  synchronous?: SynchronousMode;
  /** How long to wait for another writer's lock before failing (ms). */
  busyTimeoutMs?: number;
}

export interface Ledger {
  readonly path: string;
  readonly readonly: boolean;
  readonly db: Database.Database;
  readonly orm: BetterSQLite3Database<typeof schema>;
  close(): void;
}

const SQLITE_MAGIC = 'SQLite format 3\u0000';
const DEFAULT_BUSY_TIMEOUT_MS = 10_000;

type FileState = { kind: 'absent' } | { kind: 'empty' } | { kind: 'ledger'; version: number } | { kind: 'fresh' };

function readHeader(path: string): Buffer {
  const fd = openSync(path, 'r');
  try {
    const header = Buffer.alloc(100);
    const n = readSync(fd, header, 0, 100, 0);
    return header.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

/** Looks at the file without changing it. */
function inspect(path: string): FileState {
  let size: number;
  try {
    const st = statSync(path);
    if (!st.isFile()) throw new ChioError('CHIO-LEDGER-NOT-SQLITE', `${path} is not a regular file`);
    size = st.size;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'absent' };
    if (e instanceof ChioError) throw e;
    throw new ChioError('CHIO-LEDGER-NOT-FOUND', `cannot read ${path}: ${(e as Error).message}`, { cause: e });
  }
  if (size === 0) return { kind: 'empty' };
  const header = readHeader(path);
  if (header.length < 100 || header.subarray(0, 16).toString('latin1') !== SQLITE_MAGIC) {
    throw new ChioError('CHIO-LEDGER-NOT-SQLITE', `${path} is not an SQLite database (no SQLite header)`);
  }
  let probe: Database.Database | undefined;
  try {
    probe = new Database(path, { readonly: true, fileMustExist: true });
    const appId = probe.pragma('application_id', { simple: true }) as number;
    const version = probe.pragma('user_version', { simple: true }) as number;
    const tables = probe
      .prepare("SELECT count(*) AS n FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
      .get() as { n: number };
    if (appId === CHIO_APPLICATION_ID) {
      if (version > LEDGER_SCHEMA_VERSION) {
        throw new ChioError(
          'CHIO-LEDGER-SCHEMA-TOO-NEW',
          `${path} has ledger schema version ${version}; this chio reads up to version ${LEDGER_SCHEMA_VERSION}`,
          { details: { version, supported: LEDGER_SCHEMA_VERSION } },
        );
      }
      return { kind: 'ledger', version };
    }
    if (appId === 0 && version === 0 && tables.n === 0) return { kind: 'fresh' };
    throw new ChioError(
      'CHIO-LEDGER-FOREIGN-DATABASE',
      `${path} is an SQLite database but not a Chio ledger (application_id ${appId}, ${tables.n} tables)`,
    );
  } catch (e) {
    if (e instanceof ChioError) throw e;
    const code = (e as { code?: string }).code ?? '';
    // The header said SQLite, so what follows is damage rather than a different kind of file.
    throw new ChioError('CHIO-LEDGER-CORRUPT', `${path} has an SQLite header but cannot be read (${code || 'error'}: ${(e as Error).message})`, { cause: e });
  } finally {
    probe?.close();
  }
}

function assertPragma(db: Database.Database, name: string, expected: string | number): void {
  const actual = db.pragma(name, { simple: true });
  if (String(actual).toLowerCase() !== String(expected).toLowerCase()) {
    throw new ChioError('CHIO-LEDGER-PRAGMA', `PRAGMA ${name} is ${String(actual)}, required ${String(expected)}`);
  }
}

const SYNCHRONOUS_LEVEL: Record<SynchronousMode, number> = { OFF: 0, NORMAL: 1, FULL: 2 };

/** Opens (and for writers creates and migrates) the ledger at `path`. */
export function openLedger(path: string, options: OpenLedgerOptions = {}): Ledger {
  const readonly = options.readonly ?? false;
  const create = options.create ?? !readonly;
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  const state = inspect(path);

  if (state.kind === 'absent' && (readonly || !create)) {
    throw new ChioError('CHIO-LEDGER-NOT-FOUND', `no receipt database at ${path}`);
  }
  if (readonly && state.kind !== 'ledger') {
    throw new ChioError('CHIO-LEDGER-FOREIGN-DATABASE', `${path} is an empty database, not a Chio ledger (nothing has been appended yet)`);
  }

  let db: Database.Database;
  try {
    db = new Database(path, { readonly, fileMustExist: readonly, timeout: busyTimeoutMs });
  } catch (e) {
    throw new ChioError('CHIO-LEDGER-NOT-FOUND', `cannot open ${path}: ${(e as Error).message}`, { cause: e });
  }
  try {
    if (!readonly) {
      // journal_mode=WAL is persistent in the file; setting it takes the write lock, so it waits
      // behind other writers for up to busy_timeout.
      db.pragma('journal_mode = WAL');
      db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
    }
    db.pragma('foreign_keys = ON');
    assertPragma(db, 'journal_mode', 'wal');
    if (!readonly) assertPragma(db, 'synchronous', SYNCHRONOUS_LEVEL[options.synchronous ?? 'FULL']);
    assertPragma(db, 'busy_timeout', busyTimeoutMs);
    assertPragma(db, 'foreign_keys', 1);
    if (!readonly) applyMigrations(db, path);
    const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name IN ('ledger_entries', 'ledger_sessions')").all();
    if (tables.length !== 2) throw new ChioError('CHIO-LEDGER-CORRUPT', `${path} is marked as a Chio ledger but its tables are missing`);
  } catch (e) {
    db.close();
    throw e;
  }
  return {
    path,
    readonly,
    db,
    orm: drizzle({ client: db, schema }),
    close: () => db.close(),
  };
}
