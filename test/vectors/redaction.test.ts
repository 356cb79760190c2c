// The salted parameter_hash golden vector: the kernel's draft builder reproduces
// test/vectors/redaction/chio-redaction-v1.json byte for byte; the construction is recomputed here
// with node:crypto directly (not the product's functions); and the Python checker fails on a copy
// whose salt or hash is changed.
import { spawnSync } from 'node:child_process';
import { createHash, createHmac } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/crypto/index.js';
import { checkDisclosure, verifyReceipt } from '../../src/receipt/index.js';
import { loadVector } from '../helpers/vectors.js';
import { buildRedactionVectors } from './redaction-vectors.js';

const FILE = new URL('./redaction/chio-redaction-v1.json', import.meta.url);
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const vectorsDir = fileURLToPath(new URL('./', import.meta.url));

function python(dir: string): { status: number | null; stdout: string } {
  const r = spawnSync('python3', ['test/vectors/check_vectors.py', dir], { cwd: repoRoot, encoding: 'utf8', timeout: 60_000 });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout };
}

describe('salted parameter_hash golden vector', () => {
  if (process.env['CHIO_WRITE_VECTORS'] === '1') {
    mkdirSync(new URL('./redaction/', import.meta.url), { recursive: true });
    writeFileSync(FILE, `${JSON.stringify(buildRedactionVectors(), null, 2)}\n`);
  }
  const committed = JSON.parse(readFileSync(FILE, 'utf8'));

  it('is reproduced byte for byte by the kernel\'s draft builder and redaction key', () => {
    expect(JSON.parse(JSON.stringify(buildRedactionVectors()))).toEqual(committed);
  });

  it('recomputed with node:crypto alone: key id, salt, salted hash; the unsalted hash differs', () => {
    const key = Buffer.from(committed.redaction_key_hex, 'hex');
    expect(committed.key_id).toBe(createHmac('sha256', key).update('chio.redaction-key-id.v1').digest('hex'));
    for (const [name, v] of Object.entries<any>(committed.receipts)) {
      const r = v.receipt;
      const saltInput = `{"capability_id":${JSON.stringify(r.capability_id)},"purpose":"chio.parameter-salt.v1","signing_nonce":${JSON.stringify(r.metadata.chio_receipt_signing_nonce)},"timestamp":${r.timestamp}}`;
      expect(v.salt_input_jcs, name).toBe(saltInput);
      const salt = createHmac('sha256', key).update(saltInput).digest('hex');
      expect(v.salt, name).toBe(salt);
      const hash = createHash('sha256').update(`{"parameters":${canonicalJson(committed.original_parameters)},"salt":"${salt}"}`).digest('hex');
      expect(r.action.parameter_hash, name).toBe(hash);
      expect(r.action.parameter_hash, name).not.toBe(v.unsalted_hash_of_original);
      expect(r.metadata.chio_parameter_salt, name).toEqual({ key_id: committed.key_id, scheme: 'chio.parameter-salt.v1' });
      expect(JSON.stringify(r), name).not.toContain(salt);
      expect(JSON.stringify(r), name).not.toContain(committed.redaction_key_hex);
      expect(JSON.stringify(r), name).not.toContain('hunter2');
      expect(verifyReceipt(r).ok, name).toBe(true);
      expect(checkDisclosure(r, salt, committed.original_parameters), name).toEqual({ ok: true, parameterHash: hash });
      expect(checkDisclosure(r, salt, { ...committed.original_parameters, password: 'hunter3' }).ok, name).toBe(false);
    }
    expect(committed.receipts.redacted.receipt.action.parameters).toEqual({ user: 'ada', password: '[REDACTED]', host: 'db.internal.example' });
    expect(committed.receipts.summary.receipt.action.parameters).toBeNull();
  });

  it('the Python checker passes the vector and fails a copy whose salt, or whose receipt\'s hash, was changed', () => {
    const ok = python(vectorsDir);
    expect(ok.status, ok.stdout).toBe(0);
    expect(ok.stdout).toMatch(/^ok {3}redaction redacted: salted parameter_hash: 1[0-9]\/1[0-9] checks passed$/m);
    expect(ok.stdout).toMatch(/^ok {3}redaction summary: salted parameter_hash:/m);
    expect(loadVector('redaction/chio-redaction-v1.json')).toEqual(committed);

    const dir = mkdtempSync(join(tmpdir(), 'chio-redaction-vectors-'));
    try {
      cpSync(vectorsDir, dir, { recursive: true });
      const file = join(dir, 'redaction', 'chio-redaction-v1.json');
      const flip = (hex: string) => hex.slice(0, 5) + (parseInt(hex[5]!, 16) ^ 1).toString(16) + hex.slice(6);
      const v = JSON.parse(readFileSync(file, 'utf8'));
      v.receipts.redacted.salt = flip(v.receipts.redacted.salt);
      writeFileSync(file, JSON.stringify(v, null, 2));
      const badSalt = python(dir);
      expect(badSalt.status, badSalt.stdout).toBe(1);
      expect(badSalt.stdout).toMatch(/^FAIL redaction redacted: salted parameter_hash:/m);
      expect(badSalt.stdout).toContain('salt = HMAC-SHA-256(key, salt_input_jcs)');
      expect(badSalt.stdout).toMatch(/^ok {3}redaction summary: salted parameter_hash:/m);

      // An unsalted hash in the receipt (what chio wrote before salting), re-signed nowhere: the
      // checker names the broken signature and the salted-hash rule.
      const w = JSON.parse(readFileSync(file, 'utf8'));
      w.receipts.redacted.salt = committed.receipts.redacted.salt;
      w.receipts.summary.receipt.action.parameter_hash = w.receipts.summary.unsalted_hash_of_original;
      writeFileSync(file, JSON.stringify(w, null, 2));
      const unsalted = python(dir);
      expect(unsalted.status, unsalted.stdout).toBe(1);
      expect(unsalted.stdout).toMatch(/^ok {3}redaction redacted: salted parameter_hash:/m);
      expect(unsalted.stdout).toMatch(/^FAIL redaction summary: salted parameter_hash:/m);
      expect(unsalted.stdout).toContain('parameter_hash is not the unsalted H(original) (no word list can be tried against it): parameter_hash is unsalted');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
