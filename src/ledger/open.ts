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
 *
 * Any number of processes may open one file at once (an editor starting two servers, producers
 * beside `chio ledger verify`), so:
 * - A new ledger is built under a temporary name beside `path` and hard-linked into place, which
 *   fails if the name exists: nobody ever sees a half-made ledger, and of several processes
 *   creating the same file at once one wins and the others open the winner's file.
 * - The whole open (inspection, WAL switch, migrations, pragma checks) is retried when SQLite
 *   answers SQLITE_BUSY or SQLITE_LOCKED, with a short jittered back-off, until the busy timeout
 *   is spent; then CHIO-LEDGER-BUSY. Switching a file to WAL does not always call SQLite's busy
 *   handler (it must not wait while holding a lock another waiter needs), hence the loop.
 * - The probe reads application_id, user_version and the table count in one read transaction,
 *   so it never mixes a state before another process's migration commit with one after it.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, openSync, readSync, statSync, unlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { drizzle } from './drizzle.js';
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { ChioError } from '../errors.js';
import { applyMigrations, CHIO_APPLICATION_ID, LEDGER_SCHEMA_VERSION } from './migrate.js';
import * as schema from './schema.js';

/**
 * FULL (default): every commit is fsynced before it returns (DESIGN §6). NORMAL and OFF: for
 * benchmarks of the difference only. No product connection runs OFF: its automatic checkpoints
 * would copy pages into the database without an fsync (docs/decisions.md: reservations are durable).
 */
export type SynchronousMode = 'FULL' | 'NORMAL' | 'OFF';

