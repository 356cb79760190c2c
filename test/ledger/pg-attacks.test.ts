// Attacks on the PostgreSQL ledger through the built CLI, as a dishonest operator (superuser,
// triggers disabled, projection tables edited) and as a hostile reader (`chio sql` as the
// README's SELECT-only auditor role): a copy from a lying source or into a pre-filled or forged
// target never ends in a target that verifies; verify names the check each tamper breaks; a URL's
// password is never printed; two copies at once leave one verified chain.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { appendReceiptSync, openLedger } from '../../src/ledger/index.js';
import { entryHash, receiptSha256 } from '../../src/ledger/entry.js';
import { copyLedger } from '../../src/ledger/pg/copy.js';
import { CHIO_BIN, chio, ERROR_SHAPE, errorCode } from '../helpers/cli.js';
import { admin, freshPgDatabase, PG_ADMIN_URL } from '../helpers/postgres.js';
import { mixedReceipt } from '../helpers/receipts.js';
import { kernelLedger } from '../helpers/kernel-ledger.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir();
const kernelFile = join(dir, 'kernel.sqlite');
let capabilityId = '';

/** An SQLite ledger of the first `n` mixed receipts (the same n always gives the same hashes). */
function mixedLedger(path: string, n: number): string {
  const ledger = openLedger(path);
  for (let i = 0; i < n; i++) appendReceiptSync(ledger, { receipt: mixedReceipt(i), sessionId: `s-${i % 2}` });
  ledger.close();
  return path;
}

/** Edits an SQLite ledger with its triggers dropped, as its owner can. */
function tamperSqlite(path: string, edit: (db: Database.Database) => void): void {
  const db = new Database(path);
  for (const t of db.prepare("SELECT name FROM sqlite_schema WHERE type = 'trigger'").all() as Array<{ name: string }>)
    db.exec(`DROP TRIGGER "${t.name}"`);
  edit(db);
  db.close();
}

/** A PostgreSQL ledger holding the kernel ledger, its name, for tampering. */
async function pgCopyOf(file: string): Promise<{ url: string; name: string }> {
  const db = await freshPgDatabase();
  const r = chio(['ledger', 'copy', '--from', file, '--to', db.url]);
  expect(r.status, r.stderr).toBe(0);
  return db;
}

const count = async (name: string, table: string): Promise<number> =>
  (await admin(`SELECT count(*)::int AS n FROM ${table}`, [], name)).rows[0].n as number;

beforeAll(async () => {
  capabilityId = await kernelLedger(kernelFile, 12);
  openLedger(join(dir, 'none.sqlite')).close();
});

