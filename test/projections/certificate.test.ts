// Compliance certificates over interleaved sessions: generation refuses every failure with its code, verification catches tampering, inspect shows verdicts.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson, fromHex, signerFromSeed, toHex } from '../../src/crypto/index.js';
import { appendReceiptSync, openLedger } from '../../src/ledger/index.js';
import { signReceipt } from '../../src/receipt/index.js';
import { chio, errorCode } from '../helpers/cli.js';
import { allowDraft, denyDraft, mixedReceipt, testSigner } from '../helpers/receipts.js';
import { tamperedCopy } from '../helpers/tamper.js';
import { tempDir } from '../helpers/tmp.js';
import { loadVector } from '../helpers/vectors.js';

const dir = tempDir();
const db = join(dir, 'certs.sqlite');
const kernelPub = join(dir, 'kernel.pub');
const authority = join(dir, 'authority.seed');
const authorityPub = join(dir, 'authority.pub');
// Two sessions interleaved with each other and with session-less entries.
const PLAN: Array<[string | null, 'allow' | 'deny']> = [
  ['a', 'allow'],
  ['b', 'allow'],
  [null, 'allow'],
  ['a', 'deny'],
  ['b', 'allow'],
  ['a', 'allow'],
  ['b', 'deny'],
  ['a', 'allow'],
];
let n = 0;

beforeAll(() => {
  const ledger = openLedger(db);
  PLAN.forEach(([s, v], i) =>
    appendReceiptSync(ledger, {
      receipt: signReceipt(v === 'allow' ? allowDraft(i) : denyDraft(i), testSigner, { nonce: `c-${i}` }),
      sessionId: s,
    }),
  );
  ledger.db.pragma('wal_checkpoint(TRUNCATE)');
  ledger.close();
  writeFileSync(kernelPub, `${testSigner.publicKeyHex}\n`);
  writeFileSync(authority, `${'ab'.repeat(32)}\n`);
  writeFileSync(authorityPub, `${signerFromSeed(fromHex('ab'.repeat(32))).publicKeyHex}\n`);
});

const gen = (session: string, extra: string[] = [], store = db) => {
  const out = join(dir, `cert-${++n}.json`);
  const r = chio([
    'cert',
    'generate',
    '--session-id',
    session,
    '--receipt-db',
    store,
    '--authority-seed-file',
    authority,
    '--output',
    out,
    ...extra,
  ]);
  return { ...r, out };
};
const verify = (cert: string, extra: string[] = []) =>
  chio([
    'cert',
    'verify',
    '--certificate',
    cert,
    '--trusted-kernel-pubkey',
    kernelPub,
    '--trusted-authority-pubkey',
    authorityPub,
    ...extra,
  ]);

describe('generate and verify', () => {
  it('each of two interleaved sessions gets a certificate that verifies with --full; generate prints nothing with --output', () => {
    for (const [session, count, first, last] of [
      ['a', 4, 1, 8],
      ['b', 3, 2, 7],
    ] as const) {
      const g = gen(session, [
        '--trusted-kernel-pubkey',
        kernelPub,
        '--required-guard',
        'forbidden-path',
        '--authorized-scope',
        'read_',
        '--budget-limit',
        '3',
      ]);
      expect(g.status, g.stderr).toBe(0);
      expect(g.stdout + g.stderr).toBe('');
      const cert = JSON.parse(readFileSync(g.out, 'utf8'));
      expect(cert.body).toMatchObject({
        schema: 'chio.compliance.certificate.v1',
        session_id: session,
        receipt_count: count,
        all_signatures_valid: true,
        chain_continuous: true,
        anomalies: [],
        kernel_key: testSigner.publicKeyHex,
        ledger_binding: { first_seq: first, last_seq: last },
      });
      expect(cert.signer_key).toBe(signerFromSeed(fromHex('ab'.repeat(32))).publicKeyHex);
      const v = verify(g.out, ['--full', '--receipt-db', db]);
      expect(v.status, v.stdout).toBe(0);
      expect(v.stdout).toBe(
        `PASS: certificate for session ${session} verified (${count} receipts, every receipt re-verified against the store)\n`,
      );
    }
  });
});

