/**
 * Reading either ledger in a test (an SQLite path or a postgres:// URL) with one plain SELECT that
 * both dialects run alike, independently of the kernel under test: better-sqlite3 read-only on a
 * file, a pg client on a server (BIGINT and count(*) read back as numbers).
 */
import Database from 'better-sqlite3';
import pg from 'pg';
import { isPostgresUrl } from '../../src/ledger/pg/index.js';

export async function ledgerRows<T = Record<string, unknown>>(location: string, sql: string): Promise<T[]> {
  if (!isPostgresUrl(location)) {
    const db = new Database(location, { readonly: true });
    try {
      return db.prepare(sql).all() as T[];
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({
    connectionString: location,
    types: {
      getTypeParser: (oid: number, format?: string) =>
        oid === 20 ? Number : pg.types.getTypeParser(oid, format as 'text'),
    } as never,
  });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

/** Runs statements on either ledger as its owner (a dishonest operator, or a failing disk played by a test). */
export async function ledgerExec(location: string, sql: string): Promise<void> {
  if (!isPostgresUrl(location)) {
    const db = new Database(location);
    try {
      db.exec(sql);
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: location });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