describe('chio ledger copy from a hostile source', () => {
  it('a row whose columns or body lie is copied but the target fails verification (exit 1, the check named)', async () => {
    const lies: Array<[string, (db: Database.Database) => void, string]> = [
      [
        'column',
        (db) => db.prepare("UPDATE ledger_entries SET tool_name = 'innocent' WHERE seq = 3").run(),
        'projection',
      ],
      [
        'kernel_key column',
        (db) => db.prepare(`UPDATE ledger_entries SET kernel_key = '${'ab'.repeat(32)}' WHERE seq = 2`).run(),
        'projection',
      ],
      [
        'non-canonical body, entry_hash recomputed',
        (db) => {
          const head = db.prepare('SELECT * FROM ledger_entries ORDER BY seq DESC LIMIT 1').get() as {
            seq: number;
            prev_hash: string;
            body: string;
            session_id: string | null;
            session_prev_seq: number | null;
          };
          const body = JSON.stringify(JSON.parse(head.body), null, 1);
          const hash = entryHash({
            seq: head.seq,
            prevHash: head.prev_hash,
            receiptSha256: receiptSha256(body),
            sessionId: head.session_id,
            sessionPrevSeq: head.session_prev_seq,
          });
          db.prepare('UPDATE ledger_entries SET body = ?, entry_hash = ? WHERE seq = ?').run(body, hash, head.seq);
          db.prepare('UPDATE ledger_sessions SET head_entry_hash = ? WHERE session_id = ?').run(hash, head.session_id);
        },
        'body',
      ],
    ];
    for (const [i, [what, edit, check]] of lies.entries()) {
      const file = mixedLedger(join(dir, `lie-${i}.sqlite`), 8);
      tamperSqlite(file, edit);
      const { url } = await freshPgDatabase();
      const r = chio(['ledger', 'copy', '--from', file, '--to', url, '--json']);
      expect(r.status, what).toBe(1);
      expect(JSON.parse(r.stdout), what).toMatchObject({ ok: false, check });
    }
  });

  it('a session link that lies, or a receipt repeated, is refused by the target and nothing is left in it', async () => {
    const file = mixedLedger(join(dir, 'link.sqlite'), 8);
    tamperSqlite(file, (db) => {
      const head = db.prepare('SELECT * FROM ledger_entries ORDER BY seq DESC LIMIT 1').get() as {
        seq: number;
        prev_hash: string;
        body: string;
        session_id: string;
      };
      const hash = entryHash({
        seq: head.seq,
        prevHash: head.prev_hash,
        receiptSha256: receiptSha256(head.body),
        sessionId: head.session_id,
        sessionPrevSeq: null,
      });
      db.prepare('UPDATE ledger_entries SET session_prev_seq = NULL, entry_hash = ? WHERE seq = ?').run(hash, head.seq);
    });
    const linked = await freshPgDatabase();
    const r = chio(['ledger', 'copy', '--from', file, '--to', linked.url]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(ERROR_SHAPE);
    expect(await count(linked.name, 'ledger_entries')).toBe(0);

    // A PostgreSQL source whose operator dropped the unique constraint and appended seq 1's receipt again, correctly linked.
    const source = await pgCopyOf(mixedLedger(join(dir, 'dup.sqlite'), 6));
    await admin('ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_receipt_id_unique', [], source.name);
    const first = (await admin('SELECT * FROM ledger_entries WHERE seq = 1', [], source.name)).rows[0];
    const head = (await admin('SELECT entry_hash FROM ledger_entries WHERE seq = 6', [], source.name)).rows[0]
      .entry_hash as string;
    const hash = entryHash({
      seq: 7,
      prevHash: head,
      receiptSha256: receiptSha256(first.body),
      sessionId: null,
      sessionPrevSeq: null,
    });
    await admin(
      `INSERT INTO ledger_entries SELECT 7, kind, receipt_id, NULL, NULL, $1, $2, body, timestamp, capability_id, tool_server, tool_name, verdict, receipt_kind, trust_level, kernel_key, tenant_id, producer
      FROM ledger_entries WHERE seq = 1`,
      [head, hash],
      source.name,
    );
    for (const to of [(await freshPgDatabase()).url, join(dir, 'dup-target.sqlite')]) {
      const dup = chio(['ledger', 'copy', '--from', source.url, '--to', to]);
      expect(dup.status, to).not.toBe(0);
      expect(dup.stdout, to).not.toContain('OK:');
    }
  });

  it('a target whose projection tables were pre-filled before its first entry fails verification after the copy', async () => {
    const lite = new Database(kernelFile, { readonly: true });
    const kernelKey = (lite.prepare('SELECT kernel_key FROM ledger_entries LIMIT 1').get() as { kernel_key: string })
      .kernel_key;
    lite.close();
    const prefills: Array<[string, unknown[], string]> = [
      ['INSERT INTO grant_usage VALUES ($1, 0, $2, 1000)', [capabilityId, kernelKey], 'grant_usage_projection'],
      [
        'INSERT INTO revoked_capabilities VALUES ($1, $2, 1, 1)',
        ['cap-not-revoked', kernelKey],
        'revocations_projection',
      ],
      ['INSERT INTO revoked_capabilities VALUES ($1, $2, 1, 1)', [capabilityId, kernelKey], 'revocations_projection'],
      ["INSERT INTO ledger_sessions VALUES ('s-0', 1, 1, 500, 1, 1, $1)", ['0'.repeat(64)], 'sessions_projection'],
    ];
    for (const [sql, params, check] of prefills) {
      const target = await pgCopyOf(join(dir, 'none.sqlite')); // migrated, no entries
      await admin(sql, params, target.name);
      const r = chio(['ledger', 'copy', '--from', kernelFile, '--to', target.url, '--json']);
      expect(r.status, sql).toBe(1);
      expect(JSON.parse(r.stdout), sql).toMatchObject({ ok: false, check });
    }
  });

  it("a target holding a forged prefix whose head entry_hash is the source's is continued, then fails verification", async () => {
    // The head's entry_hash commits (through prev_hash) to every earlier seq, body hash and session link;
    // the columns outside the hash are checked by the verification after the copy.
    const target = await pgCopyOf(mixedLedger(join(dir, 'prefix.sqlite'), 5));
    await admin('ALTER TABLE ledger_entries DISABLE TRIGGER USER', [], target.name);
    await admin("UPDATE ledger_entries SET verdict = 'allow' WHERE seq = 4", [], target.name); // seq 4 is a denial
    const r = chio([
      'ledger',
      'copy',
      '--from',
      mixedLedger(join(dir, 'full.sqlite'), 9),
      '--to',
      target.url,
      '--json',
    ]);
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: false, seq: 4, check: 'projection', kept: 5, copied: 4 });
  });
});