export interface OpenLedgerOptions {
  /** Read-only connection; never creates or migrates. Default false. */
  readonly?: boolean;
  /**
   * Create the ledger when the file does not exist, or initialise a zero-byte or table-less SQLite
   * file (writers only). Default true for writers. With false the file must already be a Chio
   * ledger (an older schema is migrated).
   */
  create?: boolean;
  synchronous?: SynchronousMode;
  /** How long to wait for another writer's lock before failing (ms), when opening and after. */
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

/** SQLITE_BUSY, SQLITE_LOCKED and their extended codes, anywhere in the cause chain. */
function isBusy(e: unknown): boolean {
  let x: unknown = e;
  for (let depth = 0; depth < 5 && typeof x === 'object' && x !== null; depth += 1) {
    const code = (x as { code?: unknown }).code;
    if (typeof code === 'string' && /^SQLITE_(BUSY|LOCKED)/.test(code)) return true;
    x = (x as { cause?: unknown }).cause;
  }
  return false;
}

function sleepMs(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Full jitter over an exponential ceiling (2, 4, 8 … 100 ms), so racing openers spread out. */
function backoffMs(attempt: number): number {
  return 1 + Math.floor(Math.random() * Math.min(100, 2 ** (attempt + 1)));
}

/** Looks at the file without changing it. `waitMs`: how long the probe may wait for a lock. */
function inspect(path: string, waitMs: number): FileState {
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
    probe = new Database(path, { readonly: true, fileMustExist: true, timeout: waitMs });
    // One statement, one snapshot: separate reads could see application_id from before another
    // process's migration committed and its tables from after.
    const { appId, version, tables } = probe
      .prepare(
        `SELECT (SELECT application_id FROM pragma_application_id) AS appId, (SELECT user_version FROM pragma_user_version) AS version,
                (SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%') AS tables`,
      )
      .get() as { appId: number; version: number; tables: number };
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
    if (appId === 0 && version === 0 && tables === 0) return { kind: 'fresh' };
    throw new ChioError(
      'CHIO-LEDGER-FOREIGN-DATABASE',
      `${path} is an SQLite database but not a Chio ledger (application_id ${appId}, ${tables} tables)`,
    );
  } catch (e) {
    if (e instanceof ChioError) throw e;
    if (isBusy(e)) throw e; // another connection holds a lock: the caller retries, this is not damage
    const code = (e as { code?: string }).code ?? '';
    // The header said SQLite, so what follows is damage rather than a different kind of file.
    throw new ChioError(
      'CHIO-LEDGER-CORRUPT',
      `${path} has an SQLite header but cannot be read (${code || 'error'}: ${(e as Error).message})`,
      { cause: e },
    );
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

/** Hard-link errors that mean "this file system has no hard links": create in place instead. */
const NO_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV', 'EMLINK']);

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // not there
  }
}

function fsyncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Builds a complete ledger under a temporary name beside `path` (nobody else knows that name, so
 * nothing waits) and links it to `path`. Returns true when `path` now exists (ours, or another
 * process's that won the race), false when the file system has no hard links.
 */
function createAtomically(path: string): boolean {
  const tmp = join(dirname(path), `.${basename(path)}.creating-${process.pid}-${randomBytes(6).toString('hex')}`);
  let db: Database.Database | undefined;
  try {
    try {
      db = new Database(tmp);
    } catch (e) {
      throw new ChioError('CHIO-LEDGER-NOT-FOUND', `cannot create ${path}: ${(e as Error).message}`, { cause: e });
    }
    db.pragma('journal_mode = WAL'); // recorded in the file header: the ledger is born in WAL mode
    applyMigrations(db, path);
    db.close(); // the only connection: its close checkpoints the WAL into the file and removes it
    db = undefined;
    fsyncPath(tmp);
    try {
      linkSync(tmp, path);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? '';
      if (code === 'EEXIST') return true;
      if (NO_LINKS.has(code)) return false;
      throw new ChioError('CHIO-LEDGER-NOT-FOUND', `cannot create ${path}: ${(e as Error).message}`, { cause: e });
    }
    try {
      fsyncPath(dirname(path)); // the new name survives a crash before the first append's fsync
    } catch {
      // some file systems cannot fsync a directory; the name is still there
    }
    return true;
  } finally {
    db?.close();
    for (const suffix of ['', '-wal', '-shm', '-journal']) removeQuietly(`${tmp}${suffix}`);
  }
}

/** One attempt at opening; a lock held elsewhere surfaces as SQLite's busy error, retried by `openLedger`. */
function openOnce(path: string, options: OpenLedgerOptions, busyTimeoutMs: number, waitMs: number): Ledger {
  const readonly = options.readonly ?? false;
  const create = options.create ?? !readonly;
  let state = inspect(path, waitMs);

  if (state.kind === 'absent' && (readonly || !create)) {
    throw new ChioError('CHIO-LEDGER-NOT-FOUND', `no receipt database at ${path}`);
  }
  if (state.kind === 'absent' && createAtomically(path)) state = inspect(path, waitMs);
  if (readonly && state.kind !== 'ledger') {
    throw new ChioError(
      'CHIO-LEDGER-FOREIGN-DATABASE',
      `${path} is an empty database, not a Chio ledger (nothing has been appended yet)`,
    );
  }
  if (!create && state.kind !== 'ledger') {
    throw new ChioError(
      'CHIO-LEDGER-FOREIGN-DATABASE',
      `${path} is an empty ${state.kind === 'empty' ? 'file' : 'SQLite database'}, not a Chio ledger; it was left unchanged`,
    );
  }

  let db: Database.Database;
  try {
    // A file that must already exist is never created here, even if it vanished since inspect().
    db = new Database(path, { readonly, fileMustExist: readonly || state.kind !== 'absent', timeout: waitMs });
  } catch (e) {
    if (isBusy(e)) throw e;
    throw new ChioError('CHIO-LEDGER-NOT-FOUND', `cannot open ${path}: ${(e as Error).message}`, { cause: e });
  }
  try {
    if (!readonly) {
      // journal_mode=WAL is persistent in the file; on a file not yet in WAL mode the switch needs
      // an exclusive lock and may answer SQLITE_BUSY at once (openLedger retries).
      db.pragma('journal_mode = WAL');
      db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
    }
    db.pragma('foreign_keys = ON');
    assertPragma(db, 'journal_mode', 'wal');
    if (!readonly) assertPragma(db, 'synchronous', SYNCHRONOUS_LEVEL[options.synchronous ?? 'FULL']);
    assertPragma(db, 'foreign_keys', 1);
    if (!readonly) applyMigrations(db, path);
    const tables = db
      .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name IN ('ledger_entries', 'ledger_sessions')")
      .all();
    if (tables.length !== 2)
      throw new ChioError('CHIO-LEDGER-CORRUPT', `${path} is marked as a Chio ledger but its tables are missing`);
    // The open waited at most what was left of the timeout; from here on, the full timeout.
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    assertPragma(db, 'busy_timeout', busyTimeoutMs);
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

/**
 * Opens (and for writers creates and migrates) the ledger at `path`. Safe under any number of
 * concurrent opens and running writers: waits up to the busy timeout in all, then CHIO-LEDGER-BUSY.
 */
export function openLedger(path: string, options: OpenLedgerOptions = {}): Ledger {
  // A PostgreSQL URL is never taken for a file name (nothing is created under "postgres:").
  if (/^postgres(ql)?:\/\//i.test(path)) {
    throw new ChioError(
      'CHIO-LEDGER-POSTGRES-UNSUPPORTED',
      'openLedger of the package root opens SQLite ledgers, synchronously; open a postgres:// ledger with openLedger from chio/postgres (either store), and a kernel on it with Kernel.connect',
    );
  }
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  const deadline = Date.now() + busyTimeoutMs;
  for (let attempt = 0; ; attempt += 1) {
    try {
      return openOnce(path, options, busyTimeoutMs, Math.max(1, deadline - Date.now()));
    } catch (e) {
      if (!isBusy(e)) throw e;
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new ChioError(
          'CHIO-LEDGER-BUSY',
          `${path} stayed locked by other connections for ${busyTimeoutMs} ms while it was being opened (${attempt + 1} attempts; last: ${(e as Error).message})`,
          {
            cause: e,
            details: { attempts: attempt + 1, busyTimeoutMs },
          },
        );
      }
      sleepMs(Math.min(left, backoffMs(attempt)));
    }
  }
}
