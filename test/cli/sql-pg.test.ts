// `chio sql` on a PostgreSQL ledger through the real CLI: the auditor views answer as on SQLite
// for the same entries, and every way to write — a plain write, a data-modifying CTE, a second
// statement after a SELECT, flipping the transaction to read-write, creating a table —
// is refused with the ledger unchanged.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { appendReceiptSync, openLedger } from '../../src/ledger/index.js';
import { chio, errorCode } from '../helpers/cli.js';
import { admin, freshPgDatabase } from '../helpers/postgres.js';
import { mixedReceipt } from '../helpers/receipts.js';
import { tempDir } from '../helpers/tmp.js';

describe('chio sql on PostgreSQL', () => {
  const file = join(tempDir(), 'sql.sqlite');
  let url: string;
  let name: string;
  beforeAll(async () => {
    const ledger = openLedger(file);
    for (let i = 0; i < 9; i++) appendReceiptSync(ledger, { receipt: mixedReceipt(i), sessionId: `s-${i % 2}` });
    ledger.close();
    ({ url, name } = await freshPgDatabase());
    expect(chio(['ledger', 'copy', '--from', file, '--to', url]).status).toBe(0);
  });

  it('the receipts and session_summary views answer as on SQLite', () => {
    for (const query of [
      'SELECT seq, receipt_id, time_utc, verdict, reason, guard FROM receipts ORDER BY seq',
      'SELECT session_id, entries, allowed, denied, observations, first_seq, last_seq FROM session_summary ORDER BY session_id',
    ]) {
      const pg = chio(['sql', query, '--receipt-db', url]);
      const lite = chio(['sql', query, '--receipt-db', file]);
      expect(pg.status, pg.stderr).toBe(0);
      expect(pg.stdout).toBe(lite.stdout);
      expect(pg.stdout.trim().split('\n').length).toBeGreaterThan(2);
    }
  });

  it('refuses every write, and the ledger is unchanged', async () => {
    const before = (await admin('SELECT count(*)::int AS n, max(entry_hash) AS h FROM ledger_entries', [], name))
      .rows[0];
    const sessions = (await admin('SELECT count(*)::int AS n FROM ledger_sessions', [], name)).rows[0].n;
    const attempts: Array<[string, string]> = [
      ['DELETE FROM ledger_sessions', 'CHIO-CLI-SQL-WRITE'],
      [
        "INSERT INTO pending_calls (request_id, capability_id, grant_index, reserved_at, owner) VALUES ('x', 'c', 0, 1, 'o')",
        'CHIO-CLI-SQL-WRITE',
      ],
      ['WITH gone AS (DELETE FROM ledger_sessions RETURNING 1) SELECT count(*) FROM gone', 'CHIO-CLI-SQL-WRITE'],
      ['SELECT 1; DELETE FROM ledger_sessions', 'CHIO-CLI-SQL-ERROR'],
      ['SET TRANSACTION READ WRITE', 'CHIO-CLI-SQL-ERROR'],
      ['CREATE TABLE sneaky (i int)', 'CHIO-CLI-SQL-WRITE'],
    ];
    for (const [query, code] of attempts) {
      const r = chio(['sql', query, '--receipt-db', url]);
      expect(r.status, query).not.toBe(0);
      expect(errorCode(r.stderr), query).toBe(code);
    }
    expect(
      (await admin('SELECT count(*)::int AS n, max(entry_hash) AS h FROM ledger_entries', [], name)).rows[0],
    ).toEqual(before);
    expect((await admin('SELECT count(*)::int AS n FROM ledger_sessions', [], name)).rows[0].n).toBe(sessions);
    expect(
      (await admin("SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'sneaky'", [], name)).rows[0].n,
    ).toBe(0);
    expect((await admin('SELECT count(*)::int AS n FROM pending_calls', [], name)).rows[0].n).toBe(0);
  });
});
