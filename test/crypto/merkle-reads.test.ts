// The cost and the edges of the RFC 6962 tree math: merkleRoot, inclusionProof and consistencyProof
// read at most 2·⌈log2 n⌉+2 subtrees, all wholly inside the tree, for every size 1..1100 and sizes
// near 10^5, 10^6, 2^31, 2^32 and 2^53 (a reader that synthesises hashes, so no big tree is built);
// proofs over trees of up to 2^53−1 leaves verify (JS numbers, never 32-bit bit operations); the
// builders refuse nonsensical sizes with RangeError; the verifiers return false, never throw, on
// hostile input.
import { describe, expect, it } from 'vitest';
import {
  consistencyProof,
  EMPTY_TREE_ROOT,
  inclusionProof,
  merkleNodeHash,
  merkleRoot,
  verifyConsistency,
  verifyInclusion,
} from '../../src/crypto/index.js';
import type { SubtreeReader } from '../../src/crypto/index.js';
import { flipBit, sha256 } from './merkle-reference.js';

const bound = (n: number): number => 2 * Math.ceil(Math.log2(n)) + 2;

/**
 * A reader whose subtree "hashes" are distinct 32-byte values made from (level, index), counting its
 * calls and failing on a read outside the tree. (Not SHA-256: tens of thousands of calls are made and
 * only their number and position matter here.)
 */
function countingReader(size: number): { read: SubtreeReader; calls: () => number } {
  let calls = 0;
  const read: SubtreeReader = (level, index) => {
    calls++;
    if (
      !Number.isSafeInteger(level) ||
      !Number.isSafeInteger(index) ||
      level < 0 ||
      index < 0 ||
      (index + 1) * 2 ** level > size
    ) {
      throw new Error(`read(${level}, ${index}) is outside the tree of size ${size}`);
    }
    const out = new Uint8Array(32);
    new DataView(out.buffer).setFloat64(0, index);
    out[8] = level;
    return out;
  };
  return { read, calls: () => calls };
}

function reads(size: number, build: (read: SubtreeReader) => unknown): number {
  const r = countingReader(size);
  build(r.read);
  return r.calls();
}

/** Leaf indexes / old sizes worth probing in a tree of n: both ends, the middle, and around every power of two. */
function probes(n: number, min: number): number[] {
  const out = new Set<number>([min, min + 1, Math.floor(n / 2), Math.floor(n / 3), n - 2, n - 1, n]);
  for (let p = 1; p <= n; p *= 2) for (const d of [-1, 0, 1]) out.add(p + d);
  return [...out].filter((x) => x >= min && x <= n);
}

describe('subtree reads per call', () => {
  it('every size 1..1100: root, inclusion and consistency proofs stay within 2·⌈log2 n⌉+2 reads', () => {
    const over: string[] = [];
    let calls = 0;
    let worst = { ratio: 0, what: '' };
    const note = (n: number, count: number, what: () => string) => {
      calls++;
      if (count > Math.max(bound(n), 1)) over.push(`${what()}: ${count} reads, bound ${bound(n)}`);
      if (n > 1 && count / bound(n) > worst.ratio)
        worst = { ratio: count / bound(n), what: `${what()}: ${count} of ${bound(n)}` };
    };
    for (let n = 1; n <= 1100; n++) {
      note(
        n,
        reads(n, (read) => merkleRoot(n, read)),
        () => `root(${n})`,
      );
      // Exhaustive up to 128 leaves, then the indexes most likely to be worst cases.
      const leaves = n <= 128 ? Array.from({ length: n }, (_, i) => i) : probes(n - 1, 0);
      for (const m of leaves)
        note(
          n,
          reads(n, (read) => inclusionProof(m, n, read)),
          () => `inclusion(${m}, ${n})`,
        );
      const olds = n <= 128 ? Array.from({ length: n }, (_, i) => i + 1) : probes(n, 1);
      for (const m of olds)
        note(
          n,
          reads(n, (read) => consistencyProof(m, n, read)),
          () => `consistency(${m}, ${n})`,
        );
    }
    expect(over).toEqual([]);
    expect(calls).toBeGreaterThan(60_000);
    // The bound is not vacuous: some call comes close to it.
    expect(worst.ratio, worst.what).toBeGreaterThan(0.8);
  });

  it('sizes near 100,000, 1,000,000, 2^31, 2^32 and 2^53 stay within the bound', () => {
    const sizes = [
      99_999,
      100_000,
      100_001,
      131_071,
      131_073,
      999_999,
      1_000_000,
      1_000_001,
      1_048_575,
      1_048_577,
      2 ** 31 - 1,
      2 ** 31,
      2 ** 31 + 1,
      2 ** 32 + 7,
      2 ** 52 + 3,
      Number.MAX_SAFE_INTEGER,
    ];
    for (const n of sizes) {
      expect(
        reads(n, (read) => merkleRoot(n, read)),
        `root(${n})`,
      ).toBeLessThanOrEqual(bound(n));
      for (const m of probes(n - 1, 0)) {
        const count = reads(n, (read) => inclusionProof(m, n, read));
        expect(count, `inclusion(${m}, ${n})`).toBeLessThanOrEqual(bound(n));
      }
      for (const m of probes(n, 1)) {
        const count = reads(n, (read) => consistencyProof(m, n, read));
        expect(count, `consistency(${m}, ${n})`).toBeLessThanOrEqual(bound(n));
      }
    }
  });
});

