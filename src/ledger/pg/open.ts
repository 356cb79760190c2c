/**
 * Opening a ledger on PostgreSQL (DESIGN §11): `postgres://user@host:port/db` URLs, a connection
 * pool, BIGINT read back as JS numbers, the schema migrated (or refused when foreign or newer).
 * Owns: the connection settings of a PostgreSQL ledger. Must not import kernel, edges or cli.
 *
 * The URL is user input (a flag, a config file): it is parsed before use and never printed with
 * its password.
 */
import type pg from 'pg';
import { z } from 'zod';
import { ChioError } from '../../errors.js';
import { applyPgMigrations } from './migrate.js';

export interface PgLedger {
  readonly kind: 'postgres';
  /** The URL without its password, for messages. */
  readonly path: string;
  readonly readonly: boolean;
  readonly pool: pg.Pool;
  close(): Promise<void>;
}

export interface OpenPgLedgerOptions {
  /** Read-only: never creates or migrates; queries run in READ ONLY transactions. Default false. */
  readonly?: boolean;
  /** Connections in the pool (default 4). */
  maxConnections?: number;
}

/** Is this --receipt-db value a PostgreSQL URL (rather than an SQLite file path)? */
export const isPostgresUrl = (value: string): boolean => /^postgres(ql)?:\/\//i.test(value);

const UrlSchema = z
  .string()
  .max(2048)
  .refine(isPostgresUrl, 'a postgres:// or postgresql:// URL')
  .transform((text, ctx) => {
    try {
      return new URL(text);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'not a valid URL' });
      return z.NEVER;
    }
  });

/** The URL for messages: the password replaced. */
export function redactUrl(url: URL): string {
  const copy = new URL(url.href);
  if (copy.password !== '') copy.password = '***';
  // libpq-style parameters the pg driver also reads a secret from.
  for (const name of ['password', 'sslpassword']) if (copy.searchParams.has(name)) copy.searchParams.set(name, '***');
  return copy.href;
}

/** A --receipt-db value as it may be printed: a PostgreSQL URL without its password, a path as given. */
export function shownLocation(value: string): string {
  if (!isPostgresUrl(value)) return value;
  try {
    return redactUrl(new URL(value));
  } catch {
    return 'postgres://(an unparsable URL)';
  }
}

/**
 * The pg driver, loaded by the first PostgreSQL open: every command that takes a --receipt-db
 * imports this module, and most of them open an SQLite file.
 */
let driver: typeof pg | undefined;
async function loadDriver(): Promise<typeof pg> {
  driver ??= (await import('pg')).default;
  return driver;
}

/** OID 20 is int8 (BIGINT): seq and Unix seconds; DESIGN §4 keeps them within 2^53. */
const INT8_OID = 20;
const types = {
  getTypeParser: ((oid: number, format?: string) => {
    if (oid === INT8_OID) {
      return (text: string) => {
        const n = Number(text);
        if (!Number.isSafeInteger(n))
          throw new ChioError('CHIO-LEDGER-CORRUPT', `a BIGINT value ${text} is beyond 2^53`);
        return n;
      };
    }
    return driver!.types.getTypeParser(oid, format as 'text');
  }) as typeof pg.types.getTypeParser,
};

/** Connects, checks the database is a Chio ledger (or empty), migrates unless read-only. */
export async function openPgLedger(url: string, options: OpenPgLedgerOptions = {}): Promise<PgLedger> {
  const parsed = UrlSchema.safeParse(url);
  if (!parsed.success) throw new ChioError('CHIO-LEDGER-URL', `--receipt-db: ${parsed.error.issues[0]!.message}`);
  const shown = redactUrl(parsed.data);
  const readonly = options.readonly ?? false;
  const { Pool } = await loadDriver();
  const pool = new Pool({
    connectionString: parsed.data.href,
    max: options.maxConnections ?? 4,
    types,
    connectionTimeoutMillis: 10_000,
  });
  // An idle client's connection can drop (a server restart): the pool reports it here; the next query reconnects.
  pool.on('error', () => {});
  // A checked-out client whose connection drops emits 'error' too: its query rejects (and the
  // append reports it), so the event must not also crash the process as an unhandled one.
  pool.on('connect', (client) => client.on('error', () => {}));
  try {
    await applyPgMigrations(pool, shown, { readonly });
  } catch (e) {
    await pool.end().catch(() => {});
    if (e instanceof ChioError) throw e;
    throw new ChioError('CHIO-LEDGER-UNREACHABLE', `cannot open the ledger at ${shown}: ${(e as Error).message}`, {
      cause: e,
    });
  }
  let closed = false;
  return {
    kind: 'postgres',
    path: shown,
    readonly,
    pool,
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}
