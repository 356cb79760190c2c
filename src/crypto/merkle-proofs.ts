/**
 * RFC 6962 inclusion and consistency proofs: building them (RFC 6962 §2.1.1 PATH, §2.1.2
 * PROOF/SUBPROOF) from a SubtreeReader with O(log n) reads, and verifying them (RFC 9162 §2.1.3.2
 * and §2.1.4.2). Everything a verifier is given — proof hashes, roots, leaf hash, sizes, indexes —
 * is attacker-controlled: the verifiers check every type and length and return false, never throw.
 * Must not import anything outside src/crypto.
 *
 * As in merkle.ts, sizes and indexes are numbers up to 2^53−1, so "right-shift" is Math.floor(x / 2)
 * and "LSB set" is x % 2 === 1; JS bit operators would truncate to 32 bits.
 */
import {
  assertCount,
  hashesEqual,
  isMerkleHash,
  isSafeCount,
  merkleNodeHash,
  splitPoint,
  treeNodes,
} from './merkle.js';
import type { SubtreeReader } from './merkle.js';

/** RFC 6962 §2.1.1 audit path for leaf `leafIndex` in the tree of `size` (leafIndex < size), bottom up. */
export function inclusionProof(leafIndex: number, size: number, read: SubtreeReader): Uint8Array[] {
  assertCount('size', size, 1);
  assertCount('leafIndex', leafIndex, 0);
  if (leafIndex >= size) throw new RangeError(`leafIndex ${leafIndex} is not below the tree size ${size}`);
  const node = treeNodes(size, read);
  // PATH(m, D[lo:hi]) walked top down; the RFC lists the siblings bottom up, hence the reverse.
  const topDown: Uint8Array[] = [];
  let lo = 0;
  let hi = size;
  while (hi - lo > 1) {
    const k = splitPoint(hi - lo);
    if (leafIndex < lo + k) {
      topDown.push(node(lo + k, hi));
      hi = lo + k;
    } else {
      topDown.push(node(lo, lo + k));
      lo += k;
    }
  }
  return topDown.reverse();
}

/** RFC 6962 §2.1.2 consistency proof from `oldSize` to `newSize` (0 < oldSize <= newSize; [] when equal). */
export function consistencyProof(oldSize: number, newSize: number, read: SubtreeReader): Uint8Array[] {
  assertCount('oldSize', oldSize, 1);
  assertCount('newSize', newSize, 1);
  if (oldSize > newSize) throw new RangeError(`oldSize ${oldSize} is greater than newSize ${newSize}`);
  const node = treeNodes(newSize, read);
  // SUBPROOF(m, D[lo:hi], b) walked top down, with m = oldSize − lo.
  const topDown: Uint8Array[] = [];
  let lo = 0;
  let hi = newSize;
  let whole = true; // the RFC's b: D[lo:hi] is the whole old tree, whose root the verifier already has
  while (oldSize !== hi) {
    const k = splitPoint(hi - lo);
    if (oldSize - lo <= k) {
      topDown.push(node(lo + k, hi));
      hi = lo + k;
    } else {
      topDown.push(node(lo, lo + k));
      lo += k;
      whole = false;
    }
  }
  // [lo, hi) ends at oldSize < newSize (or is the whole tree when the sizes are equal), so it is perfect.
  if (!whole) topDown.push(node(lo, hi));
  return topDown.reverse();
}

const half = (n: number): number => Math.floor(n / 2);
const odd = (n: number): boolean => n % 2 === 1;

/** A proof as a plain array of 32-byte hashes, or null. Copies, so a hostile array cannot change under us. */
function proofHashes(proof: unknown): Uint8Array[] | null {
  if (!Array.isArray(proof)) return null;
  const out: Uint8Array[] = [];
  for (let i = 0; i < proof.length; i++) {
    const h: unknown = proof[i];
    if (!isMerkleHash(h)) return null;
    out.push(h);
  }
  return out;
}

/**
 * RFC 9162 §2.1.3.2: whether `proof` shows leaf `leafHash` at `leafIndex` in the tree of `size` with
 * root `root`. Never throws on hostile input (wrong lengths, sizes, indexes): returns false.
 */
export function verifyInclusion(
  leafHash: Uint8Array,
  leafIndex: number,
  size: number,
  proof: readonly Uint8Array[],
  root: Uint8Array,
): boolean {
  try {
    if (!isMerkleHash(leafHash) || !isMerkleHash(root)) return false;
    if (!isSafeCount(leafIndex) || !isSafeCount(size) || leafIndex >= size) return false;
    const path = proofHashes(proof);
    if (path === null) return false;
    let fn = leafIndex;
    let sn = size - 1;
    let r = leafHash;
    for (const p of path) {
      if (sn === 0) return false; // longer than the path to the root
      if (odd(fn) || fn === sn) {
        r = merkleNodeHash(p, r);
        if (!odd(fn)) {
          while (!odd(fn) && fn !== 0) {
            fn = half(fn);
            sn = half(sn);
          }
        }
      } else {
        r = merkleNodeHash(r, p);
      }
      fn = half(fn);
      sn = half(sn);
    }
    return sn === 0 && hashesEqual(r, root);
  } catch {
    return false; // hostile objects (getters, proxies) must not turn a verdict into a crash
  }
}

/**
 * RFC 9162 §2.1.4.2: whether `proof` shows that the tree of `oldSize` with root `oldRoot` is a prefix
 * of the tree of `newSize` with root `newRoot`. Never throws on hostile input: returns false.
 * Equal sizes need an empty proof and equal roots. An old size of 0 is refused (false), as in RFC 9162
 * (proofs are defined for 0 < first) and transparency-dev/merkle: every tree extends the empty one,
 * so such a "proof" would check nothing about either root, and a Chio checkpoint is never empty.
 */
export function verifyConsistency(
  oldSize: number,
  newSize: number,
  proof: readonly Uint8Array[],
  oldRoot: Uint8Array,
  newRoot: Uint8Array,
): boolean {
  try {
    if (!isMerkleHash(oldRoot) || !isMerkleHash(newRoot)) return false;
    if (!isSafeCount(oldSize) || !isSafeCount(newSize) || oldSize === 0 || oldSize > newSize) return false;
    const given = proofHashes(proof);
    if (given === null) return false;
    if (oldSize === newSize) return given.length === 0 && hashesEqual(oldRoot, newRoot);
    if (given.length === 0) return false;
    // When the old tree is perfect its root is the first node of the path and the RFC omits it.
    const path = isPowerOfTwo(oldSize) ? [oldRoot, ...given] : given;
    let fn = oldSize - 1;
    let sn = newSize - 1;
    while (odd(fn)) {
      fn = half(fn);
      sn = half(sn);
    }
    let fr = path[0]!;
    let sr = path[0]!;
    for (const c of path.slice(1)) {
      if (sn === 0) return false;
      if (odd(fn) || fn === sn) {
        fr = merkleNodeHash(c, fr);
        sr = merkleNodeHash(c, sr);
        if (!odd(fn)) {
          while (!odd(fn) && fn !== 0) {
            fn = half(fn);
            sn = half(sn);
          }
        }
      } else {
        sr = merkleNodeHash(sr, c);
      }
      fn = half(fn);
      sn = half(sn);
    }
    return sn === 0 && hashesEqual(fr, oldRoot) && hashesEqual(sr, newRoot);
  } catch {
    return false;
  }
}

function isPowerOfTwo(n: number): boolean {
  let w = 1;
  while (w < n) w *= 2;
  return w === n;
}
