/**
 * `chio sql "<query>"` on a PostgreSQL ledger (DESIGN §11): one statement in a REPEATABLE READ,
 * READ ONLY transaction. The query is user input, so three locks hold it:
 * - the extended query protocol takes exactly one statement ("…; COMMIT; DELETE …" is refused);
 * - the transaction is read-only, and a first `SELECT 1` fixes that mode before the user's
 *   statement runs (a `SET TRANSACTION READ WRITE` after a query is refused by PostgreSQL);
 * - docs/postgres.md tells operators to run auditors as a role with SELECT only.
 * Owns: running and printing one query on PostgreSQL. Reads through src/ledger/pg only.
 */
import type { QueryArrayConfig } from 'pg';
import { ChioError } from '../../src/errors.js';
import { openPgLedger, pgSnapshot } from '../../src/ledger/pg/index.js';
import { out, outJson, writeErr } from '../output.js';

/** SQLSTATE 25006 read_only_sql_transaction, 42501 insufficient_privilege: a write refused. */
const WRITE_REFUSED = new Set(['25006', '42501']);

const cell = (v: unknown): string =>
  v === null || v === undefined
    ? 'NULL'
    : v instanceof Uint8Array
      ? `\\x${Buffer.from(v).toString('hex')}`
      : typeof v === 'object'
        ? JSON.stringify(v)
        : String(v);

export async function sqlOnPostgres(url: string, query: string, json: boolean): Promise<void> {
  const ledger = await openPgLedger(url, { readonly: true, maxConnections: 1 });
  try {
    const result = await pgSnapshot(ledger, async (client) => {
      await client.query('SELECT 1');
      try {
        // queryMode 'extended' (pg ≥ 8.11; not in its type declarations): one Parse message, one statement.
        return await client.query({ text: query, rowMode: 'array', queryMode: 'extended' } as QueryArrayConfig);
      } catch (e) {
        const code = (e as { code?: string }).code ?? '';
        throw new ChioError(
          WRITE_REFUSED.has(code) ? 'CHIO-CLI-SQL-WRITE' : 'CHIO-CLI-SQL-ERROR',
          WRITE_REFUSED.has(code) ? `refused: ${(e as Error).message}; chio sql is read-only` : (e as Error).message,
          { cause: e },
        );
      }
    });
    if (result.fields.length === 0) {
      out('(statement returns no rows)');
      return;
    }
    const columns = result.fields.map((f) => f.name);
    if (!json) out(columns.join('\t'));
    for (const row of result.rows as unknown[][]) {
      if (json)
        outJson(Object.fromEntries(columns.map((c, i) => [c, row[i] instanceof Uint8Array ? cell(row[i]) : row[i]])));
      else out(row.map(cell).join('\t'));
    }
    if (!json) writeErr(`(${result.rows.length} row${result.rows.length === 1 ? '' : 's'})\n`);
  } finally {
    await ledger.close();
  }
}
