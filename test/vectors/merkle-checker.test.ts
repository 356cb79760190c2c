// The Merkle vectors checked by an independent Python program (test/vectors/check_merkle.py, standard
// library only, its own RFC 6962 / RFC 9162 code): it passes on the committed vectors, and it fails,
// naming what is wrong, on copies corrupted the ways a broken implementation or a tampered file would be.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const vectorsDir = fileURLToPath(new URL('./', import.meta.url));
const CHECKER = 'test/vectors/check_merkle.py';
const SUMMARY = /^(\d+) passed, (\d+) failed$/m;

function runChecker(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync('python3', [CHECKER, ...args], { cwd: repoRoot, encoding: 'utf8', timeout: 60_000 });
  if (result.error) {
    const code = (result.error as NodeJS.ErrnoException).code;
    throw new Error(
      code === 'ENOENT'
        ? 'python3 was not found on PATH. The Merkle vector check needs Python 3.11 (part of this machine\'s image); install python3 rather than skipping this test.'
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

/** Runs the checker on a copy of merkle/ and receipt/ after `corrupt` has edited the copy. */
function runOnCorruptedCopy(corrupt: (dir: string) => void): { status: number | null; stdout: string } {
  const dir = mkdtempSync(join(tmpdir(), 'chio-merkle-vectors-'));
  try {
    cpSync(join(vectorsDir, 'merkle'), join(dir, 'merkle'), { recursive: true });
    cpSync(join(vectorsDir, 'receipt'), join(dir, 'receipt'), { recursive: true });
    corrupt(dir);
    return runChecker(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function editJson(file: string, edit: (v: any) => void): void {
  const v = JSON.parse(readFileSync(file, 'utf8'));
  edit(v);
  writeFileSync(file, JSON.stringify(v, null, 2));
}

/** `hex` with its character at `i` changed to another hex digit. */
function flipHexChar(hex: string, i: number): string {
  const flipped = hex.slice(0, i) + (parseInt(hex[i]!, 16) ^ 1).toString(16) + hex.slice(i + 1);
  expect(flipped).not.toBe(hex);
  return flipped;
}

describe('Merkle vectors checked by an independent Python program', () => {
  it('check_merkle.py passes every check on test/vectors', () => {
    const { status, stdout, stderr } = runChecker();
    expect(stderr, stdout).toBe('');
    expect(status, stdout).toBe(0);
    const { passed, failed } = summary(stdout);
    expect(failed).toBe(0);
    expect(passed).toBeGreaterThan(300);
    for (const group of [
      /^ok {3}self-test: /m,
      /^ok {3}transparency-dev testonly\/constants\.go: /m,
      /^ok {3}transparency-dev testdata\/inclusion: 98 probes: 99\/99 checks passed$/m,
      /^ok {3}transparency-dev testdata\/consistency: 98 probes: 100\/100 checks passed$/m,
      /^ok {3}chio-merkle-v1: leaves, subtrees and roots: /m,
      /^ok {3}chio-merkle-v1: inclusion proofs /m,
      /^ok {3}chio-merkle-v1: consistency proofs /m,
    ]) {
      expect(stdout).toMatch(group);
    }
    expect(stdout.trimEnd().split('\n').at(-1)).toBe(`${passed} passed, 0 failed`);
  });

  it('fails on one hex character changed in an inclusion proof, naming the proof', () => {
    const { status, stdout } = runOnCorruptedCopy((dir) =>
      editJson(join(dir, 'merkle/chio-merkle-v1.json'), (v) => {
        const p = v.inclusion_proofs.find((x: any) => x.leaf_index === 0 && x.tree_size === 3);
        p.hashes[1] = flipHexChar(p.hashes[1], 20);
      }),
    );
    expect(status, stdout).toBe(1);
    expect(summary(stdout).failed).toBeGreaterThan(0);
    expect(stdout).toMatch(/^FAIL chio-merkle-v1: inclusion proofs/m);
    expect(stdout).toContain('leaf 0 in size 3: hashes = PATH(m, D[n])');
    expect(stdout).toContain('leaf 0 in size 3: verifies against the root of size 3');
    expect(stdout).toMatch(/^ok {3}chio-merkle-v1: consistency proofs/m);
  });

  it('fails on a changed root, a leaf that is not the ledger entry, or a missing consistency proof', () => {
    const root = runOnCorruptedCopy((dir) =>
      editJson(join(dir, 'merkle/chio-merkle-v1.json'), (v) => {
        v.roots[2].root = flipHexChar(v.roots[2].root, 63);
      }),
    );
    expect(root.status, root.stdout).toBe(1);
    expect(root.stdout).toContain('root of size 3 = MTH');

    const leaf = runOnCorruptedCopy((dir) =>
      editJson(join(dir, 'merkle/chio-merkle-v1.json'), (v) => {
        v.leaves[1].entry_hash = flipHexChar(v.leaves[1].entry_hash, 0);
      }),
    );
    expect(leaf.status, leaf.stdout).toBe(1);
    expect(leaf.stdout).toContain('leaves are the entry hashes of receipt/chio-v1.json in seq order');

    const missing = runOnCorruptedCopy((dir) =>
      editJson(join(dir, 'merkle/chio-merkle-v1.json'), (v) => {
        v.consistency_proofs = v.consistency_proofs.filter((p: any) => !(p.old_size === 2 && p.new_size === 3));
      }),
    );
    expect(missing.status, missing.stdout).toBe(1);
    expect(missing.stdout).toContain('one proof for every pair 1 <= old_size <= new_size <= n');
  });

  it('fails when a published probe is edited to claim that a bad proof verifies', () => {
    const { status, stdout } = runOnCorruptedCopy((dir) =>
      editJson(join(dir, 'merkle/transparency-dev/testdata/inclusion/1/wrong-leaf.json'), (v) => {
        v.wantErr = false;
      }),
    );
    expect(status, stdout).toBe(1);
    expect(stdout).toMatch(/^FAIL transparency-dev testdata\/inclusion/m);
    expect(stdout).toContain('1/wrong-leaf.json (wrong leaf): verifies: got refused');
    expect(stdout).toMatch(/^ok {3}transparency-dev testdata\/consistency/m);
  });

  it('fails, and says so, when the vectors cannot be read', () => {
    const { status, stdout } = runOnCorruptedCopy((dir) => rmSync(join(dir, 'merkle/chio-merkle-v1.json')));
    expect(status).toBe(1);
    expect(stdout).toContain('cannot read the vectors under');
    expect(stdout.trimEnd().split('\n').at(-1)).toBe('0 passed, 1 failed');
  });
});
