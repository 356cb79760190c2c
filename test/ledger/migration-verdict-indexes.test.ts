// A ledger written at schema 7 (a full index on verdict, timestamp indexed alone) is upgraded on
// open to schema 8: verdict keeps only a partial index for the rare verdicts and rides along in the
// timestamp index. The upgrade must keep every row, trigger and view as it was, leave a file whose
// schema equals a new ledger's, and every query that filters or counts by verdict must still be
// answered from an index — through the library and through the built `chio` CLI.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { hashCanonical, NULL_CONTENT_HASH } from '../../src/crypto/index.js';
import {
  appendReceiptSync,
  LEDGER_SCHEMA_VERSION,
  ledgerStats,
  listEntries,
  openLedger,
  quickCheck,
  verifyChain,
} from '../../src/ledger/index.js';
import { signReceipt } from '../../src/receipt/index.js';
import type { Receipt } from '../../src/receipt/index.js';
import { chio } from '../helpers/cli.js';
import { allowDraft, mixedReceipt, testSigner } from '../helpers/receipts.js';
import { oldSchema } from '../helpers/old-schema.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir();

/** The i-th receipt: the mixed stream (allows, denies, observations) plus cancelled and incomplete calls. */
function receipt(i: number): Receipt {
  if (i % 11 === 4)
    return signReceipt(
      allowDraft(i, {
        decision: { verdict: 'cancelled', reason: 'the caller cancelled' },
        content_hash: NULL_CONTENT_HASH,
      }),
      testSigner,
      { nonce: `c-${i}` },
    );
  if (i % 13 === 9)
    return signReceipt(
      allowDraft(i, {
        decision: { verdict: 'incomplete', reason: 'no receipt after dispatch' },
        content_hash: hashCanonical(null),
      }),
      testSigner,
      { nonce: `n-${i}` },
    );
  return mixedReceipt(i);
}

const TABLES = [
  'ledger_entries',
  'ledger_sessions',
  'revoked_capabilities',
  'grant_usage',
  'merkle_subtrees',
  'ledger_checkpoints',
  'pending_calls',
];
const contents = (db: Database.Database) =>
  Object.fromEntries(TABLES.map((t) => [t, db.prepare(`SELECT * FROM ${t} ORDER BY 1, 2`).all()]));
const schemaObjects = (db: Database.Database, types: string[]) =>
  db
    .prepare(
      `SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE type IN (${types.map(() => '?').join(', ')}) ORDER BY type, name`,
    )
    .all(...types);
const plan = (db: Database.Database, sql: string, ...params: unknown[]) =>
  (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>)
    .map((r) => r.detail)
    .join(' | ');

const N = 120;
const source = join(dir, 'source.sqlite');
const schema7 = join(dir, 'schema7.sqlite');
let before: ReturnType<typeof contents>;
let triggersAndViews: unknown[];

beforeAll(() => {
  // The entries as the current chio writes them; the columns and values are the same at schema 7.
  const writer = openLedger(source);
  for (let i = 0; i < N; i++)
    appendReceiptSync(writer, { receipt: receipt(i), sessionId: i % 4 === 0 ? null : `s${i % 3}` });
  writer.close();

  const old = oldSchema(schema7, 7);
  old.prepare('ATTACH DATABASE ? AS src').run(source);
  for (const t of TABLES) old.exec(`INSERT INTO ${t} SELECT * FROM src.${t}`);
  old.exec('DETACH DATABASE src');
  expect(
    old.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND name = 'ledger_entries_verdict'").get(),
  ).toBeDefined();
  before = contents(old);
  triggersAndViews = schemaObjects(old, ['trigger', 'view']);
  old.close();
});

