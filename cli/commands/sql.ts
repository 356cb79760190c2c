/**
 * `chio sql "<query>"`: ad-hoc SQL over the ledger and its views on a read-only connection.
 * Owns: refusing writes and printing rows. The query is user input: it runs only if SQLite
 * itself reports the statement read-only (better-sqlite3 `Statement.readonly`), on a connection
 * opened with SQLITE_OPEN_READONLY — two independent locks. On PostgreSQL: sql-pg.ts.
 */
import type { CommandModule } from 'yargs';
import { ChioError } from '../../src/errors.js';
import { openLedger } from '../../src/ledger/index.js';
import type { GlobalArgs } from '../options.js';
import { out, outJson, writeErr } from '../output.js';

interface SqlArgs extends GlobalArgs {
  query: string;
}

function cell(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (v instanceof Uint8Array) return `x'${Buffer.from(v).toString('hex')}'`;
  return String(v);
}

export const sqlCommand: CommandModule<GlobalArgs, SqlArgs> = {
  command: 'sql <query>',
  describe:
    'Run one read-only SQL query (tables ledger_entries, ledger_sessions; views receipts, receipt_evidence, session_summary)',
  builder: (y) => y.positional('query', { type: 'string', demandOption: true }),
  handler: async (args) => {
    if (/^postgres(ql)?:\/\//i.test(args['receipt-db'])) {
      // Loaded only for a PostgreSQL ledger: the pg driver stays out of an SQLite run.
      const { sqlOnPostgres } = await import('./sql-pg.js');
      await sqlOnPostgres(args['receipt-db'], args.query, args.json);
      return;
    }
    const ledger = openLedger(args['receipt-db'], { readonly: true });
    try {
      let stmt;
      try {
        stmt = ledger.db.prepare(args.query);
      } catch (e) {
        throw new ChioError('CHIO-CLI-SQL-ERROR', (e as Error).message, { cause: e });
      }
      // SQLite counts ATTACH/DETACH as read-only (they do not write this file), but they reach
      // other files; chio sql reads the ledger and nothing else.
      if (/^(?:\s|--[^\n]*\n|\/\*[\s\S]*?\*\/)*(?:attach|detach)\b/i.test(args.query)) {
        throw new ChioError(
          'CHIO-CLI-SQL-WRITE',
          'refused: ATTACH and DETACH are not allowed; chio sql reads only this ledger',
        );
      }
      if (!stmt.readonly) {
        throw new ChioError(
          'CHIO-CLI-SQL-WRITE',
          'refused: the statement would modify the database; chio sql is read-only',
        );
      }
      if (!stmt.reader) {
        out('(statement returns no rows)');
        return;
      }
      // Raw rows (arrays), so two result columns with the same name both survive; streamed, so a
      // large result never has to fit in memory.
      const columns = stmt.columns().map((c) => c.name);
      let count = 0;
      try {
        if (!args.json) out(columns.join('\t'));
        for (const row of stmt.raw(true).iterate() as IterableIterator<unknown[]>) {
          count += 1;
          if (args.json)
            outJson(
              Object.fromEntries(columns.map((c, i) => [c, row[i] instanceof Uint8Array ? cell(row[i]) : row[i]])),
            );
          else out(row.map(cell).join('\t'));
        }
      } catch (e) {
        throw new ChioError('CHIO-CLI-SQL-ERROR', (e as Error).message, { cause: e });
      }
      if (!args.json) writeErr(`(${count} row${count === 1 ? '' : 's'})\n`);
    } finally {
      ledger.close();
    }
  },
};
