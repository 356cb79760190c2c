/**
 * The golden vectors, checked by a program in another language: test/vectors/check_vectors.py
 * (Python 3.11, standard library only, its own RFC 8785 serializer and RFC 8032 Ed25519).
 * python3 is part of this machine's image, so a missing interpreter fails the test instead of
 * skipping it: a silent skip would leave the cross-language check unrun.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const vectorsDir = fileURLToPath(new URL('./', import.meta.url));
const CHECKER = 'test/vectors/check_vectors.py';
const SUMMARY = /^(\d+) passed, (\d+) failed$/m;

function runChecker(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync('python3', [CHECKER, ...args], { cwd: repoRoot, encoding: 'utf8', timeout: 60_000 });
  if (result.error) {
    const code = (result.error as NodeJS.ErrnoException).code;
    throw new Error(
      code === 'ENOENT'
        ? 'python3 was not found on PATH. The cross-language vector check needs Python 3.11 ' +
            '(part of this machine\'s image); install python3 rather than skipping this test.'
        : `could not run python3 ${CHECKER}: ${result.error.message}`,
    );
  }
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function summary(stdout: string): { passed: number; failed: number } {
  const m = SUMMARY.exec(stdout);
  if (!m) throw new Error(`the checker printed no "N passed, M failed" line:\n${stdout}`);
  return { passed: Number(m[1]), failed: Number(m[2]) };
}

describe('golden vectors checked by an independent Python program', () => {
  it('check_vectors.py passes every check on test/vectors', () => {
    const { status, stdout, stderr } = runChecker();
    expect(stderr, stdout).toBe('');
    expect(status, stdout).toBe(0);
    const { passed, failed } = summary(stdout);
    expect(passed).toBeGreaterThan(0);
    expect(failed).toBe(0);
    // The closing line is exactly "N passed, 0 failed".
    expect(stdout.trimEnd().split('\n').at(-1)).toBe(`${passed} passed, 0 failed`);
  });

  it('check_vectors.py fails when one hex character of the allow signature is flipped', () => {
    const dir = mkdtempSync(join(tmpdir(), 'chio-vectors-'));
    try {
      cpSync(vectorsDir, dir, { recursive: true });
      const file = join(dir, 'receipt', 'chio-v1.json');
      const vectors = JSON.parse(readFileSync(file, 'utf8'));
      const original: string = vectors.receipts.allow.signature;
      const flipped = original.slice(0, 10) + (parseInt(original[10]!, 16) ^ 1).toString(16) + original.slice(11);
      expect(flipped).not.toBe(original);
      expect(flipped).toHaveLength(128);
      vectors.receipts.allow.signature = flipped;
      vectors.receipts.allow.receipt.signature = flipped;
      writeFileSync(file, JSON.stringify(vectors, null, 2));

      const { status, stdout } = runChecker(dir);
      expect(status, stdout).toBe(1);
      const { failed } = summary(stdout);
      expect(failed).toBeGreaterThan(0);
      expect(stdout).toMatch(/^FAIL receipt allow:/m);
      expect(stdout).toContain('signature verifies under kernel_key: Ed25519 verify failed');
      // The other receipts are untouched and still pass.
      expect(stdout).toMatch(/^ok {3}receipt deny:/m);
      expect(stdout).toMatch(/^ok {3}receipt trace_observation:/m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