/**
 * A consistent virtual tree of `2^53` leaves: every leaf hash is A except leaf `special`, which is B.
 * A perfect subtree not containing `special` hashes to U[level]; one containing it is computed from its
 * two halves. So huge trees can be proved and verified for real without building them.
 */
function virtualTree(special: number): SubtreeReader {
  const A = sha256(Uint8Array.of(0xaa));
  const B = sha256(Uint8Array.of(0xbb));
  const uniform = [A];
  for (let l = 1; l <= 53; l++) uniform.push(merkleNodeHash(uniform[l - 1]!, uniform[l - 1]!));
  const read: SubtreeReader = (level, index) => {
    const start = index * 2 ** level;
    if (special < start || special >= start + 2 ** level) return uniform[level]!;
    if (level === 0) return B;
    return merkleNodeHash(read(level - 1, index * 2), read(level - 1, index * 2 + 1));
  };
  return read;
}

describe('huge trees (JS numbers up to 2^53−1, no 32-bit truncation)', () => {
  const B = sha256(Uint8Array.of(0xbb));
  const A = sha256(Uint8Array.of(0xaa));
  const cases: Array<[number, number]> = [
    [2 ** 31 + 1, 2 ** 31],
    [2 ** 32 + 1, 2 ** 32],
    [2 ** 32 + 5, 2 ** 31 - 1],
    [2 ** 40 + 12345, 2 ** 40 + 12344],
    [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER - 1],
    [Number.MAX_SAFE_INTEGER, 2 ** 52],
    [Number.MAX_SAFE_INTEGER, 0],
    [2 ** 53 - 2, 2 ** 33 + 3],
  ];

  it.each(cases)('size %d, leaf %d: inclusion proofs verify, and only for the right leaf, index and size', (n, s) => {
    const read = virtualTree(s);
    const root = merkleRoot(n, read);
    const proof = inclusionProof(s, n, read);
    expect(proof.length).toBeLessThanOrEqual(53);
    expect(verifyInclusion(B, s, n, proof, root)).toBe(true);
    expect(verifyInclusion(A, s, n, proof, root)).toBe(false);
    for (const other of [s - 1, s + 1, s - 2 ** 31, s + 2 ** 31, s - 2 ** 32, s + 2 ** 32]) {
      if (other >= 0 && other < n) expect(verifyInclusion(B, other, n, proof, root), `index ${other}`).toBe(false);
    }
    if (n - 1 > s) expect(verifyInclusion(B, s, n - 1, proof, merkleRoot(n - 1, read))).toBe(false);
    expect(verifyInclusion(B, s, n, proof, flipBit(root, 77))).toBe(false);
  });

  it.each(cases)(
    'size %d, leaf %d: consistency proofs from sizes around the leaf verify; tampering is refused',
    (n, s) => {
      const read = virtualTree(s);
      const newRoot = merkleRoot(n, read);
      for (const m of [s, s + 1, s + 2, 2 ** 31, 2 ** 32 + 1, n - 1, n].filter((x) => x >= 1 && x <= n)) {
        const oldRoot = merkleRoot(m, read);
        const proof = consistencyProof(m, n, read);
        expect(verifyConsistency(m, n, proof, oldRoot, newRoot), `${m} → ${n}`).toBe(true);
        if (proof.length > 0) {
          expect(verifyConsistency(m, n, [flipBit(proof[0]!, 5), ...proof.slice(1)], oldRoot, newRoot)).toBe(false);
          expect(verifyConsistency(m, n, proof.slice(1), oldRoot, newRoot)).toBe(false);
        }
        if (m < n) expect(verifyConsistency(m, n, proof, oldRoot, flipBit(newRoot, 0))).toBe(false);
      }
    },
  );
});

