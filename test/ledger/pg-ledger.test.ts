// The ledger on a real PostgreSQL server: the schema and its version, refusals of foreign and
// newer databases, the same rows and entry hashes as SQLite for the same receipts, append-only
// triggers (UPDATE, DELETE and TRUNCATE), the link trigger, concurrent appenders on separate
// connections keeping one contiguous chain, and verification catching what a dishonest operator
// with superuser rights changes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { signerFromSeed } from '../../src/crypto/index.js';
import { Kernel } from '../../src/kernel/index.js';
import { appendReceiptSync, openLedger } from '../../src/ledger/index.js';
import { appendReceiptsPg, openPgLedger, PG_LEDGER_SCHEMA_VERSION, verifyChainPg } from '../../src/ledger/pg/index.js';
import { mixedReceipt } from '../helpers/receipts.js';
import { admin, freshPgDatabase } from '../helpers/postgres.js';
import { tempDir } from '../helpers/tmp.js';
import { CountingToolServer } from '../helpers/tool-server.js';

const COLUMNS =
  'seq, kind, receipt_id, session_id, session_prev_seq, prev_hash, entry_hash, body, timestamp, capability_id, tool_server, tool_name, verdict, receipt_kind, trust_level, kernel_key, tenant_id, producer';

describe('the ledger on PostgreSQL', () => {
  it('creates its schema once, records the version, and reopens without migrating again', async () => {
    const { url, name } = await freshPgDatabase();
    const a = await openPgLedger(url);
    await a.close();
    const b = await openPgLedger(url);
    await b.close();
    const meta = await admin('SELECT application, schema_version FROM chio_ledger_meta', [], name);
    expect(meta.rows).toEqual([{ application: 'chio-ledger', schema_version: PG_LEDGER_SCHEMA_VERSION }]);
    const views = await admin(
      "SELECT table_name FROM information_schema.views WHERE table_schema = 'public' ORDER BY 1",
      [],
      name,
    );
    expect(views.rows.map((r) => r.table_name)).toEqual([
      'receipt_evidence',
      'receipts',
      'revocations',
      'session_summary',
    ]);
  });

  it('refuses a database with other tables, a newer schema, and a read-only open of an empty one; none is changed', async () => {
    const foreign = await freshPgDatabase();
    await admin('CREATE TABLE customers (id int)', [], foreign.name);
    await expect(openPgLedger(foreign.url)).rejects.toMatchObject({ code: 'CHIO-LEDGER-FOREIGN-DATABASE' });
    expect(
      (await admin("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'", [], foreign.name)).rows[0].n,
    ).toBe(1);

    const newer = await freshPgDatabase();
    await (await openPgLedger(newer.url)).close();
    await admin('UPDATE chio_ledger_meta SET schema_version = 999', [], newer.name);
    await expect(openPgLedger(newer.url)).rejects.toMatchObject({ code: 'CHIO-LEDGER-SCHEMA-TOO-NEW' });

    const empty = await freshPgDatabase();
    await expect(openPgLedger(empty.url, { readonly: true })).rejects.toMatchObject({ code: 'CHIO-LEDGER-NOT-FOUND' });
    expect(
      (await admin("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'", [], empty.name)).rows[0].n,
    ).toBe(0);

    await expect(openPgLedger('postgres://chio@127.0.0.1:1/nothing')).rejects.toMatchObject({
      code: 'CHIO-LEDGER-UNREACHABLE',
    });
    await expect(openPgLedger('postgres://[bad')).rejects.toMatchObject({ code: 'CHIO-LEDGER-URL' });
  });

  it('the same receipts give the same rows and entry hashes as on SQLite, byte for byte', async () => {
    const { url } = await freshPgDatabase();
    const pg = await openPgLedger(url);
    const sqlite = openLedger(join(tempDir(), 'twin.sqlite'));
    try {
      const requests = Array.from({ length: 12 }, (_, i) => ({
        receipt: mixedReceipt(i),
        sessionId: i % 3 === 0 ? null : `s-${i % 2}`,
        producer: 'twin',
      }));
      for (const r of requests) appendReceiptSync(sqlite, r);
      await appendReceiptsPg(pg, requests.slice(0, 5));
      await appendReceiptsPg(pg, requests.slice(5));
      const fromPg = (await pg.pool.query(`SELECT ${COLUMNS} FROM ledger_entries ORDER BY seq`)).rows;
      const fromSqlite = sqlite.db.prepare(`SELECT ${COLUMNS} FROM ledger_entries ORDER BY seq`).all();
      expect(fromPg).toEqual(fromSqlite);
      const sessions =
        'SELECT session_id, first_seq, last_seq, entry_count, first_timestamp, last_timestamp, head_entry_hash FROM ledger_sessions ORDER BY first_seq';
      expect((await pg.pool.query(sessions)).rows).toEqual(sqlite.db.prepare(sessions).all());
      expect(await verifyChainPg(pg)).toMatchObject({ ok: true, entries: 12, sessions: 2 });
      // The auditor view answers as on SQLite for the decoded text columns.
      const view = 'SELECT seq, receipt_id, time_utc, verdict, reason, guard, tool_name FROM receipts ORDER BY seq';
      expect((await pg.pool.query(view)).rows).toEqual(sqlite.db.prepare(view).all());
    } finally {
      sqlite.close();
      await pg.close();
    }
  });

  it('UPDATE, DELETE and TRUNCATE of entries are refused; an insert that does not continue the chain is refused', async () => {
    const { url } = await freshPgDatabase();
    const ledger = await openPgLedger(url);
    try {
      await appendReceiptsPg(ledger, [{ receipt: mixedReceipt(1) }, { receipt: mixedReceipt(2) }]);
      await expect(ledger.pool.query("UPDATE ledger_entries SET tool_name = 'x'")).rejects.toThrow(
        /append-only \(UPDATE refused\)/,
      );
      await expect(ledger.pool.query('DELETE FROM ledger_entries WHERE seq = 2')).rejects.toThrow(
        /append-only \(DELETE refused\)/,
      );
      await expect(ledger.pool.query('TRUNCATE ledger_entries CASCADE')).rejects.toThrow(
        /append-only \(TRUNCATE refused\)/,
      );
      const row = (await ledger.pool.query('SELECT * FROM ledger_entries WHERE seq = 2')).rows[0];
      const insert = (over: Record<string, unknown>) => {
        const r = { ...row, receipt_id: 'f'.repeat(64), ...over };
        return ledger.pool.query(
          `INSERT INTO ledger_entries (${COLUMNS}) VALUES (${COLUMNS.split(', ')
            .map((_, i) => `$${i + 1}`)
            .join(', ')})`,
          COLUMNS.split(', ').map((c) => r[c]),
        );
      };
      await expect(insert({ seq: 5 })).rejects.toThrow(/seq must be the head seq \+ 1/);
      await expect(insert({ seq: 3, prev_hash: 'a'.repeat(64) })).rejects.toThrow(
        /prev_hash must be the entry_hash of seq - 1/,
      );
      expect(await verifyChainPg(ledger)).toMatchObject({ ok: true, entries: 2 });
    } finally {
      await ledger.close();
    }
  });

  it('appenders on separate connections at once keep one contiguous chain, each batch in its own order', async () => {
    const { url } = await freshPgDatabase();
    const ledgers = await Promise.all(Array.from({ length: 6 }, () => openPgLedger(url)));
    try {
      const results = await Promise.all(
        ledgers.map(async (ledger, p) => {
          const out = [];
          for (let b = 0; b < 5; b++) {
            out.push(
              ...(await appendReceiptsPg(
                ledger,
                Array.from({ length: 4 }, (_, i) => ({
                  receipt: mixedReceipt(1000 * (p + 1) + b * 10 + i),
                  sessionId: `producer-${p}`,
                })),
              )),
            );
          }
          return out;
        }),
      );
      const seqs = results
        .flat()
        .map((r) => r.seq)
        .sort((a, b) => a - b);
      expect(seqs).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
      for (const r of results) expect(r.map((x) => x.seq)).toEqual([...r.map((x) => x.seq)].sort((a, b) => a - b));
      expect(await verifyChainPg(ledgers[0]!)).toMatchObject({ ok: true, entries: 120, sessions: 6 });
    } finally {
      await Promise.all(ledgers.map((l) => l.close()));
    }
  });

  it('verification finds what an operator with superuser rights changed: a rewritten body; a cut tail whose session projection no longer matches', async () => {
    const { url, name } = await freshPgDatabase();
    const ledger = await openPgLedger(url);
    try {
      await appendReceiptsPg(
        ledger,
        Array.from({ length: 6 }, (_, i) => ({ receipt: mixedReceipt(i), sessionId: 's' })),
      );
      expect(await verifyChainPg(ledger)).toMatchObject({ ok: true, entries: 6 });
      await admin('ALTER TABLE ledger_entries DISABLE TRIGGER USER', [], name);
      await admin(
        'UPDATE ledger_entries SET body = replace(body, \'"tool_name":"\', \'"tool_name":"x\') WHERE seq = 3',
        [],
        name,
      );
      expect(await verifyChainPg(ledger)).toMatchObject({ ok: false, seq: 3, check: 'entry_hash' });
      await admin('DELETE FROM ledger_entries WHERE seq >= 3', [], name);
      await admin('UPDATE ledger_sessions SET entry_count = 2', [], name);
      expect(await verifyChainPg(ledger)).toMatchObject({ ok: false, check: 'sessions_projection' });
    } finally {
      await ledger.close();
    }
  });

  it('the roles of docs/postgres.md: a producer role appends and runs a kernel but cannot rewrite or drop the triggers; an auditor role only reads', async () => {
    const { url, name } = await freshPgDatabase();
    await (await openPgLedger(url)).close(); // the first open, as the owner, creates the schema
    const readme = readFileSync('docs/postgres.md', 'utf8');
    const block = /```sql\n\s*(CREATE ROLE chio_producer[\s\S]*?)```/.exec(readme)![1]!;
    const suffix = name.slice(2);
    const statements = block
      .replaceAll('chio_producer', `chio_producer_${suffix}`)
      .replaceAll('chio_auditor', `chio_auditor_${suffix}`)
      .replaceAll("'…'", "'pw'")
      .split(';')
      .map((t) => t.trim())
      .filter((t) => t !== '');
    for (const statement of statements) await admin(statement, [], name);
    const as = (role: string) => {
      const u = new URL(url);
      u.username = `${role}_${suffix}`;
      u.password = 'pw';
      return u.href;
    };
    const producer = await openPgLedger(as('chio_producer'));
    try {
      await appendReceiptsPg(producer, [
        { receipt: mixedReceipt(1), sessionId: 's' },
        { receipt: mixedReceipt(2), sessionId: 's' },
      ]);
      await expect(producer.pool.query("UPDATE ledger_entries SET tool_name = 'x'")).rejects.toThrow(
        /permission denied for table ledger_entries/,
      );
      await expect(producer.pool.query('ALTER TABLE ledger_entries DISABLE TRIGGER USER')).rejects.toThrow(
        /must be owner/,
      );
      await expect(producer.pool.query('DROP TRIGGER ledger_entries_no_update ON ledger_entries')).rejects.toThrow(
        /must be owner/,
      );
    } finally {
      await producer.close();
    }
    // A kernel runs as the producer role too: reservations, budgets, receipts, a revocation, checkpoints.
    const kernel = await Kernel.connect({
      ledgerPath: as('chio_producer'),
      seed: new Uint8Array(32).fill(7),
      checkpoints: { everyEntries: 2 },
    });
    const server = new CountingToolServer();
    kernel.registerToolServer(server);
    const agent = signerFromSeed(new Uint8Array(32).fill(8));
    const cap = kernel.issueCapability({
      subject: agent.publicKeyHex,
      scope: { grants: [{ server_id: 'fs', tool_name: 'hello_tool', operations: ['invoke'], max_invocations: 2 }] },
    });
    const verdicts: string[] = [];
    for (let i = 0; i < 3; i++)
      verdicts.push(
        (
          await kernel.evaluateToolCall({
            capability: cap,
            caller: agent.publicKeyHex,
            serverId: 'fs',
            toolName: 'hello_tool',
            arguments: {},
            sessionId: 'k',
          })
        ).receipt.decision!.verdict,
      );
    expect(verdicts).toEqual(['allow', 'allow', 'deny']);
    await kernel.revokeCapability(cap.id, 'done');
    await kernel.close();
    expect(kernel.checkpointer?.lastError).toBeUndefined();
    // A clean shutdown leaves a checkpoint of everything (checkpoints only grow: the largest is the last).
    expect((await admin('SELECT max(tree_size)::int AS n FROM ledger_checkpoints', [], name)).rows[0].n).toBe(6);
    expect(server.calls).toHaveLength(2);
    const auditor = await openPgLedger(as('chio_auditor'), { readonly: true });
    try {
      expect(await verifyChainPg(auditor)).toMatchObject({ ok: true, entries: 6 });
      // The receipts view holds receipts, not the revocation entry.
      expect((await auditor.pool.query('SELECT count(*)::int AS n FROM receipts')).rows[0].n).toBe(5);
      await expect(appendReceiptsPg(auditor, [{ receipt: mixedReceipt(3) }])).rejects.toMatchObject({
        code: 'CHIO-LEDGER-APPEND-FAILED',
      });
      await expect(
        auditor.pool.query('INSERT INTO ledger_sessions VALUES ($1, 1, 1, 1, 1, 1, $2)', ['x', 'a'.repeat(64)]),
      ).rejects.toThrow(/permission denied/);
    } finally {
      await auditor.close();
    }
  });
});