describe('generation refuses, with the right code', () => {
  it('an empty session: exactly the documented error', () => {
    const r = gen('demo-session');
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      'error[CHIO-CLI-SESSION-EMPTY]: no receipts found for session demo-session\n' +
        '  help: pass the --session-id of a session with receipts in the store\n' +
        '  code: urn:chio:error:cli:session-empty\n' +
        '  docs: https://chio.computer/docs/reference/errors#error-cli-session-empty\n',
    );
  });

  it('a receipt whose signature was altered', () => {
    const store = tamperedCopy(db, join(dir, 'sig.sqlite'), (d) => {
      const body = (d.prepare('SELECT body FROM ledger_entries WHERE seq = 6').get() as { body: string }).body;
      d.prepare('UPDATE ledger_entries SET body = ? WHERE seq = 6').run(
        body.replace(/("signature":"[0-9a-f]{127})([0-9a-f])/, (_, h, l) => h + (l === '0' ? '1' : '0')),
      );
    });
    expect(errorCode(gen('a', [], store).stderr)).toBe('CHIO-CERT-RECEIPT-INVALID');
  });

  it('a session entry deleted (triggers dropped)', () => {
    const store = tamperedCopy(db, join(dir, 'del.sqlite'), (d) =>
      d.prepare('DELETE FROM ledger_entries WHERE seq = 4').run(),
    );
    const r = gen('a', [], store);
    expect(errorCode(r.stderr)).toBe('CHIO-CERT-CHAIN-BROKEN');
    expect(r.stderr).toContain('seq 4 is missing (seq 6 links to it)');
  });

  it('a receipt out of scope, a budget exceeded, a required guard missing, an untrusted kernel key', () => {
    expect(errorCode(gen('a', ['--authorized-scope', 'write_']).stderr)).toBe('CHIO-CERT-SCOPE-VIOLATION');
    expect(errorCode(gen('a', ['--budget-limit', '2']).stderr)).toBe('CHIO-CERT-BUDGET-EXCEEDED');
    expect(errorCode(gen('a', ['--required-guard', 'secret-leak']).stderr)).toBe('CHIO-CERT-GUARD-BYPASS');
    const other = join(dir, 'other.pub');
    writeFileSync(other, `${signerFromSeed(fromHex('cd'.repeat(32))).publicKeyHex}\n`);
    const r = gen('a', ['--trusted-kernel-pubkey', other]);
    expect(r.status).toBe(1);
    expect(errorCode(r.stderr)).toBe('CHIO-CERT-UNTRUSTED-KERNEL-KEY');
  });
});

describe('verification catches', () => {
  const good = () => gen('b').out;
  const rewrite = (path: string, edit: (c: any) => void) => {
    const c = JSON.parse(readFileSync(path, 'utf8'));
    edit(c);
    writeFileSync(path, JSON.stringify(c));
    return path;
  };

  it('a flipped bit in the body', () => {
    const r = verify(rewrite(good(), (c) => (c.body.receipt_count ^= 1)));
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('FAIL: verification failed: certificate signature invalid\n');
  });

  it('a swapped signer key: an untrusted one is refused as such, a trusted one does not verify the signature', () => {
    const untrusted = signerFromSeed(fromHex('ef'.repeat(32))).publicKeyHex;
    expect(verify(rewrite(good(), (c) => (c.signer_key = untrusted))).stdout).toBe(
      `FAIL: verification failed: signer ${untrusted} is not a trusted kernel or authority key\n`,
    );
    expect(verify(rewrite(good(), (c) => (c.signer_key = testSigner.publicKeyHex))).stdout).toBe(
      'FAIL: verification failed: certificate signature invalid\n',
    );
  });

  it('a session that lost a receipt in the store after the certificate was issued (--full)', () => {
    const cert = good();
    const store = tamperedCopy(db, join(dir, 'lost.sqlite'), (d) => {
      d.prepare('DELETE FROM ledger_entries WHERE seq = 7').run(); // b's last receipt, and the projection forgets it too
      d.prepare("UPDATE ledger_sessions SET last_seq = 5, entry_count = 2 WHERE session_id = 'b'").run();
    });
    expect(verify(cert).status).toBe(0); // the certificate alone still checks out
    const r = verify(cert, ['--full', '--receipt-db', store]);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/^FAIL: verification failed: the store holds 2 receipts for session b, the certificate 3/);
  });

  it('a body with a failing verdict hand-written into it (validly signed); inspect shows the failing spellings', () => {
    const signer = signerFromSeed(fromHex('ab'.repeat(32)));
    const path = rewrite(good(), (c) => {
      c.body.chain_continuous = false;
      c.body.guards_compliant = false;
      c.body.anomalies = ['receipt 5 was hand-edited'];
      c.signature = toHex(signer.sign(canonicalJson(c.body)));
    });
    const r = verify(path);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(
      /^FAIL: verification failed: certificate records a failed check \(chain, guards, receipt 5 was hand-edited\)/,
    );
    const i = chio(['cert', 'inspect', '--certificate', path]);
    const lines = i.stdout.trimEnd().split('\n');
    expect(lines.map((l) => (l.startsWith('  - ') ? l : l.split(/\s{2,}|:\s/)[0]))).toEqual([
      'Session ID',
      'Schema',
      'Issued at',
      'Receipt count',
      'First receipt',
      'Last receipt',
      'Signatures',
      'Chain',
      'Scope',
      'Budget',
      'Guards',
      'Anomalies:',
      '  - receipt 5 was hand-edited',
      'Signer key',
      'Kernel key',
    ]);
    expect(i.stdout).toContain(
      '\nGuards:         BYPASSED\nAnomalies:\n  - receipt 5 was hand-edited\nSigner key:     ',
    );
    expect(i.stdout).toMatch(/Chain:\s+BROKEN\n/);
    expect(i.stdout).toMatch(/Guards:\s+BYPASSED\n/);
    expect(i.stdout).toMatch(/Signatures:\s+valid\n/);
  });

  it('inspect of a passing certificate: thirteen aligned lines with the passing spellings; --json prints the body', () => {
    const path = good();
    const lines = chio(['cert', 'inspect', '--certificate', path]).stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(13);
    const column = lines.map((l) => l.search(/(?<=:\s+)\S/));
    expect(new Set(column)).toEqual(new Set([16]));
    expect(lines[2]).toMatch(/^Issued at: {6}\d+$/); // Unix seconds, as the body holds them
    expect(lines.slice(6, 11).map((l) => l.split(/\s+/).at(-1))).toEqual([
      'valid',
      'continuous',
      'compliant',
      'compliant',
      'compliant',
    ]);
    expect(JSON.parse(chio(['cert', 'inspect', '--certificate', path, '--json']).stdout).session_id).toBe('b');
  });

  it('inspect prints the documented thirteen lines exactly: labels padded to 16 columns, times as Unix seconds', () => {
    // The golden vector's certificate, so the expected text is fixed byte for byte.
    const vector = loadVector<{ certificate: unknown }>('certificate/chio-certificate-v1.json');
    const path = join(dir, 'vector-cert.json');
    writeFileSync(path, JSON.stringify(vector.certificate));
    const r = chio(['cert', 'inspect', '--certificate', path]);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(
      [
        'Session ID:     sess-A',
        'Schema:         chio.compliance.certificate.v1',
        'Issued at:      1788700000',
        'Receipt count:  2',
        'First receipt:  1788608627',
        'Last receipt:   1788608629',
        'Signatures:     valid',
        'Chain:          continuous',
        'Scope:          compliant',
        'Budget:         compliant',
        'Guards:         compliant',
        'Signer key:     e7f162a10bec559afea195e4dce84b69568d5d2cb0963eb446c0685e2b17f2f0',
        'Kernel key:     79b5562e8fe654f94078b112e8a98ba7901f853ae695bed7e0e3910bad049664',
        '',
      ].join('\n'),
    );
  });

  it('--full without --receipt-db is refused with the documented error; a non-certificate is bad input', () => {
    const r = chio([
      'cert',
      'verify',
      '--certificate',
      good(),
      '--trusted-kernel-pubkey',
      kernelPub,
      '--trusted-authority-pubkey',
      authorityPub,
      '--full',
    ]);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      'error[CHIO-CLI-RECEIPT-STORE-REQUIRED]: full-bundle verification re-verifies every receipt signature and needs the receipt store\n' +
        '  help: pass --receipt-db <path>, or drop --full to check the certificate signature alone\n' +
        '  code: urn:chio:error:cli:receipt-store-required\n' +
        '  docs: https://chio.computer/docs/reference/errors#error-cli-receipt-store-required\n',
    );
    const junk = join(dir, 'junk.json');
    writeFileSync(junk, '{"body": {}}');
    expect(errorCode(verify(junk).stderr)).toBe('CHIO-CERT-INVALID');
    void mixedReceipt;
    void Database;
  });
});
