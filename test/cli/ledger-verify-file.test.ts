// chio ledger verify checks the file (SQLite quick_check) and the reservations without a receipt,
// and chio ledger rebuild-projections touches nothing that is not already a Chio ledger.
import { createHash } from 'node:crypto';
import { copyFileSync, closeSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { appendReceiptSync, openLedger } from '../../src/ledger/index.js';
import { chio, errorCode } from '../helpers/cli.js';
import { mixedReceipt } from '../helpers/receipts.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir();
const pristine = join(dir, 'pristine.sqlite');
const digest = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');
let copies = 0;
const copy = () => {
  const p = join(dir, `copy-${++copies}.sqlite`);
  copyFileSync(pristine, p);
  return p;
};
const verify = (path: string, ...extra: string[]) => chio(['ledger', 'verify', '--receipt-db', path, ...extra]);
const lines = (stdout: string) => stdout.trimEnd().split('\n');

beforeAll(() => {
  const ledger = openLedger(pristine);
  for (let i = 0; i < 30; i++)
    appendReceiptSync(ledger, { receipt: mixedReceipt(i), sessionId: i % 3 === 0 ? null : `s${i % 2}` });
  ledger.close(); // the last connection checkpoints the WAL: every page is in the file itself
});

describe('a damaged file', () => {
  it('the intact ledger verifies OK and says quick_check passed', () => {
    const r = verify(pristine);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^OK: 30 entries verified/);
    expect(r.stdout).toMatch(/\n {2}sqlite +quick_check ok\n/);
  });

  it('an index page overwritten inside the file → exit 1, one FAIL line naming the damage as SQLite reports it (and --json)', () => {
    const path = copy();
    const db = new Database(path, { readonly: true });
    const index = db
      .prepare(
        "SELECT name, rootpage FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'ledger_entries' ORDER BY rootpage LIMIT 1",
      )
      .get() as { name: string; rootpage: number };
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    db.close();
    // The page's cell pointer array, right after its 8-byte header: every pointer now points outside the page.
    const fd = openSync(path, 'r+');
    writeSync(fd, Buffer.alloc(32, 0xff), 0, 32, (index.rootpage - 1) * pageSize + 8);
    closeSync(fd);
    // The entries themselves are untouched: only SQLite's own check can see this.
    const r = verify(path);
    expect(r.status, r.stdout + r.stderr).toBe(1);
    expect(lines(r.stdout)).toHaveLength(1);
    expect(r.stdout).toMatch(
      new RegExp(
        `^FAIL: ledger: sqlite_integrity: SQLite reports the file damaged \\(PRAGMA quick_check\\): .*page ${index.rootpage}\\b`,
      ),
    );
    const json = verify(path, '--json');
    expect(json.status).toBe(1);
    const out = JSON.parse(json.stdout);
    expect(out).toMatchObject({ ok: false, seq: null, check: 'sqlite_integrity', sqlite_integrity: { ok: false } });
    expect(out.sqlite_integrity.problems.join('\n')).toMatch(new RegExp(`page ${index.rootpage}\\b`));
    expect(out.message).toContain(out.sqlite_integrity.problems[0]);
  });
});

