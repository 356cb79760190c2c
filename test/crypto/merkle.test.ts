// RFC 6962 tree math against the RFC's own recursive definitions (test/crypto/merkle-reference.ts):
// every root, inclusion proof and consistency proof of every tree of 1..64 leaves, each verified, and
// each mutated the ways an attacker would (flipped bit, extra or missing hash, another index or size
// with that size's genuine root, wrong root) and refused; the same as a fast-check property on larger
// trees; the append bookkeeping (completedSubtrees, MemoryMerkleTree).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  completedSubtrees,
  consistencyProof,
  EMPTY_TREE_ROOT,
  inclusionProof,
  MemoryMerkleTree,
  merkleLeafHash,
  merkleNodeHash,
  merkleRoot,
  naiveMerkleRoot,
  verifyConsistency,
  verifyInclusion,
} from '../../src/crypto/index.js';
import type { SubtreeReader } from '../../src/crypto/index.js';
import { flipBit, hex, refLeafHash, refMTH, refNodeHash, refPATH, refPROOF, sha256 } from './merkle-reference.js';

const MAX = 128;
const leafInput = (i: number): Uint8Array => sha256(new TextEncoder().encode(`entry ${i}`));
const LEAVES = Array.from({ length: MAX }, (_, i) => refLeafHash(leafInput(i)));
const TREE = new MemoryMerkleTree();
for (const l of LEAVES) TREE.append(l);
const ROOTS = Array.from({ length: MAX + 1 }, (_, n) => refMTH(LEAVES.slice(0, n)));

/** TREE's reader, failing the test if a builder asks for a subtree not wholly inside the first `size` leaves. */
function readerFor(size: number): SubtreeReader {
  return (level, index) => {
    const end = (index + 1) * 2 ** level;
    if (!Number.isSafeInteger(level) || !Number.isSafeInteger(index) || level < 0 || index < 0 || end > size) {
      throw new Error(`read(${level}, ${index}) is outside the tree of size ${size}`);
    }
    return TREE.read(level, index);
  };
}

const hexes = (hs: readonly Uint8Array[]): string[] => hs.map(hex);
const same = (a: readonly Uint8Array[], b: readonly Uint8Array[]): boolean => hexes(a).join() === hexes(b).join();

/**
 * Collects failed expectations (one expect() per check would dominate the run time) and asserts at the
 * end that there were none, and that the expected number of genuine proofs was examined.
 */
function collector(): { want: (ok: boolean, label: () => string) => void; done: (proofs: number) => void } {
  const failures: string[] = [];
  let checks = 0;
  return {
    want(ok, label) {
      checks++;
      if (!ok) failures.push(label());
    },
    done(proofs) {
      expect(failures).toEqual([]);
      expect(checks).toBeGreaterThan(proofs * 10);
    },
  };
}
const OTHER = sha256(new TextEncoder().encode('not in any tree'));

/** Every way of tampering with a proof that must make verification fail. */
function tamperedProofs(proof: readonly Uint8Array[]): Array<[string, Uint8Array[]]> {
  const out: Array<[string, Uint8Array[]]> = [];
  for (let i = 0; i < proof.length; i++) {
    for (const bit of [0, 255])
      out.push([`bit ${bit} of hash ${i}`, proof.map((x, j) => (j === i ? flipBit(x, bit) : x))]);
  }
  out.push(['extra hash at the end', [...proof, OTHER]]);
  out.push(['extra hash at the start', [OTHER, ...proof]]);
  if (proof.length > 0) {
    out.push(['last hash repeated', [...proof, proof.at(-1)!]]);
    out.push(['last hash missing', proof.slice(0, -1)]);
    out.push(['first hash missing', proof.slice(1)]);
  }
  if (proof.length > 1) out.push(['two hashes swapped', [proof[1]!, proof[0]!, ...proof.slice(2)]]);
  return out;
}

