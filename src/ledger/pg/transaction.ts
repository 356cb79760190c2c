/**
 * One PostgreSQL transaction on a pooled connection: BEGIN, the work, COMMIT (or ROLLBACK); any failure rolls
 * back and rethrows. A connection that cannot even roll back (it was lost) is discarded instead of
 * going back to the pool.
 * Owns: transaction boilerplate on PostgreSQL. Imports only the pg types.
 */
import type pg from 'pg';

/** `end`: COMMIT, or ROLLBACK for a transaction that must leave nothing behind whatever it ran. */
export async function inTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
  begin = 'BEGIN',
  end: 'COMMIT' | 'ROLLBACK' = 'COMMIT',
): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query(begin);
    const result = await work(client);
    await client.query(end);
    return result;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {
      broken = true;
    });
    throw e;
  } finally {
    client.release(broken ? true : undefined);
  }
}
