// Tampering with the ledger file (triggers dropped) makes `chio ledger verify` exit 1 and name the exact seq and check.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { fromHex, generateSeed, hashCanonical, signerFromSeed, toHex } from '../../src/crypto/index.js';
import { openLedger, appendReceiptSync } from '../../src/ledger/index.js';
import { bodyText, canonicalMembers, computeReceiptId, signedText } from '../../src/receipt/index.js';
import { chio } from '../helpers/cli.js';
import { rehashFrom, row, tamperedCopy } from '../helpers/tamper.js';
import type { Row } from '../helpers/tamper.js';
import { mixedReceipt, testSigner } from '../helpers/receipts.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir();
const pristine = join(dir, 'pristine.sqlite');
const kernelPub = join(dir, 'kernel.pub');
const SESSIONS = ['a', 'b', 'a', 'c', 'b', 'a', 'c', 'a', 'b', 'a'];
let copies = 0;

beforeAll(() => {
  const ledger = openLedger(pristine);
  SESSIONS.forEach((s, i) => appendReceiptSync(ledger, { receipt: mixedReceipt(i), sessionId: s }));
  ledger.db.pragma('wal_checkpoint(TRUNCATE)');
  ledger.close();
  writeFileSync(kernelPub, `${testSigner.publicKeyHex}\n`);
});

/** A copy of the pristine ledger with the triggers dropped, edited by `edit`. */
const tampered = (edit: (db: Database.Database) => void): string =>
  tamperedCopy(pristine, join(dir, `copy-${++copies}.sqlite`), edit);

function setBody(db: Database.Database, seq: number, receipt: Row): void {
  db.prepare('UPDATE ledger_entries SET body = ?, receipt_id = ?, kernel_key = ? WHERE seq = ?').run(
    bodyText(canonicalMembers(receipt)),
    receipt.id,
    receipt.kernel_key,
    seq,
  );
}

/** Seq 5's path rewritten with a matching parameter_hash and id (the signature no longer fits), the chain re-hashed. */
function editPathAndRehash(db: Database.Database, options: { subtrees?: boolean } = {}): void {
  const receipt = JSON.parse(row(db, 5).body);
  receipt.action.parameters.path = '/etc/shadow';
  receipt.action.parameter_hash = hashCanonical(receipt.action.parameters);
  receipt.id = computeReceiptId(canonicalMembers(receipt));
  setBody(db, 5, receipt);
  rehashFrom(db, 5, options);
}

function expectFail(path: string, seq: number | 'ledger', check: string, extra: string[] = []): void {
  const r = chio(['ledger', 'verify', '--receipt-db', path, ...extra]);
  expect(r.status, r.stdout + r.stderr).toBe(1);
  expect(r.stdout).toMatch(new RegExp(`^FAIL: ${seq === 'ledger' ? 'ledger' : `seq ${seq}`}: ${check}: `));
  const json = chio(['ledger', 'verify', '--receipt-db', path, '--json', ...extra]);
  expect(json.status).toBe(1);
  expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, seq: seq === 'ledger' ? null : seq, check });
}

