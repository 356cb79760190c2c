// Compliance certificates verify only under a signer the verifier trusts, and `cert generate` never creates a signing key:
// forged and re-signed certificates through the built CLI, authority and kernel signers, and the library API.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson, fromHex, generateSeed, signerFromSeed, toHex } from '../../src/crypto/index.js';
import type { Ed25519Signer } from '../../src/crypto/index.js';
import { isChioError } from '../../src/errors.js';
import { appendReceiptSync, openLedger } from '../../src/ledger/index.js';
import { generateCertificate, signCertificate, verifyCertificate } from '../../src/projections/certificate/index.js';
import type { Certificate } from '../../src/projections/certificate/index.js';
import { signReceipt } from '../../src/receipt/index.js';
import { chio, errorCode } from '../helpers/cli.js';
import { allowDraft, denyDraft, TEST_SEED_HEX, testSigner } from '../helpers/receipts.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('chio-cert-trust-');
const ledgerDir = join(dir, 'ledger');
const db = join(ledgerDir, 'receipts.sqlite');
const kernelSeed = join(dir, 'kernel.seed');
const kernelPub = join(dir, 'kernel.pub');
const authority = signerFromSeed(fromHex('ab'.repeat(32)));
const authoritySeed = join(dir, 'authority.seed');
const authorityPub = join(dir, 'authority.pub');
const other = signerFromSeed(fromHex('cd'.repeat(32)));
const otherSeed = join(dir, 'other.seed');
const otherPub = join(dir, 'other.pub');
let n = 0;

beforeAll(() => {
  mkdirSync(ledgerDir);
  const ledger = openLedger(db);
  for (let i = 0; i < 4; i++)
    appendReceiptSync(ledger, {
      receipt: signReceipt(i === 2 ? denyDraft(i) : allowDraft(i), testSigner, { nonce: `t-${i}` }),
      sessionId: 's',
    });
  ledger.close();
  writeFileSync(kernelSeed, `${TEST_SEED_HEX}\n`);
  writeFileSync(kernelPub, `${testSigner.publicKeyHex}\n`);
  writeFileSync(authoritySeed, `${'ab'.repeat(32)}\n`);
  writeFileSync(authorityPub, `${authority.publicKeyHex}\n`);
  writeFileSync(otherSeed, `${'cd'.repeat(32)}\n`);
  writeFileSync(otherPub, `${other.publicKeyHex}\n`);
});

const generate = (signerFlags: string[]): string => {
  const out = join(dir, `cert-${++n}.json`);
  const r = chio(['cert', 'generate', '--session-id', 's', '--receipt-db', db, ...signerFlags, '--output', out]);
  expect(r.status, r.stderr).toBe(0);
  return out;
};
const read = (path: string): Certificate => JSON.parse(readFileSync(path, 'utf8'));
const write = (cert: Certificate): string => {
  const path = join(dir, `edited-${++n}.json`);
  writeFileSync(path, `${JSON.stringify(cert, null, 2)}\n`);
  return path;
};
/** What an attacker does: edit the body, sign it with a key of their own and name that key. */
const forge = (cert: Certificate, key: Ed25519Signer, signerKey = key.publicKeyHex): Certificate => {
  const body = { ...cert.body, session_id: 'audited-and-clean', receipt_count: 1 };
  return { body, signer_key: signerKey, signature: toHex(key.sign(canonicalJson(body))) };
};
const verify = (cert: string, ...trust: string[]) => chio(['cert', 'verify', '--certificate', cert, ...trust]);
/** Exactly one FAIL line on stdout, nothing on stderr, exit 1. */
const expectFail = (r: ReturnType<typeof chio>, reason: string) => {
  expect(r.stderr).toBe('');
  expect(r.stdout).toBe(`FAIL: verification failed: ${reason}\n`);
  expect(r.status).toBe(1);
};