describe('hashes', () => {
  it('EMPTY_TREE_ROOT is SHA-256 of nothing; leaf and node hashes carry the 0x00 / 0x01 domain bytes', () => {
    expect(hex(EMPTY_TREE_ROOT)).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    const a = leafInput(1);
    const b = leafInput(2);
    expect(hex(merkleLeafHash(a))).toBe(hex(sha256(Uint8Array.of(0), a)));
    expect(hex(merkleNodeHash(a, b))).toBe(hex(sha256(Uint8Array.of(1), a, b)));
    // Second-preimage resistance between levels: a node is never a leaf of the same bytes.
    expect(hex(merkleLeafHash(new Uint8Array([...a, ...b])))).not.toBe(hex(merkleNodeHash(a, b)));
    expect(merkleLeafHash(a)).toBeInstanceOf(Uint8Array);
    expect(merkleLeafHash(a)).toHaveLength(32);
  });

  it('merkleRoot of size 0 is the empty root and reads nothing; naiveMerkleRoot agrees with the RFC text', () => {
    expect(
      hex(
        merkleRoot(0, () => {
          throw new Error('no read expected');
        }),
      ),
    ).toBe(hex(EMPTY_TREE_ROOT));
    for (let n = 0; n <= 20; n++) expect(hex(naiveMerkleRoot(LEAVES.slice(0, n))), `n=${n}`).toBe(hex(ROOTS[n]!));
  });
});