describe('the builders refuse nonsensical sizes and indexes', () => {
  const read: SubtreeReader = () => sha256();
  const bad = [
    -1,
    0.5,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    2 ** 53,
    '3' as unknown as number,
    3n as unknown as number,
  ];

  it('RangeError for a bad size or index, and for an index or old size beyond the tree', () => {
    for (const x of bad) {
      expect(() => merkleRoot(x, read), String(x)).toThrow(RangeError);
      expect(() => inclusionProof(0, x, read), String(x)).toThrow(RangeError);
      expect(() => inclusionProof(x, 5, read), String(x)).toThrow(RangeError);
      expect(() => consistencyProof(x, 5, read), String(x)).toThrow(RangeError);
      expect(() => consistencyProof(1, x, read), String(x)).toThrow(RangeError);
    }
    expect(() => inclusionProof(0, 0, read)).toThrow(RangeError);
    expect(() => inclusionProof(5, 5, read)).toThrow(RangeError);
    expect(() => consistencyProof(0, 5, read)).toThrow(RangeError);
    expect(() => consistencyProof(6, 5, read)).toThrow(RangeError);
  });

  it('a reader fault propagates unchanged; a reader returning no 32-byte hash is a TypeError', () => {
    const fault = new Error('disk on fire');
    const failing: SubtreeReader = () => {
      throw fault;
    };
    expect(() => merkleRoot(5, failing)).toThrow(fault);
    expect(() => inclusionProof(2, 5, failing)).toThrow(fault);
    expect(() => consistencyProof(2, 5, failing)).toThrow(fault);
    for (const wrong of [new Uint8Array(31), new Uint8Array(33), 'ab'.repeat(32), undefined]) {
      const r: SubtreeReader = () => wrong as Uint8Array;
      expect(() => merkleRoot(3, r)).toThrow(TypeError);
      expect(() => inclusionProof(0, 3, r)).toThrow(TypeError);
      expect(() => consistencyProof(1, 3, r)).toThrow(TypeError);
    }
  });
});

describe('the verifiers never throw on hostile input', () => {
  const read = virtualTree(3);
  const n = 11;
  const root = merkleRoot(n, read);
  const leaf = read(0, 3);
  const proof = inclusionProof(3, n, read);
  const oldRoot = merkleRoot(6, read);
  const cproof = consistencyProof(6, n, read);
  // An array (Array.isArray is true for a proxy of one) whose elements explode when read.
  const throwing = new Proxy([] as Uint8Array[], {
    get(_target, key) {
      if (key === 'length') return 3;
      throw new Error('boom');
    },
  });
  const notHashes: unknown[] = [
    null,
    undefined,
    'ab'.repeat(32),
    new Uint8Array(31),
    new Uint8Array(33),
    new Uint16Array(16),
    Array(32).fill(0),
    {},
  ];
  const notCounts: unknown[] = [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, '3', 3n, null, undefined, {}];

  it('sanity: the genuine proofs verify', () => {
    expect(verifyInclusion(leaf, 3, n, proof, root)).toBe(true);
    expect(verifyConsistency(6, n, cproof, oldRoot, root)).toBe(true);
  });

  it('inclusion: bad hashes, proofs, sizes and indexes all give false', () => {
    const v = (...a: unknown[]) => (verifyInclusion as (...x: unknown[]) => boolean)(...a);
    for (const h of notHashes) {
      expect(v(h, 3, n, proof, root)).toBe(false);
      expect(v(leaf, 3, n, proof, h)).toBe(false);
      expect(v(leaf, 3, n, [h, ...proof.slice(1)], root)).toBe(false);
      expect(v(leaf, 3, n, h, root)).toBe(false);
    }
    for (const c of notCounts) {
      expect(v(leaf, c, n, proof, root)).toBe(false);
      expect(v(leaf, 3, c, proof, root)).toBe(false);
    }
    expect(v(leaf, 3, 3, proof, root)).toBe(false);
    expect(v(leaf, 0, 0, [], EMPTY_TREE_ROOT)).toBe(false);
    expect(v(leaf, 3, n, throwing, root)).toBe(false);
    expect(v(leaf, 3, n, Array(10_000).fill(proof[0]), root)).toBe(false);
    expect(v(leaf, 3, n, [...proof, ...proof], root)).toBe(false);
  });

  it('consistency: bad hashes, proofs and sizes all give false', () => {
    const v = (...a: unknown[]) => (verifyConsistency as (...x: unknown[]) => boolean)(...a);
    for (const h of notHashes) {
      expect(v(6, n, cproof, h, root)).toBe(false);
      expect(v(6, n, cproof, oldRoot, h)).toBe(false);
      expect(v(6, n, [h, ...cproof.slice(1)], oldRoot, root)).toBe(false);
      expect(v(6, n, h, oldRoot, root)).toBe(false);
      expect(v(n, n, h, root, root)).toBe(false);
    }
    for (const c of notCounts) {
      expect(v(c, n, cproof, oldRoot, root)).toBe(false);
      expect(v(6, c, cproof, oldRoot, root)).toBe(false);
    }
    expect(v(n, 6, cproof, root, oldRoot)).toBe(false);
    expect(v(6, n, throwing, oldRoot, root)).toBe(false);
    expect(v(6, n, Array(10_000).fill(cproof[0]), oldRoot, root)).toBe(false);
  });
});