describe('cert verify trusts only the signers it is given', () => {
  it('a certificate signed by the kernel key (--kernel-seed-file) passes under --trusted-kernel-pubkey, light and --full', () => {
    const path = generate(['--kernel-seed-file', kernelSeed]);
    const cert = read(path);
    expect(cert.signer_key).toBe(testSigner.publicKeyHex);
    expect(cert.body.kernel_key).toBe(testSigner.publicKeyHex);
    const light = verify(path, '--trusted-kernel-pubkey', kernelPub);
    expect(light.status, light.stdout + light.stderr).toBe(0);
    expect(light.stdout).toBe('PASS: certificate for session s verified (4 receipts, signature and body only)\n');
    const full = verify(path, '--trusted-kernel-pubkey', kernelPub, '--full', '--receipt-db', db);
    expect(full.stdout).toBe(
      'PASS: certificate for session s verified (4 receipts, every receipt re-verified against the store)\n',
    );
  });

  it('a forged certificate (session_id and receipt_count changed, re-signed with a fresh key named as signer_key) fails, also next to another trusted authority', () => {
    const forger = signerFromSeed(generateSeed());
    const forged = write(forge(read(generate(['--kernel-seed-file', kernelSeed])), forger));
    const reason = `signer ${forger.publicKeyHex} is not a trusted kernel or authority key`;
    expectFail(verify(forged, '--trusted-kernel-pubkey', kernelPub), reason);
    expectFail(verify(forged, '--trusted-kernel-pubkey', kernelPub, '--trusted-authority-pubkey', otherPub), reason);
    expectFail(verify(forged, '--trusted-authority-pubkey', otherPub), reason);
    expectFail(verify(forged, '--trusted-kernel-pubkey', kernelPub, '--full', '--receipt-db', db), reason);
  });

  it("signer_key set to the trusted key while the signature is another key's: the signature does not verify", () => {
    const forger = signerFromSeed(generateSeed());
    const kernelSigned = read(generate(['--kernel-seed-file', kernelSeed]));
    expectFail(
      verify(write(forge(kernelSigned, forger, testSigner.publicKeyHex)), '--trusted-kernel-pubkey', kernelPub),
      'certificate signature invalid',
    );
    // An untouched body, a genuine authority signature, relabelled as the kernel's.
    const relabelled = {
      ...read(generate(['--authority-seed-file', authoritySeed])),
      signer_key: testSigner.publicKeyHex,
    };
    expectFail(verify(write(relabelled), '--trusted-kernel-pubkey', kernelPub), 'certificate signature invalid');
  });

  it('an authority-signed certificate passes only when the authority key is trusted', () => {
    const path = generate(['--authority-seed-file', authoritySeed, '--trusted-kernel-pubkey', kernelPub]);
    expect(read(path).signer_key).toBe(authority.publicKeyHex);
    expect(verify(path, '--trusted-authority-pubkey', authorityPub).status).toBe(0);
    expect(
      verify(
        path,
        '--trusted-authority-pubkey',
        otherPub,
        '--trusted-authority-pubkey',
        authorityPub,
        '--trusted-kernel-pubkey',
        kernelPub,
      ).status,
    ).toBe(0);
    const full = verify(
      path,
      '--trusted-authority-pubkey',
      authorityPub,
      '--trusted-kernel-pubkey',
      kernelPub,
      '--full',
      '--receipt-db',
      db,
    );
    expect(full.status, full.stdout).toBe(0);
    expectFail(
      verify(path, '--trusted-kernel-pubkey', kernelPub),
      `signer ${authority.publicKeyHex} is not a trusted kernel or authority key`,
    );
    expectFail(
      verify(path, '--trusted-authority-pubkey', otherPub),
      `signer ${authority.publicKeyHex} is not a trusted kernel or authority key`,
    );
    // Kernel keys named next to the authority pin the session's kernel.
    expectFail(
      verify(path, '--trusted-authority-pubkey', authorityPub, '--trusted-kernel-pubkey', otherPub),
      `kernel key ${testSigner.publicKeyHex} is not trusted`,
    );
  });

  it("a trusted kernel key signs certificates for its own sessions only, not for another trusted kernel's", () => {
    const cert = read(generate(['--kernel-seed-file', kernelSeed]));
    const byOther = write(signCertificate(cert.body, other));
    expectFail(
      verify(byOther, '--trusted-kernel-pubkey', kernelPub, '--trusted-kernel-pubkey', otherPub),
      `signer ${other.publicKeyHex} is a trusted kernel key but not the session's kernel (${testSigner.publicKeyHex}); a kernel key signs certificates for its own sessions only`,
    );
    // The same key trusted as an authority may.
    expect(verify(byOther, '--trusted-kernel-pubkey', kernelPub, '--trusted-authority-pubkey', otherPub).status).toBe(
      0,
    );
  });

  it('neither trust flag, or --full without a trusted kernel key: usage error (exit 2), nothing on stdout', () => {
    const path = generate(['--kernel-seed-file', kernelSeed]);
    for (const r of [
      verify(path),
      verify(path, '--full', '--receipt-db', db),
      verify(path, '--trusted-authority-pubkey', kernelPub, '--full', '--receipt-db', db),
    ]) {
      expect(r.status, r.stderr).toBe(2);
      expect(errorCode(r.stderr), r.stderr).toBe('CHIO-CLI-USAGE');
      expect(r.stdout).toBe('');
    }
    expect(verify(path).stderr).toContain('--trusted-kernel-pubkey or --trusted-authority-pubkey');
  });
});

