// `chio ledger copy` between SQLite and PostgreSQL through the real CLI, and `chio ledger verify`
// on a PostgreSQL ledger: a kernel-written ledger (sessions, denials, a revocation, budgets)
// copied SQLite → PostgreSQL → SQLite is identical entry by entry and column by column, and its
// projections too; a copy continues a prefix and refuses anything else untouched; a tampered
// source is copied but the target's verification fails, and verify on PostgreSQL names the seq.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { chio, errorCode } from '../helpers/cli.js';
import { admin, freshPgDatabase } from '../helpers/postgres.js';
import { kernelLedger } from '../helpers/kernel-ledger.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir();
const COLUMNS =
  'seq, kind, receipt_id, session_id, session_prev_seq, prev_hash, entry_hash, body, timestamp, capability_id, tool_server, tool_name, verdict, receipt_kind, trust_level, kernel_key, tenant_id, producer';
const PROJECTIONS = [
  'SELECT session_id, first_seq, last_seq, entry_count, first_timestamp, last_timestamp, head_entry_hash FROM ledger_sessions ORDER BY session_id',
  'SELECT capability_id, kernel_key, seq, revoked_at FROM revoked_capabilities ORDER BY capability_id',
  'SELECT capability_id, grant_index, kernel_key, invocations FROM grant_usage ORDER BY capability_id, grant_index',
];

const sqliteRows = (path: string, sql: string) => {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare(sql).all();
  } finally {
    db.close();
  }
};
async function pgRows(url: string, sql: string) {
  const client = new pg.Client({
    connectionString: url,
    types: {
      getTypeParser: (oid: number, format?: string) =>
        oid === 20 ? Number : pg.types.getTypeParser(oid, format as 'text'),
    } as typeof pg.types,
  });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

describe('chio ledger copy', () => {
  const source = join(dir, 'source.sqlite');
  beforeAll(async () => {
    await kernelLedger(source, 30);
  });

  it('SQLite → PostgreSQL → SQLite: every entry and projection identical, each copy verified, verify on PostgreSQL OK', async () => {
    const { url } = await freshPgDatabase();
    const there = chio(['ledger', 'copy', '--from', source, '--to', url]);
    expect(there.status, there.stderr).toBe(0);
    expect(there.stdout).toMatch(
      /^copied 31 entries; the target:\nOK: 31 entries verified, 3 sessions, signatures checked/,
    );
    const back = join(dir, 'back.sqlite');
    const home = chio(['ledger', 'copy', '--from', url, '--to', back, '--json']);
    expect(home.status, home.stderr).toBe(0);
    expect(JSON.parse(home.stdout)).toMatchObject({ ok: true, entries: 31, copied: 31, kept: 0 });
    const all = `SELECT ${COLUMNS} FROM ledger_entries ORDER BY seq`;
    expect(await pgRows(url, all)).toEqual(sqliteRows(source, all));
    expect(sqliteRows(back, all)).toEqual(sqliteRows(source, all));
    for (const q of PROJECTIONS) {
      expect(sqliteRows(back, q), q).toEqual(sqliteRows(source, q));
      expect(await pgRows(url, q), q).toEqual(sqliteRows(source, q));
    }
    expect(sqliteRows(source, 'SELECT count(*) AS n FROM revoked_capabilities')).toEqual([{ n: 1 }]);
    const verify = chio(['ledger', 'verify', '--receipt-db', url]);
    expect(verify.status, verify.stderr).toBe(0);
    expect(verify.stdout).toContain('OK: 31 entries verified, 3 sessions, signatures checked');
    expect(chio(['ledger', 'verify', '--receipt-db', back]).status).toBe(0);
  });

  it('continues a target that holds a prefix of the source, and refuses one that does not (nothing written)', async () => {
    const grow = join(dir, 'grow.sqlite');
    await kernelLedger(grow, 10);
    const { url } = await freshPgDatabase();
    expect(chio(['ledger', 'copy', '--from', grow, '--to', url]).status).toBe(0);
    await kernelLedger(grow, 5, 1_795_000_000); // the same kernel key appends 6 more entries
    const more = chio(['ledger', 'copy', '--from', grow, '--to', url, '--json']);
    expect(more.status, more.stderr).toBe(0);
    expect(JSON.parse(more.stdout)).toMatchObject({ ok: true, kept: 11, copied: 6, entries: 17 });

    const before = await pgRows(url, 'SELECT entry_hash FROM ledger_entries ORDER BY seq');
    const refused = chio(['ledger', 'copy', '--from', source, '--to', url]);
    expect(refused.status).toBe(2);
    expect(errorCode(refused.stderr)).toBe('CHIO-LEDGER-COPY-TARGET');
    expect(await pgRows(url, 'SELECT entry_hash FROM ledger_entries ORDER BY seq')).toEqual(before);
    const same = chio(['ledger', 'copy', '--from', source, '--to', source]);
    expect(errorCode(same.stderr)).toBe('CHIO-LEDGER-COPY-TARGET');
  });

  it('a tampered source is copied as it is and the target fails verification (exit 1, the seq named); so does verify on PostgreSQL', async () => {
    const bad = join(dir, 'bad.sqlite');
    await kernelLedger(bad, 8);
    const db = new Database(bad);
    db.exec('DROP TRIGGER ledger_entries_no_update');
    db.prepare("UPDATE ledger_entries SET body = replace(body, 'hello_tool', 'hellp_tool') WHERE seq = 6").run();
    db.close();
    const { url, name } = await freshPgDatabase();
    const copy = chio(['ledger', 'copy', '--from', bad, '--to', url]);
    expect(copy.status).toBe(1);
    expect(copy.stdout).toContain('FAIL: seq 6: entry_hash:');

    const clean = await freshPgDatabase();
    expect(chio(['ledger', 'copy', '--from', source, '--to', clean.url]).status).toBe(0);
    await admin('ALTER TABLE ledger_entries DISABLE TRIGGER USER', [], clean.name);
    await admin('DELETE FROM ledger_entries WHERE seq = 12', [], clean.name);
    const verify = chio(['ledger', 'verify', '--receipt-db', clean.url, '--json']);
    expect(verify.status).toBe(1);
    expect(JSON.parse(verify.stdout)).toMatchObject({ ok: false, seq: 12, check: 'gap' });
    expect(name).not.toBe(clean.name);
  });

  it('a PostgreSQL URL that is malformed or unreachable is a clear error', () => {
    const bad = chio(['ledger', 'verify', '--receipt-db', 'postgres://[nope']);
    expect(bad.status).toBe(2);
    expect(errorCode(bad.stderr)).toBe('CHIO-LEDGER-URL');
    const down = chio(['ledger', 'verify', '--receipt-db', 'postgres://chio:secret@127.0.0.1:1/x']);
    expect(down.status).toBe(3);
    expect(errorCode(down.stderr)).toBe('CHIO-LEDGER-UNREACHABLE');
    expect(down.stderr).not.toContain('secret');
    // Every command says the server is unreachable, and none creates a file named after the URL.
    for (const args of [
      ['receipt', 'list'],
      ['ledger', 'stats'],
      ['ledger', 'rebuild-projections'],
      ['ledger', 'prove', '--consistency', '--old-size', '1'],
    ]) {
      const r = chio([...args, '--receipt-db', 'postgres://chio@127.0.0.1:1/x'], { cwd: dir });
      expect(r.status, args.join(' ')).toBe(3);
      expect(errorCode(r.stderr), args.join(' ')).toBe('CHIO-LEDGER-UNREACHABLE');
    }
    expect(existsSync(join(dir, 'postgres:'))).toBe(false);
  });
});