describe('upgrading a schema-7 ledger to schema 8 (verdict indexes)', () => {
  it('a read-only open of the schema-7 file does not migrate it and answers verdict queries from the old index', () => {
    const l = openLedger(schema7, { readonly: true });
    try {
      expect(l.db.pragma('user_version', { simple: true })).toBe(7);
      const denies = listEntries(l, { outcome: 'deny' }, { limit: 1000 });
      expect(denies.totalCount).toBe(
        (before.ledger_entries as Array<{ verdict: string | null }>).filter((e) => e.verdict === 'deny').length,
      );
    } finally {
      l.close();
    }
  });

  it('opening it for writing migrates to the current schema: every row, trigger and view unchanged, the schema equal to a new ledger, the chain and the file verified', () => {
    const l = openLedger(schema7);
    try {
      expect(l.db.pragma('user_version', { simple: true })).toBe(LEDGER_SCHEMA_VERSION);
      expect(contents(l.db)).toEqual(before);
      expect(schemaObjects(l.db, ['trigger', 'view'])).toEqual(triggersAndViews);
      const indexes = (
        l.db
          .prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'ledger_entries' ORDER BY name")
          .all() as Array<{ name: string }>
      ).map((r) => r.name);
      expect(indexes).toEqual([
        'ledger_entries_capability',
        'ledger_entries_receipt_id_unique',
        'ledger_entries_session_seq',
        'ledger_entries_timestamp_verdict',
        'ledger_entries_tool',
        'ledger_entries_verdict_not_allow',
      ]);
      expect(verifyChain(l)).toMatchObject({ ok: true, entries: N });
      expect(quickCheck(l)).toEqual({ ok: true });
      expect(l.db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      l.close();
    }
    const fresh = openLedger(join(dir, 'fresh.sqlite'));
    const migrated = new Database(schema7, { readonly: true });
    try {
      expect(schemaObjects(migrated, ['table', 'index', 'trigger', 'view'])).toEqual(
        schemaObjects(fresh.db, ['table', 'index', 'trigger', 'view']),
      );
    } finally {
      migrated.close();
      fresh.close();
    }
  });

  it('the partial index holds exactly the deny, cancelled and incomplete entries, and appends after the upgrade keep it so', () => {
    const l = openLedger(schema7);
    try {
      appendReceiptSync(l, { receipt: receipt(N + 3), sessionId: 's1' }); // a deny (i % 5 === 3)
      appendReceiptSync(l, { receipt: receipt(N + 1), sessionId: 's1' }); // an allow
      // INDEXED BY needs the verdict as a literal: SQLite matches a partial index against the query's terms.
      for (const verdict of ['deny', 'cancelled', 'incomplete']) {
        const rows = l.db
          .prepare(`SELECT seq FROM ledger_entries NOT INDEXED WHERE verdict = '${verdict}' ORDER BY seq`)
          .all();
        expect(rows.length, verdict).toBeGreaterThan(0);
        expect(
          l.db
            .prepare(
              `SELECT seq FROM ledger_entries INDEXED BY ledger_entries_verdict_not_allow WHERE verdict = '${verdict}' ORDER BY seq`,
            )
            .all(),
          verdict,
        ).toEqual(rows);
      }
      const partial = l.db
        .prepare(
          "SELECT count(*) AS n FROM ledger_entries INDEXED BY ledger_entries_verdict_not_allow WHERE verdict = 'deny' OR verdict = 'cancelled' OR verdict = 'incomplete'",
        )
        .get() as { n: number };
      expect(partial.n).toBe(
        (
          l.db
            .prepare(
              "SELECT count(*) AS n FROM ledger_entries NOT INDEXED WHERE verdict IS NOT NULL AND verdict <> 'allow'",
            )
            .get() as { n: number }
        ).n,
      );
      // An allow cannot be looked up through it: SQLite refuses, the index has no allow rows to give.
      expect(() =>
        l.db
          .prepare("SELECT seq FROM ledger_entries INDEXED BY ledger_entries_verdict_not_allow WHERE verdict = 'allow'")
          .all(),
      ).toThrow(/no query solution/);
      expect(verifyChain(l)).toMatchObject({ ok: true, entries: N + 2 });
    } finally {
      l.close();
    }
  });

  it('queries by verdict are still answered from an index: listing and counting a verdict, grouping by it, the auditor views', () => {
    const l = openLedger(schema7, { readonly: true });
    try {
      const rows = l.db.prepare('SELECT seq, verdict FROM ledger_entries NOT INDEXED ORDER BY seq').all() as Array<{
        seq: number;
        verdict: string | null;
      }>;
      const count = (v: string | null) => rows.filter((r) => r.verdict === v).length;
      // receipt list --outcome: the page in seq order with a cursor, and the total.
      for (const outcome of ['deny', 'cancelled', 'incomplete', 'allow']) {
        const first = listEntries(l, { outcome }, { limit: 3 });
        const second = listEntries(l, { outcome }, { limit: 3, cursor: first.nextCursor ?? 0 });
        const expected = rows.filter((r) => r.verdict === outcome).map((r) => r.seq);
        expect(
          [...first.entries, ...second.entries].map((e) => e.seq),
          outcome,
        ).toEqual(expected.slice(0, 6));
        expect(first.totalCount, outcome).toBe(expected.length);
      }
      const stats = ledgerStats(l);
      expect(stats.byVerdict).toEqual({
        allow: count('allow'),
        deny: count('deny'),
        cancelled: count('cancelled'),
        incomplete: count('incomplete'),
        none: count(null),
      });

      // The plans: a bound rare verdict uses the partial index (no sort for seq order), allows are
      // counted and verdicts grouped over the narrow timestamp index, never over the rows.
      expect(
        plan(l.db, 'SELECT * FROM ledger_entries WHERE verdict = ? AND seq > ? ORDER BY seq LIMIT 51', 'deny', 0),
      ).toBe('SEARCH ledger_entries USING INDEX ledger_entries_verdict_not_allow (verdict=? AND rowid>?)');
      expect(plan(l.db, 'SELECT count(*) FROM ledger_entries WHERE verdict = ?', 'incomplete')).toContain(
        'COVERING INDEX ledger_entries_verdict_not_allow',
      );
      expect(plan(l.db, 'SELECT count(*) FROM ledger_entries WHERE verdict = ?', 'allow')).toContain(
        'COVERING INDEX ledger_entries_timestamp_verdict',
      );
      expect(plan(l.db, 'SELECT verdict, count(*) FROM ledger_entries GROUP BY verdict')).toContain(
        'COVERING INDEX ledger_entries_timestamp_verdict',
      );
      expect(plan(l.db, 'SELECT count(*) FROM ledger_entries WHERE timestamp >= ? AND timestamp <= ?', 1, 2)).toContain(
        'COVERING INDEX ledger_entries_timestamp_verdict',
      );
      expect(plan(l.db, "SELECT reason FROM receipts WHERE verdict = 'deny' ORDER BY seq DESC LIMIT 20")).toContain(
        'ledger_entries_verdict_not_allow',
      );
      expect(plan(l.db, "SELECT count(*) FROM receipt_evidence WHERE receipt_verdict = 'deny'")).toContain(
        'ledger_entries_verdict_not_allow',
      );
    } finally {
      l.close();
    }
  });

  it('the built CLI verifies the upgraded ledger and lists its denials', () => {
    const verify = chio(['ledger', 'verify', '--receipt-db', schema7]);
    expect(verify.status, verify.stderr).toBe(0);
    expect(verify.stdout).toMatch(/^OK: \d+ entries verified/);
    expect(verify.stdout).toMatch(/\n {2}sqlite +quick_check ok\n/);
    const list = chio(['receipt', 'list', '--outcome', 'deny', '--limit', '2', '--receipt-db', schema7]);
    expect(list.status, list.stderr).toBe(0);
    const bodies = list.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Receipt);
    expect(bodies).toHaveLength(2);
    for (const b of bodies) expect(b.decision?.verdict).toBe('deny');
    expect(list.stderr).toMatch(/^next_cursor=\d+ total_count=\d+\n$/);
  });

  it('append-only holds after the upgrade: turning a denial into an allow is refused', () => {
    const raw = new Database(schema7);
    try {
      expect(() => raw.prepare("UPDATE ledger_entries SET verdict = 'allow' WHERE verdict = 'deny'").run()).toThrow(
        /append-only/,
      );
      expect(() => raw.prepare("DELETE FROM ledger_entries WHERE verdict = 'deny'").run()).toThrow(/append-only/);
    } finally {
      raw.close();
    }
  });
});