describe('every tree of 1..64 leaves against RFC 6962 §2.1', () => {
  it('roots, every inclusion proof, verified; tampered proofs, other indexes and sizes, wrong roots refused', () => {
    const { want, done } = collector();
    for (let n = 1; n <= 64; n++) {
      const leaves = LEAVES.slice(0, n);
      const root = merkleRoot(n, readerFor(n));
      want(hex(root) === hex(ROOTS[n]!), () => `root n=${n}`);
      for (let m = 0; m < n; m++) {
        const proof = inclusionProof(m, n, readerFor(n));
        want(same(proof, refPATH(m, leaves)), () => `PATH(${m}, ${n})`);
        want(verifyInclusion(LEAVES[m]!, m, n, proof, root), () => `verify ${m} in ${n}`);
        for (const [what, bad] of tamperedProofs(proof)) {
          want(!verifyInclusion(LEAVES[m]!, m, n, bad, root), () => `${what}: leaf ${m} in ${n}`);
        }
        // Another leaf's hash, the right leaf at another index, or a size whose genuine root the proof does not reach.
        want(
          !verifyInclusion(LEAVES[(m + 1) % MAX]!, m, n, proof, root),
          () => `leaf ${m} in ${n}: another leaf's hash`,
        );
        want(
          !verifyInclusion(leafInput(m), m, n, proof, root),
          () => `leaf ${m} in ${n}: the leaf input instead of its leaf hash`,
        );
        for (const other of [m - 1, m + 1, m ^ 1, m + n, n, -1]) {
          if (other !== m)
            want(!verifyInclusion(LEAVES[m]!, other, n, proof, root), () => `leaf ${m} claimed at ${other} in ${n}`);
        }
        for (const size of [n - 1, n + 1, 2 * n, n + 2]) {
          if (size > m && size <= MAX && size !== n) {
            want(
              !verifyInclusion(LEAVES[m]!, m, size, proof, ROOTS[size]!),
              () => `leaf ${m}: proof for ${n} against the root of ${size}`,
            );
          }
        }
        for (const wrong of [flipBit(root, 3), ROOTS[n - 1]!, ROOTS[n + 1]!, EMPTY_TREE_ROOT, LEAVES[m]!]) {
          if (!(n === 1 && wrong === LEAVES[m]))
            want(
              !verifyInclusion(LEAVES[m]!, m, n, proof, wrong),
              () => `leaf ${m} in ${n}: wrong root ${hex(wrong).slice(0, 8)}`,
            );
        }
      }
    }
    done((64 * 65) / 2);
  });

  it('every consistency proof (all old sizes 1..n), verified; tampered proofs, other sizes, swapped or wrong roots refused', () => {
    const { want, done } = collector();
    for (let n = 1; n <= 64; n++) {
      const leaves = LEAVES.slice(0, n);
      for (let m = 1; m <= n; m++) {
        const proof = consistencyProof(m, n, readerFor(n));
        want(same(proof, refPROOF(m, leaves)), () => `PROOF(${m}, ${n})`);
        if (m === n) want(proof.length === 0, () => `PROOF(${m}, ${m}) is empty`);
        want(verifyConsistency(m, n, proof, ROOTS[m]!, ROOTS[n]!), () => `verify ${m} → ${n}`);
        for (const [what, bad] of tamperedProofs(proof)) {
          want(!verifyConsistency(m, n, bad, ROOTS[m]!, ROOTS[n]!), () => `${what}: ${m} → ${n}`);
        }
        for (const [m2, n2] of [
          [m - 1, n],
          [m + 1, n],
          [m, n + 1],
          [m, n - 1],
          [m + 1, n + 1],
          [m - 1, n - 1],
          [2 * m, n],
          [m, 2 * n],
        ] as const) {
          // (An empty proof between equal sizes is the genuine one for any size.)
          if (m2 >= 1 && m2 <= n2 && n2 <= MAX && (m2 !== m || n2 !== n) && !(m2 === n2 && proof.length === 0)) {
            want(!verifyConsistency(m2, n2, proof, ROOTS[m2]!, ROOTS[n2]!), () => `proof ${m} → ${n} as ${m2} → ${n2}`);
          }
        }
        if (m !== n) {
          want(!verifyConsistency(m, n, proof, ROOTS[n]!, ROOTS[m]!), () => `${m} → ${n}: swapped roots`);
          want(
            !verifyConsistency(m, n, proof, flipBit(ROOTS[m]!, 200), ROOTS[n]!),
            () => `${m} → ${n}: wrong old root`,
          );
          want(!verifyConsistency(m, n, proof, ROOTS[m]!, flipBit(ROOTS[n]!, 9)), () => `${m} → ${n}: wrong new root`);
          // A new tree that rewrote leaf m−1 (inside the old tree) is not an extension of it.
          const forked = refMTH([...leaves.slice(0, m - 1), OTHER, ...leaves.slice(m)]);
          want(!verifyConsistency(m, n, proof, ROOTS[m]!, forked), () => `${m} → ${n}: forked history`);
        } else {
          want(
            !verifyConsistency(m, n, [], ROOTS[m]!, flipBit(ROOTS[m]!, 1)),
            () => `${m} → ${n}: equal sizes, different roots`,
          );
          want(
            !verifyConsistency(m, n, [ROOTS[m]!], ROOTS[m]!, ROOTS[m]!),
            () => `${m} → ${n}: equal sizes, non-empty proof`,
          );
        }
      }
    }
    done((64 * 65) / 2);
  });

  it('a consistency proof from 0 is refused; an equal-size proof is empty and needs equal roots', () => {
    expect(verifyConsistency(0, 5, [], EMPTY_TREE_ROOT, ROOTS[5]!)).toBe(false);
    expect(verifyConsistency(0, 0, [], EMPTY_TREE_ROOT, EMPTY_TREE_ROOT)).toBe(false);
    expect(verifyConsistency(7, 7, [], ROOTS[7]!, ROOTS[7]!)).toBe(true);
    expect(() => consistencyProof(0, 5, readerFor(5))).toThrow(RangeError);
  });
});