describe('reservations without a receipt', () => {
  const now = () => Math.floor(Date.now() / 1000);
  function withPending(rows: Array<[string, string, number, unknown, string]>): string {
    const path = copy();
    const db = new Database(path);
    const insert = db.prepare(
      'INSERT INTO pending_calls (request_id, capability_id, grant_index, reserved_at, owner) VALUES (?, ?, ?, ?, ?)',
    );
    for (const row of rows) insert.run(...row);
    db.close();
    return path;
  }

  it('calls reserved long ago and never receipted fail verification (exit 1), listed with request, capability, owner, ISO time and age', () => {
    const t = now();
    const path = withPending([
      ['req-crashed', 'cap-0190a1b2-aaaa', 0, t - 3 * 3600, 'host-a:4242'],
      ['req-disk-full', 'cap-0190a1b2-bbbb', 2, t - 2 * 86_400, 'host-b:77'],
      ['req-running', 'cap-0190a1b2-cccc', 0, t - 30, 'host-a:4243'],
    ]);
    const r = verify(path);
    expect(r.status, r.stdout + r.stderr).toBe(1);
    const out = lines(r.stdout);
    expect(out[0]).toMatch(/^OK: 30 entries verified/); // the chain itself is fine
    const fail = out.findIndex((l) => l.startsWith('FAIL: '));
    expect(out[fail]).toBe(
      'FAIL: 2 dispatched tool calls have no receipt (reserved more than 900 s ago and still in pending_calls)',
    );
    const iso = (s: number) => new Date(s * 1000).toISOString().replace('.000Z', 'Z');
    expect(out[fail + 1]).toBe(
      `  request "req-disk-full"  capability "cap-0190a1b2-bbbb"  owner "host-b:77"  reserved ${iso(t - 2 * 86_400)} (${t - 2 * 86_400}), 2d 00h ago`,
    );
    expect(out[fail + 2]).toContain(
      `request "req-crashed"  capability "cap-0190a1b2-aaaa"  owner "host-a:4242"  reserved ${iso(t - 3 * 3600)}`,
    );
    // The young one is in flight: reported, not a failure.
    const flight = out.findIndex((l) => l.startsWith('in flight: '));
    expect(flight).toBeGreaterThan(0);
    expect(out[flight]).toBe('in flight: 1 call reserved in the last 900 s without a receipt yet (not a failure)');
    expect(out[flight + 1]).toContain('request "req-running"');
    expect(out.filter((l) => l.includes('req-running'))).toHaveLength(1);

    const json = verify(path, '--json');
    expect(json.status).toBe(1);
    const j = JSON.parse(json.stdout);
    expect(j).toMatchObject({
      ok: false,
      check: 'pending_calls',
      entries: 30,
      sqlite_integrity: { ok: true },
      pending_calls: { max_age_seconds: 900 },
    });
    expect(j.pending_calls.without_receipt.map((c: { request_id: string }) => c.request_id)).toEqual([
      'req-disk-full',
      'req-crashed',
    ]);
    expect(j.pending_calls.without_receipt[1]).toMatchObject({
      capability_id: 'cap-0190a1b2-aaaa',
      grant_index: 0,
      owner: 'host-a:4242',
      reserved_at: t - 3 * 3600,
      reserved_at_iso: iso(t - 3 * 3600),
    });
    expect(j.pending_calls.without_receipt[1].age_seconds).toBeGreaterThanOrEqual(3 * 3600);
    expect(j.pending_calls.in_flight.map((c: { request_id: string }) => c.request_id)).toEqual(['req-running']);
  });

  it('only young reservations: exit 0, reported as in flight; --pending-max-age decides what is old', () => {
    const path = withPending([['req-now', 'cap-x', 0, now() - 60, 'host:1']]);
    const r = verify(path);
    expect(r.status, r.stdout).toBe(0);
    expect(r.stdout).toMatch(/\nin flight: 1 call reserved in the last 900 s/);
    expect(r.stdout).not.toMatch(/^FAIL/m);
    const strict = verify(path, '--pending-max-age', '10');
    expect(strict.status).toBe(1);
    expect(strict.stdout).toMatch(/^FAIL: 1 dispatched tool call has no receipt \(reserved more than 10 s ago/m);
    for (const bad of ['-1', 'soon', '1.5']) {
      const u = verify(path, '--pending-max-age', bad);
      expect(u.status, bad).toBe(2);
      expect(errorCode(u.stderr), bad).toBe('CHIO-CLI-USAGE');
    }
  });

  it('hostile rows: a request id with a newline cannot forge an OK line, a reserved_at that is not a time counts as old', () => {
    const path = withPending([
      ['x\nOK: everything is fine', 'cap-y\r\u001b[2K', 0, now() - 5, 'o'],
      ['req-no-time', 'cap-z', 0, 'yesterday', 'o'],
    ]);
    const r = verify(path);
    expect(r.status).toBe(1);
    expect(lines(r.stdout).filter((l) => l.startsWith('OK: '))).toHaveLength(1);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: no escape sequence reaches the terminal
    expect(r.stdout).not.toMatch(/[\r\u001b]/);
    expect(r.stdout).toContain('request "x\\nOK: everything is fine"');
    expect(r.stdout).toMatch(/^FAIL: 1 dispatched tool call has no receipt/m);
    expect(r.stdout).toContain('request "req-no-time"  capability "cap-z"  owner "o"  reserved_at unreadable');
  });

  it('a ledger without reservations verifies as before', () => {
    const r = verify(pristine, '--json');
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      ok: true,
      entries: 30,
      pending_calls: { without_receipt: [], in_flight: [] },
    });
  });
});

describe('chio ledger rebuild-projections touches only Chio ledgers', () => {
  it('a zero-byte file and an empty SQLite database are refused (exit 2) and left unchanged', () => {
    const zero = join(dir, 'zero.sqlite');
    writeFileSync(zero, '');
    const empty = join(dir, 'empty-sqlite.db');
    const e = new Database(empty);
    e.exec('CREATE TABLE t (x); DROP TABLE t'); // an SQLite header and no tables: what an open would migrate
    e.close();
    for (const path of [zero, empty]) {
      const before = digest(path);
      const r = chio(['ledger', 'rebuild-projections', '--receipt-db', path]);
      expect(r.status, path).toBe(2);
      expect(errorCode(r.stderr), path).toBe('CHIO-LEDGER-FOREIGN-DATABASE');
      expect(r.stdout).toBe('');
      expect(digest(path), path).toBe(before);
    }
  });

  it('a missing file is CHIO-LEDGER-NOT-FOUND and is not created', () => {
    const r = chio(['ledger', 'rebuild-projections', '--receipt-db', join(dir, 'nothing-here.sqlite')]);
    expect(r.status).toBe(2);
    expect(errorCode(r.stderr)).toBe('CHIO-LEDGER-NOT-FOUND');
    expect(() => readFileSync(join(dir, 'nothing-here.sqlite'))).toThrow();
  });

  it('a Chio ledger is rebuilt', () => {
    const r = chio(['ledger', 'rebuild-projections', '--receipt-db', copy(), '--json']);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ sessions: 2 });
  });
});