describe('chio ledger verify on PostgreSQL, after a superuser edit', () => {
  it('a reordered seq, a swapped kernel_key and edited projection tables each fail with their check', async () => {
    const tampers: Array<[string[], { seq?: number | null; check: string }]> = [
      [
        [
          'UPDATE ledger_entries SET seq = 100 WHERE seq = 4',
          'UPDATE ledger_entries SET seq = 4 WHERE seq = 5',
          'UPDATE ledger_entries SET seq = 5 WHERE seq = 100',
        ],
        { seq: 4, check: 'prev_hash' },
      ],
      [[`UPDATE ledger_entries SET kernel_key = '${'cd'.repeat(32)}' WHERE seq = 6`], { seq: 6, check: 'projection' }],
      [['DELETE FROM revoked_capabilities'], { seq: null, check: 'revocations_projection' }],
      [['UPDATE grant_usage SET invocations = 0'], { seq: null, check: 'grant_usage_projection' }],
      [['UPDATE ledger_sessions SET entry_count = entry_count - 1'], { seq: null, check: 'sessions_projection' }],
    ];
    for (const [statements, expected] of tampers) {
      const { url, name } = await pgCopyOf(kernelFile);
      await admin('ALTER TABLE ledger_entries DISABLE TRIGGER USER', [], name);
      for (const s of statements) await admin(s, [], name);
      const r = chio(['ledger', 'verify', '--receipt-db', url, '--json']);
      expect(r.status, statements[0]).toBe(1);
      expect(JSON.parse(r.stdout), statements[0]).toMatchObject({ ok: false, ...expected });
    }
  });
});

describe('a PostgreSQL URL with a password', () => {
  const secretUrl = (base: string, database: string) => {
    const u = new URL(base);
    u.password = 'S3cret-pw';
    u.pathname = `/${database}`;
    return u.href;
  };

  it("the password in the URL's userinfo is never printed by copy, verify or sql, reachable or not", async () => {
    const foreign = await freshPgDatabase();
    await admin('CREATE TABLE someone_elses (i int)', [], foreign.name);
    const urls = [secretUrl(PG_ADMIN_URL, foreign.name), 'postgres://chio:S3cret-pw@127.0.0.1:1/x'];
    for (const url of urls) {
      for (const args of [
        ['ledger', 'verify', '--receipt-db', url],
        ['ledger', 'copy', '--from', kernelFile, '--to', url],
        ['ledger', 'copy', '--from', url, '--to', join(dir, 'pw.sqlite')],
        ['sql', 'SELECT 1', '--receipt-db', url],
      ]) {
        const r = chio(args);
        expect(r.status, args.join(' ')).not.toBe(0);
        expect(r.stderr, args.join(' ')).toMatch(ERROR_SHAPE);
        expect(r.stdout + r.stderr, args.join(' ')).not.toContain('S3cret-pw');
      }
    }
  });

  // libpq-style `?password=` / `?sslpassword=` are honoured by pg, so they are masked too.
  it('a password given as ?password= in the URL is never printed', () => {
    const r = chio([
      'ledger',
      'verify',
      '--receipt-db',
      'postgres://chio@127.0.0.1:1/x?password=S3cret-pw&sslpassword=S3cret-key',
    ]);
    expect(errorCode(r.stderr)).toBe('CHIO-LEDGER-UNREACHABLE');
    expect(r.stderr).not.toContain('S3cret');
  });
});

