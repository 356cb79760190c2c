// Certificates on both ledgers (an SQLite file, a PostgreSQL server) through the real CLI: the same receipts in the
// same sessions give the same certified body; --full re-verifies against either store; an operator who deletes a
// session's receipt (triggers disabled) gets no certificate, and a certificate issued before the deletion fails --full.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { fromHex, signerFromSeed } from '../../src/crypto/index.js';
import { appendAny, closeAnyLedger, isPostgresUrl, openAnyLedger } from '../../src/ledger/pg/index.js';
import { signReceipt } from '../../src/receipt/index.js';
import { ledgerExec } from '../helpers/any-ledger.js';
import { chio, errorCode } from '../helpers/cli.js';
import { freshPgDatabase } from '../helpers/postgres.js';
import { allowDraft, denyDraft, testSigner } from '../helpers/receipts.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir();
const kernelPub = join(dir, 'kernel.pub');
const authority = join(dir, 'authority.seed');
const authorityPub = join(dir, 'authority.pub');
// Two sessions interleaved with each other and with a session-less entry.
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
  writeFileSync(kernelPub, `${testSigner.publicKeyHex}\n`);
  writeFileSync(authority, `${'ab'.repeat(32)}\n`);
  writeFileSync(authorityPub, `${signerFromSeed(fromHex('ab'.repeat(32))).publicKeyHex}\n`);
});

async function planted(location: string): Promise<string> {
  const ledger = await openAnyLedger(location);
  try {
    await appendAny(
      ledger,
      PLAN.map(([s, v], i) => ({
        receipt: signReceipt(v === 'allow' ? allowDraft(i) : denyDraft(i), testSigner, { nonce: `c-${i}` }),
        sessionId: s,
      })),
    );
  } finally {
    await closeAnyLedger(ledger);
  }
  return location;
}

const gen = (store: string, session: string) => {
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
    '--trusted-kernel-pubkey',
    kernelPub,
    '--output',
    out,
    '--required-guard',
    'forbidden-path',
  ]);
  return { ...r, out };
};
const verifyFull = (cert: string, store: string) =>
  chio([
    'cert',
    'verify',
    '--certificate',
    cert,
    '--trusted-kernel-pubkey',
    kernelPub,
    '--trusted-authority-pubkey',
    authorityPub,
    '--full',
    '--receipt-db',
    store,
  ]);

const backends: Array<[string, () => Promise<string>]> = [
  ['SQLite', async () => join(dir, `certs-${++n}.sqlite`)],
  ['PostgreSQL', async () => (await freshPgDatabase()).url],
];

const bodies = new Map<string, unknown>();

describe.each(backends)('certificates on %s', (name, fresh) => {
  it('each interleaved session is certified with the same body on either store, and verifies with --full', async () => {
    const store = await planted(await fresh());
    for (const [session, count, first, last] of [
      ['a', 4, 1, 8],
      ['b', 3, 2, 7],
    ] as const) {
      const g = gen(store, session);
      expect(g.status, g.stderr).toBe(0);
      const cert = JSON.parse(readFileSync(g.out, 'utf8'));
      expect(cert.body).toMatchObject({
        session_id: session,
        receipt_count: count,
        chain_continuous: true,
        kernel_key: testSigner.publicKeyHex,
        ledger_binding: { first_seq: first, last_seq: last },
      });
      const { issued_at: _, ...body } = cert.body;
      const other = bodies.get(session);
      if (other === undefined) bodies.set(session, body);
      else expect(body, `${name} certifies session ${session} as the other store did`).toEqual(other);
      const v = verifyFull(g.out, store);
      expect(v.status, v.stdout + v.stderr).toBe(0);
      expect(v.stdout).toBe(
        `PASS: certificate for session ${session} verified (${count} receipts, every receipt re-verified against the store)\n`,
      );
    }
  });

  it('a session receipt deleted by the operator: no certificate, and the one issued before fails --full', async () => {
    const store = await planted(await fresh());
    const before = gen(store, 'a');
    expect(before.status, before.stderr).toBe(0);
    await ledgerExec(
      store,
      isPostgresUrl(store)
        ? 'ALTER TABLE ledger_entries DISABLE TRIGGER USER; DELETE FROM ledger_entries WHERE seq = 4'
        : 'DROP TRIGGER ledger_entries_no_delete; DELETE FROM ledger_entries WHERE seq = 4',
    );
    const after = gen(store, 'a');
    expect(after.status).toBe(1);
    expect(errorCode(after.stderr)).toBe('CHIO-CERT-CHAIN-BROKEN');
    expect(after.stderr).toContain('session entry seq 4 is missing (seq 6 links to it)');
    const v = verifyFull(before.out, store);
    expect(v.status).toBe(1);
    expect(v.stdout).toBe(
      'FAIL: verification failed: session chain broken in the store: session entry seq 4 is missing (seq 6 links to it)\n',
    );
    // The other session is untouched and still certified.
    expect(gen(store, 'b').status).toBe(0);
  });
});