describe('cert generate never creates a signing key', () => {
  /** Every file name and its digest in a directory. */
  const snapshot = (d: string) =>
    readdirSync(d)
      .sort()
      .map((f) => [
        f,
        createHash('sha256')
          .update(readFileSync(join(d, f)))
          .digest('hex'),
      ]);

  it('without --kernel-seed-file or --authority-seed-file: CHIO-CLI-CERT-SIGNER-REQUIRED (exit 2), no file created anywhere, the ledger unchanged', () => {
    const cwd = join(dir, 'cwd-empty');
    mkdirSync(cwd);
    const ledgerBefore = snapshot(ledgerDir);
    const out = join(cwd, 'cert.json');
    for (const extra of [['--output', out], [], ['--trusted-kernel-pubkey', kernelPub, '--json']]) {
      const r = chio(['cert', 'generate', '--session-id', 's', '--receipt-db', db, ...extra], { cwd });
      expect(r.status, r.stderr).toBe(2);
      expect(errorCode(r.stderr), r.stderr).toBe('CHIO-CLI-CERT-SIGNER-REQUIRED');
      expect(r.stderr).toContain('--kernel-seed-file');
      expect(r.stdout).toBe('');
    }
    expect(readdirSync(cwd)).toEqual([]);
    expect(existsSync(join(ledgerDir, '.chio-authority-seed'))).toBe(false);
    expect(snapshot(ledgerDir)).toEqual(ledgerBefore);
  });

  it('a .chio-authority-seed left in the working directory is not a signer: still refused, the file unread and unchanged', () => {
    const cwd = join(dir, 'cwd-old-seed');
    mkdirSync(cwd);
    writeFileSync(join(cwd, '.chio-authority-seed'), `${'ef'.repeat(32)}\n`);
    const before = snapshot(cwd);
    const r = chio(['cert', 'generate', '--session-id', 's', '--receipt-db', db, '--output', 'cert.json'], { cwd });
    expect(errorCode(r.stderr), r.stderr).toBe('CHIO-CLI-CERT-SIGNER-REQUIRED');
    expect(snapshot(cwd)).toEqual(before);
  });

  it('both seed flags: a usage error, nothing written', () => {
    const out = join(dir, 'both.json');
    const r = chio([
      'cert',
      'generate',
      '--session-id',
      's',
      '--receipt-db',
      db,
      '--kernel-seed-file',
      kernelSeed,
      '--authority-seed-file',
      authoritySeed,
      '--output',
      out,
    ]);
    expect(r.status).toBe(2);
    expect(errorCode(r.stderr), r.stderr).toBe('CHIO-CLI-USAGE');
    expect(existsSync(out)).toBe(false);
  });

  it('--kernel-seed-file of a key that did not sign the session is refused (CHIO-CERT-UNTRUSTED-KERNEL-KEY, exit 1), nothing written', () => {
    const out = join(dir, 'wrong-kernel.json');
    const r = chio([
      'cert',
      'generate',
      '--session-id',
      's',
      '--receipt-db',
      db,
      '--kernel-seed-file',
      otherSeed,
      '--output',
      out,
    ]);
    expect(r.status).toBe(1);
    expect(errorCode(r.stderr), r.stderr).toBe('CHIO-CERT-UNTRUSTED-KERNEL-KEY');
    expect(existsSync(out)).toBe(false);
  });
});

describe('the library: verification takes the trusted keys, generation a named signer', () => {
  const withLedger = <T>(f: (l: ReturnType<typeof openLedger>) => T): T => {
    const ledger = openLedger(db, { readonly: true });
    try {
      return f(ledger);
    } finally {
      ledger.close();
    }
  };

  it('verifyCertificate accepts a signer only from the keys passed; with none it passes nothing', () => {
    const cert = withLedger((ledger) =>
      generateCertificate(ledger, { sessionId: 's', signer: { role: 'kernel', key: testSigner } }),
    );
    const kernels = new Set([testSigner.publicKeyHex]);
    expect(verifyCertificate(cert, { trustedKernelKeys: kernels })).toEqual({ passed: true, full: false });
    expect(withLedger((ledger) => verifyCertificate(cert, { trustedKernelKeys: kernels, ledger }))).toEqual({
      passed: true,
      full: true,
    });
    expect(verifyCertificate(cert, {})).toMatchObject({
      passed: false,
      reason: expect.stringContaining('no trusted kernel or authority key'),
    });
    const forger = signerFromSeed(generateSeed());
    expect(
      verifyCertificate(forge(cert, forger), {
        trustedKernelKeys: kernels,
        trustedAuthorityKeys: new Set([authority.publicKeyHex]),
      }),
    ).toEqual({
      passed: false,
      reason: `signer ${forger.publicKeyHex} is not a trusted kernel or authority key`,
    });
    // Full verification needs the kernel pinned, even when the signer is a trusted authority.
    const byAuthority = withLedger((ledger) =>
      generateCertificate(ledger, { sessionId: 's', signer: { role: 'authority', key: authority } }),
    );
    expect(verifyCertificate(byAuthority, { trustedAuthorityKeys: new Set([authority.publicKeyHex]) })).toEqual({
      passed: true,
      full: false,
    });
    expect(
      withLedger((ledger) =>
        verifyCertificate(byAuthority, { trustedAuthorityKeys: new Set([authority.publicKeyHex]), ledger }),
      ),
    ).toMatchObject({ passed: false });
  });

  it('generateCertificate with a kernel signer refuses a session that signer did not sign', () => {
    let thrown: unknown;
    try {
      withLedger((ledger) => generateCertificate(ledger, { sessionId: 's', signer: { role: 'kernel', key: other } }));
    } catch (e) {
      thrown = e;
    }
    expect(isChioError(thrown) && thrown.code).toBe('CHIO-CERT-UNTRUSTED-KERNEL-KEY');
  });
});
