// The ledger's guarantees on a real SQLite file: pragmas, append-only triggers, linking, refusals that append nothing.
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import {
  appendReceiptSync,
  CHIO_APPLICATION_ID,
  LEDGER_SCHEMA_VERSION,
  openLedger,
  verifyChain,
} from '../../src/ledger/index.js';
import { signReceipt } from '../../src/receipt/index.js';
import { allowDraft, mixedReceipt, testSigner } from '../helpers/receipts.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir();
let n = 0;
const freshPath = () => join(dir, `ledger-${++n}.sqlite`);
const count = (db: Database.Database) =>
  (db.prepare('SELECT count(*) AS n FROM ledger_entries').get() as { n: number }).n;

describe('opening a ledger', () => {
  it('sets and asserts WAL, synchronous=FULL, busy_timeout and foreign keys, and marks the file as a Chio ledger', () => {
    const ledger = openLedger(freshPath());
    expect(ledger.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(ledger.db.pragma('synchronous', { simple: true })).toBe(2);
    expect(ledger.db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(ledger.db.pragma('busy_timeout', { simple: true })).toBe(10_000);
    expect(ledger.db.pragma('application_id', { simple: true })).toBe(CHIO_APPLICATION_ID);
    expect(ledger.db.pragma('user_version', { simple: true })).toBe(LEDGER_SCHEMA_VERSION);
    ledger.close();
  });

  it('reopening an existing ledger keeps its entries and does not migrate twice', () => {
    const path = freshPath();
    const a = openLedger(path);
    appendReceiptSync(a, { receipt: mixedReceipt(1) });
    a.close();
    const b = openLedger(path);
    expect(count(b.db)).toBe(1);
    expect(verifyChain(b)).toMatchObject({ ok: true, entries: 1 });
    b.close();
  });

  it('a read-only open of a missing path fails and creates nothing', async () => {
    const path = freshPath();
    expect(() => openLedger(path, { readonly: true })).toThrowError(
      expect.objectContaining({ code: 'CHIO-LEDGER-NOT-FOUND' }),
    );
    const { existsSync } = await import('node:fs');
    expect(existsSync(path)).toBe(false);
  });
});

describe('append-only', () => {
  it('UPDATE and DELETE on ledger_entries are refused by triggers', () => {
    const ledger = openLedger(freshPath());
    appendReceiptSync(ledger, { receipt: mixedReceipt(1) });
    expect(() => ledger.db.prepare("UPDATE ledger_entries SET tool_name = 'x'").run()).toThrow(
      /append-only \(UPDATE refused\)/,
    );
    expect(() => ledger.db.prepare('DELETE FROM ledger_entries').run()).toThrow(/append-only \(DELETE refused\)/);
    expect(verifyChain(ledger)).toMatchObject({ ok: true, entries: 1 });
    ledger.close();
  });

  it('an insert that does not continue the chain is refused by the link trigger', () => {
    const ledger = openLedger(freshPath());
    appendReceiptSync(ledger, { receipt: mixedReceipt(1) });
    const row = ledger.db.prepare('SELECT * FROM ledger_entries').get() as Record<string, unknown>;
    const insert = (over: Record<string, unknown>) => {
      const r = { ...row, receipt_id: 'f'.repeat(64), entry_hash: 'e'.repeat(64), ...over };
      const cols = Object.keys(r);
      ledger.db
        .prepare(`INSERT INTO ledger_entries (${cols.join(',')}) VALUES (${cols.map((c) => `@${c}`).join(',')})`)
        .run(r);
    };
    expect(() => insert({ seq: 3, prev_hash: row.entry_hash })).toThrow(/seq must be the head seq \+ 1/);
    expect(() => insert({ seq: 2, prev_hash: 'a'.repeat(64) })).toThrow(/prev_hash must be the entry_hash of seq - 1/);
    expect(() => insert({ seq: 2, prev_hash: row.entry_hash, session_id: 's', session_prev_seq: 1 })).toThrow(
      /session_prev_seq/,
    );
    expect(count(ledger.db)).toBe(1);
    ledger.close();
  });
});

describe('appending', () => {
  it('links seqs, prev_hash and per-session chains across interleaved sessions', () => {
    const ledger = openLedger(freshPath());
    const sessions = ['a', 'b', null, 'a', 'c', 'b', 'a', null];
    const results = sessions.map((s, i) => appendReceiptSync(ledger, { receipt: mixedReceipt(i), sessionId: s }));
    expect(results.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(results.map((r) => r.sessionPrevSeq)).toEqual([null, null, null, 1, null, 2, 4, null]);
    results.slice(1).forEach((r, i) => expect(r.prevHash).toBe(results[i]!.entryHash));
    expect(verifyChain(ledger)).toMatchObject({ ok: true, entries: 8, sessions: 3 });
    ledger.close();
  });

  it('refuses a receipt altered after signing, and appends nothing', () => {
    const ledger = openLedger(freshPath());
    appendReceiptSync(ledger, { receipt: mixedReceipt(1) });
    const altered = { ...mixedReceipt(2), tool_name: 'delete_everything' };
    expect(() => appendReceiptSync(ledger, { receipt: altered })).toThrowError(
      expect.objectContaining({ code: 'CHIO-RECEIPT-UNVERIFIED', message: expect.stringContaining('(id)') }),
    );
    const resigned = { ...mixedReceipt(3), signature: mixedReceipt(4).signature };
    expect(() => appendReceiptSync(ledger, { receipt: resigned })).toThrowError(
      expect.objectContaining({ message: expect.stringContaining('(signature)') }),
    );
    expect(() => appendReceiptSync(ledger, { receipt: { hello: 'world' } as never })).toThrowError(
      expect.objectContaining({ message: expect.stringContaining('(schema)') }),
    );
    expect(() => appendReceiptSync(ledger, { receipt: mixedReceipt(5), sessionId: '' })).toThrowError(
      expect.objectContaining({ code: 'CHIO-RECEIPT-INVALID' }),
    );
    expect(count(ledger.db)).toBe(1);
    expect(verifyChain(ledger)).toMatchObject({ ok: true, entries: 1 });
    ledger.close();
  });

  it('a copy of a signed receipt (not the signed object) is verified before it is appended, and accepted when valid', () => {
    const ledger = openLedger(freshPath());
    const copy = JSON.parse(JSON.stringify(mixedReceipt(7)));
    expect(appendReceiptSync(ledger, { receipt: copy }).seq).toBe(1);
    ledger.close();
  });

  it('refuses the same receipt twice, and the ledger stays verifiable', () => {
    const ledger = openLedger(freshPath());
    const r = signReceipt(allowDraft(1), testSigner, { nonce: 'same' });
    appendReceiptSync(ledger, { receipt: r });
    expect(() => appendReceiptSync(ledger, { receipt: r })).toThrowError(
      expect.objectContaining({ code: 'CHIO-LEDGER-DUPLICATE-RECEIPT' }),
    );
    expect(count(ledger.db)).toBe(1);
    expect(verifyChain(ledger)).toMatchObject({ ok: true });
    ledger.close();
  });

  it('two identical calls with different nonces get different ids', () => {
    const a = signReceipt(allowDraft(1), testSigner, { nonce: 'req-a' });
    const b = signReceipt(allowDraft(1), testSigner, { nonce: 'req-b' });
    expect(a.id).not.toBe(b.id);
    const c = signReceipt(allowDraft(1), testSigner);
    const d = signReceipt(allowDraft(1), testSigner);
    expect(c.id).not.toBe(d.id);
  });
});