describe('property: random trees up to 128 leaves', () => {
  it('inclusion proofs match PATH and verify; a flipped bit anywhere in the proof, leaf or root is refused', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: MAX })
          .chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 0, max: n - 1 }), fc.nat())),
        ([n, m, r]) => {
          const proof = inclusionProof(m, n, readerFor(n));
          expect(hexes(proof)).toEqual(hexes(refPATH(m, LEAVES.slice(0, n))));
          expect(verifyInclusion(LEAVES[m]!, m, n, proof, ROOTS[n]!)).toBe(true);
          // Flip one bit of the concatenation proof ‖ leaf ‖ root.
          const all = [...proof, LEAVES[m]!, ROOTS[n]!];
          const bit = r % (all.length * 256);
          const at = Math.floor(bit / 256);
          const bad = all.map((h, i) => (i === at ? flipBit(h, bit % 256) : h));
          expect(verifyInclusion(bad[proof.length]!, m, n, bad.slice(0, proof.length), bad[proof.length + 1]!)).toBe(
            false,
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('consistency proofs match PROOF and verify; a flipped bit anywhere in the proof or either root is refused', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: MAX })
          .chain((n) => fc.tuple(fc.integer({ min: 1, max: n }), fc.constant(n), fc.nat())),
        ([m, n, r]) => {
          const proof = consistencyProof(m, n, readerFor(n));
          expect(hexes(proof)).toEqual(hexes(refPROOF(m, LEAVES.slice(0, n))));
          expect(verifyConsistency(m, n, proof, ROOTS[m]!, ROOTS[n]!)).toBe(true);
          const all = [...proof, ROOTS[m]!, ROOTS[n]!];
          const bit = r % (all.length * 256);
          const at = Math.floor(bit / 256);
          const bad = all.map((h, i) => (i === at ? flipBit(h, bit % 256) : h));
          expect(verifyConsistency(m, n, bad.slice(0, proof.length), bad[proof.length]!, bad[proof.length + 1]!)).toBe(
            false,
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('appending', () => {
  it('completedSubtrees returns the leaf, then each perfect subtree it completes, with the RFC hash of its leaves', () => {
    for (let i = 0; i < 64; i++) {
      const done = completedSubtrees(i, LEAVES[i]!, readerFor(i + 1));
      let trailingOnes = 0;
      while ((i >> trailingOnes) & 1) trailingOnes++;
      expect(
        done.map((s) => s.level),
        `leaf ${i}`,
      ).toEqual(Array.from({ length: trailingOnes + 1 }, (_, l) => l));
      for (const { level, index, hash } of done) {
        const width = 2 ** level;
        expect(index * width + width - 1, `leaf ${i} completes a subtree ending at itself`).toBe(i);
        expect(hex(hash)).toBe(hex(refMTH(LEAVES.slice(index * width, (index + 1) * width))));
      }
    }
  });

  it('MemoryMerkleTree: size and root after every append; read returns copies and refuses absent subtrees', () => {
    const t = new MemoryMerkleTree();
    expect(t.size).toBe(0);
    expect(hex(t.root())).toBe(hex(EMPTY_TREE_ROOT));
    for (let n = 1; n <= 70; n++) {
      t.append(LEAVES[n - 1]!);
      expect(t.size).toBe(n);
      expect(hex(t.root()), `n=${n}`).toBe(hex(ROOTS[n]!));
    }
    const copy = t.read(0, 0);
    copy.fill(0);
    expect(hex(t.read(0, 0))).toBe(hex(LEAVES[0]!));
    expect(hex(t.root())).toBe(hex(ROOTS[70]!));
    expect(() => t.read(0, 70)).toThrow(RangeError);
    expect(() => t.read(1, 35)).toThrow(RangeError);
    expect(() => t.read(7, 0)).toThrow(RangeError);
    expect(() => t.read(-1, 0)).toThrow(RangeError);
    expect(() => t.read(0, 0.5)).toThrow(RangeError);
    // A bad leaf is refused before anything changes.
    expect(() => t.append(new Uint8Array(31))).toThrow(TypeError);
    expect(() => t.append('ab'.repeat(32) as unknown as Uint8Array)).toThrow(TypeError);
    expect(t.size).toBe(70);
    expect(hex(t.root())).toBe(hex(ROOTS[70]!));
  });

  it('the builders over a MemoryMerkleTree of 1000 leaves agree with the naive root', () => {
    const t = new MemoryMerkleTree();
    const leaves: Uint8Array[] = [];
    for (let i = 0; i < 1000; i++) {
      const l = refLeafHash(new TextEncoder().encode(String(i)));
      leaves.push(l);
      t.append(l);
    }
    for (const n of [1, 2, 3, 511, 512, 513, 999, 1000]) {
      expect(hex(merkleRoot(n, t.read)), `n=${n}`).toBe(hex(naiveMerkleRoot(leaves.slice(0, n))));
    }
    expect(
      hex(
        refNodeHash(
          merkleRoot(512, t.read),
          merkleRoot(488, (l, i) => t.read(l, i + 512 / 2 ** l)),
        ),
      ),
    ).toBe(hex(t.root()));
  });
});