describe('chio sql as the auditor role (SELECT only, as the README sets it up)', () => {
  let url = '';
  let name = '';
  beforeAll(async () => {
    ({ name } = await pgCopyOf(kernelFile));
    const role = `aud_${name}`;
    await admin(`CREATE ROLE ${role} LOGIN`);
    await admin(`GRANT SELECT ON ALL TABLES IN SCHEMA public TO ${role}`, [], name);
    const u = new URL(PG_ADMIN_URL);
    u.username = role;
    u.pathname = `/${name}`;
    url = u.href;
  });

  it('cannot end the read-only transaction, run a program, read server files or write through a function', async () => {
    const before = (await admin('SELECT count(*)::int AS n, max(entry_hash) AS h FROM ledger_entries', [], name))
      .rows[0];
    const refused = [
      'ROLLBACK; DELETE FROM ledger_sessions',
      'DO $$BEGIN DELETE FROM ledger_sessions; END$$',
      'DO $$BEGIN COMMIT; END$$',
      "COPY (SELECT 1) TO PROGRAM 'true'",
      "COPY ledger_entries TO '/tmp/chio-ledger-dump'",
      "SELECT pg_read_file('/etc/hostname')",
      "SELECT lo_import('/etc/hostname')",
      'SELECT chio_append_only()',
      "SELECT set_config('transaction_read_only', 'off', true)",
      'SET TRANSACTION READ WRITE',
    ];
    for (const query of refused) {
      const r = chio(['sql', query, '--receipt-db', url]);
      expect(r.status, query).toBe(2);
      expect(errorCode(r.stderr), query).toMatch(/^CHIO-CLI-SQL-(WRITE|ERROR)$/);
    }
    // A lone COMMIT ends the transaction, but one statement is all that runs: nothing written.
    expect(chio(['sql', 'COMMIT', '--receipt-db', url]).status).toBe(0);
    expect(
      (await admin('SELECT count(*)::int AS n, max(entry_hash) AS h FROM ledger_entries', [], name)).rows[0],
    ).toEqual(before);
    expect(await count(name, 'ledger_sessions')).toBeGreaterThan(0);
  });

  // PostgreSQL lets lo_from_bytea/lo_create run in a READ ONLY transaction and any role may create
  // large objects: chio sql's transaction ends in ROLLBACK, so nothing it ran persists.
  it('a large object created by a query does not persist in the ledger database', async () => {
    const before = await count(name, 'pg_largeobject_metadata');
    chio(['sql', "SELECT lo_from_bytea(0, convert_to(repeat('x', 1000), 'UTF8'))", '--receipt-db', url]);
    expect(await count(name, 'pg_largeobject_metadata')).toBe(before);
  });

  // Appends serialize on the chio_append_lock row (SELECT … FOR UPDATE): a reader can take it
  // neither in chio sql's read-only transaction nor on a plain connection without UPDATE rights.
  it('a reader cannot take the lock that serializes producers', async () => {
    const r = chio(['sql', 'SELECT id FROM chio_append_lock FOR UPDATE', '--receipt-db', url]);
    expect(r.status).not.toBe(0);
    expect(errorCode(r.stderr)).toBe('CHIO-CLI-SQL-WRITE');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query('BEGIN');
      for (const lock of ['FOR UPDATE', 'FOR NO KEY UPDATE', 'FOR SHARE', 'FOR KEY SHARE']) {
        await client.query('SAVEPOINT s');
        await expect(client.query(`SELECT id FROM chio_append_lock ${lock}`), lock).rejects.toThrow(
          /permission denied/,
        );
        await client.query('ROLLBACK TO SAVEPOINT s');
      }
    } finally {
      await client.query('ROLLBACK');
      await client.end();
    }
  });
});

describe('two chio ledger copy processes into one empty target at once', () => {
  const source = join(dir, 'race.sqlite');
  beforeAll(() => {
    mixedLedger(source, 2300); // three pages of 1000
  }, 120_000);

  it('leave a target that verifies and equals the source; a loser fails with a clear error', async () => {
    const { url, name } = await freshPgDatabase();
    const run = () =>
      new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [CHIO_BIN, 'ledger', 'copy', '--from', source, '--to', url], {
          env: { ...process.env, FORCE_COLOR: '0' },
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        child.on('close', (status) => resolve({ status, stdout, stderr }));
      });
    const results = await Promise.all([run(), run()]);
    expect(results.some((r) => r.status === 0)).toBe(true);
    for (const r of results) if (r.status !== 0) expect(r.stderr).toMatch(ERROR_SHAPE);
    const verify = chio(['ledger', 'verify', '--receipt-db', url, '--json']);
    expect(verify.status, verify.stdout).toBe(0);
    expect(JSON.parse(verify.stdout)).toMatchObject({ ok: true, entries: 2300 });
    const lite = new Database(source, { readonly: true });
    const want = (
      lite.prepare('SELECT entry_hash FROM ledger_entries ORDER BY seq DESC LIMIT 1').get() as { entry_hash: string }
    ).entry_hash;
    lite.close();
    expect(
      (await admin('SELECT entry_hash FROM ledger_entries ORDER BY seq DESC LIMIT 1', [], name)).rows[0].entry_hash,
    ).toBe(want);
  }, 120_000);

  // Each page checks, under the append lock, that the target still ends where the page begins.
  it('a copy whose target another copy finished under it stops with CHIO-LEDGER-COPY-TARGET', async () => {
    const { url } = await freshPgDatabase();
    let other: number | null = null;
    const copy = copyLedger(source, url, {
      onProgress: () => {
        other ??= chio(['ledger', 'copy', '--from', source, '--to', url]).status; // after our first page
      },
    });
    await expect(copy).rejects.toMatchObject({ code: 'CHIO-LEDGER-COPY-TARGET' });
    expect(other).toBe(0);
    expect(chio(['ledger', 'verify', '--receipt-db', url, '--no-signatures']).status).toBe(0);
  }, 120_000);
});