describe('chio ledger verify on a tampered ledger', () => {
  it('the untouched ledger verifies (exit 0), with and without signatures', () => {
    for (const extra of [[], ['--no-signatures'], ['--trusted-kernel-pubkey', kernelPub]]) {
      const r = chio(['ledger', 'verify', '--receipt-db', pristine, ...extra]);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^OK: 10 entries verified, 3 sessions/);
    }
  });

  it('an edited body → entry_hash at that seq', () => {
    const path = tampered((db) => {
      const body = row(db, 4).body.replace('"tool_name":"', '"tool_name":"X');
      db.prepare('UPDATE ledger_entries SET body = ? WHERE seq = 4').run(body);
    });
    expectFail(path, 4, 'entry_hash');
    expectFail(path, 4, 'entry_hash', ['--no-signatures']);
  });

  it('an edited body with the chain re-hashed → receipt_id (the content no longer matches its id)', () => {
    const path = tampered((db) => {
      const body = row(db, 4).body.replace('"tool_name":"', '"tool_name":"X');
      db.prepare('UPDATE ledger_entries SET body = ? WHERE seq = 4').run(body);
      rehashFrom(db, 4);
    });
    expectFail(path, 4, 'receipt_id');
  });

  it('an edited body with a recomputed id and re-hashed chain → signature; --no-signatures cannot see it', () => {
    const path = tampered((db) => editPathAndRehash(db));
    expectFail(path, 5, 'signature');
    expect(chio(['ledger', 'verify', '--receipt-db', path, '--no-signatures']).status).toBe(0);
  });

  it('an edited prev_hash → prev_hash at that seq', () => {
    const path = tampered((db) =>
      db.prepare('UPDATE ledger_entries SET prev_hash = ? WHERE seq = 6').run('ab'.repeat(32)),
    );
    expectFail(path, 6, 'prev_hash');
  });

  it('an edited entry_hash → entry_hash at that seq', () => {
    const path = tampered((db) =>
      db.prepare('UPDATE ledger_entries SET entry_hash = ? WHERE seq = 6').run('cd'.repeat(32)),
    );
    expectFail(path, 6, 'entry_hash');
  });

  it('a deleted row → gap at its seq', () => {
    const path = tampered((db) => db.prepare('DELETE FROM ledger_entries WHERE seq = 7').run());
    expectFail(path, 7, 'gap');
  });

  it('the last row deleted → sessions_projection; with the projection rebuilt too, only an externally kept head reveals it', () => {
    const path = tampered((db) => db.prepare('DELETE FROM ledger_entries WHERE seq = 10').run());
    expectFail(path, 'ledger', 'sessions_projection');
    // A forger who also rebuilds the projection leaves a consistent, shorter chain. This is the
    // limit of any hash chain without an external anchor: verify prints the head so it can be kept.
    const db = new Database(path);
    db.exec('DELETE FROM ledger_sessions');
    db.close();
    expect(chio(['ledger', 'rebuild-projections', '--receipt-db', path]).status).toBe(0);
    const r = chio(['ledger', 'verify', '--receipt-db', path, '--json']);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, entries: 9, head: { seq: 9 } });
  });

  it('two rows swapped → prev_hash at the first of them', () => {
    const path = tampered((db) => {
      const r3 = row(db, 3);
      const r4 = row(db, 4);
      const cols = Object.keys(r3).filter((c) => c !== 'seq');
      const set = db.prepare(
        `UPDATE ledger_entries SET ${cols.map((c) => `${c} = @${c}`).join(', ')} WHERE seq = @seq`,
      );
      // Move both out of the way first: receipt_id and entry_hash are UNIQUE.
      db.prepare(
        "UPDATE ledger_entries SET receipt_id = 'tmp' || seq, entry_hash = printf('%064d', seq) WHERE seq IN (3, 4)",
      ).run();
      set.run({ ...r4, seq: 3 });
      set.run({ ...r3, seq: 4 });
    });
    expectFail(path, 3, 'prev_hash');
  });

  it('a receipt re-signed with another key and the chain re-hashed → untrusted_key when the kernel key is pinned', () => {
    const forger = signerFromSeed(generateSeed());
    const path = tampered((db) => {
      const receipt = JSON.parse(row(db, 8).body);
      receipt.kernel_key = forger.publicKeyHex;
      delete receipt.signature;
      delete receipt.id;
      const members = canonicalMembers(receipt);
      receipt.id = computeReceiptId(members);
      members.set('id', JSON.stringify(receipt.id));
      receipt.signature = toHex(forger.sign(signedText(members)));
      setBody(db, 8, receipt);
      rehashFrom(db, 8);
    });
    expectFail(path, 8, 'untrusted_key', ['--trusted-kernel-pubkey', kernelPub]);
    // Without a pinned key the forged signature is mathematically valid: verify passes but names both keys.
    const open = chio(['ledger', 'verify', '--receipt-db', path]);
    expect(open.status).toBe(0);
    expect(open.stdout).toContain(forger.publicKeyHex);
    expect(open.stdout).toContain(testSigner.publicKeyHex);
  });

  it('a re-signed receipt without re-hashing → entry_hash', () => {
    const forger = signerFromSeed(fromHex('11'.repeat(32)));
    const path = tampered((db) => {
      const receipt = JSON.parse(row(db, 2).body);
      receipt.kernel_key = forger.publicKeyHex;
      const members = canonicalMembers(receipt);
      receipt.id = computeReceiptId(members);
      members.set('id', JSON.stringify(receipt.id));
      receipt.signature = toHex(forger.sign(signedText(members)));
      setBody(db, 2, receipt);
    });
    expectFail(path, 2, 'entry_hash');
  });

  it('a session re-linked (session_prev_seq edited, chain re-hashed) → session_link at that seq', () => {
    const path = tampered((db) => {
      db.prepare('UPDATE ledger_entries SET session_prev_seq = 1 WHERE seq = 6').run(); // its real predecessor is seq 3
      rehashFrom(db, 6);
    });
    expectFail(path, 6, 'session_link');
  });

  it('a chain re-hashed without re-deriving the stored Merkle subtrees → subtrees, even with --no-signatures', () => {
    const path = tampered((db) => editPathAndRehash(db, { subtrees: false }));
    const r = chio(['ledger', 'verify', '--receipt-db', path, '--no-signatures']);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(
      /FAIL: ledger: subtrees: the stored subtree at level 1, index 2 does not match the entries/,
    );
  });

  it('a projected column edited → projection at that seq', () => {
    const path = tampered((db) => db.prepare("UPDATE ledger_entries SET tool_name = 'harmless' WHERE seq = 9").run());
    expectFail(path, 9, 'projection');
  });
});

describe('chio ledger verify on a tampered Merkle subtree table', () => {
  it('a subtree row rewritten with a text value or a fractional level is a subtrees failure (exit 1), not a crash', () => {
    for (const edit of [
      "UPDATE merkle_subtrees SET hash = printf('%032d', 7) WHERE level = 1 AND idx = 0",
      'UPDATE merkle_subtrees SET level = 1.5 WHERE level = 2 AND idx = 0',
    ]) {
      const path = tampered((db) => db.prepare(edit).run());
      const r = chio(['ledger', 'verify', '--receipt-db', path]);
      expect(r.status, r.stdout + r.stderr).toBe(1);
      expect(r.stdout).toMatch(/FAIL: ledger: subtrees: merkle_subtrees holds a malformed row/);
    }
  });
});
