/**
 * PostgreSQL for tests: a fresh database per call on the run's server (test/setup/postgres.ts),
 * so tests never see each other's ledgers. Admin statements (CREATE DATABASE, disabling triggers
 * to play a dishonest operator) go through `admin`.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

export const PG_ADMIN_URL = inject('pgAdminUrl');

/** Runs one statement as the server's superuser on `database` (default: the admin URL's). */
export async function admin(sql: string, params: unknown[] = [], database?: string): Promise<pg.QueryResult> {
  const url = new URL(PG_ADMIN_URL);
  if (database !== undefined) url.pathname = `/${database}`;
  const client = new pg.Client({ connectionString: url.href });
  await client.connect();
  try {
    return await client.query(sql, params);
  } finally {
    await client.end();
  }
}

/** A new, empty database; its URL and name. */
export async function freshPgDatabase(): Promise<{ url: string; name: string }> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return { url: url.href, name };
}
