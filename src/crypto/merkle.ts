/**
 * RFC 6962 Merkle tree hashing (RFC 6962 §2.1, the same tree as RFC 9162 §2.1): the leaf and node
 * hashes, the tree head MTH of the first `size` leaves read through a SubtreeReader, the perfect
 * subtrees an append completes, and an in-memory tree. Proofs and their verification are in
 * merkle-proofs.ts. Pure: no I/O, no state outside a MemoryMerkleTree.
 * Must not import anything outside src/crypto (node:crypto and node:buffer are the platform).
 *
 * Sizes and indexes are JS numbers, so every bit operation here is arithmetic (`/ 2`, `% 2`):
 * JS bit operators truncate to 32 bits and trees may hold up to 2^53−1 leaves.
 */
import { hash } from 'node:crypto';

/** The SHA-256 of src/crypto/sha256.ts (node:crypto, FIPS 180-4), returning raw bytes. */
function sha256(data: Uint8Array): Uint8Array {
  const out = hash('sha256', data, 'buffer');
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

export const MERKLE_HASH_BYTES = 32;

/** SHA-256 of the empty string: the root of the empty tree (RFC 6962 §2.1). */
export const EMPTY_TREE_ROOT: Uint8Array = sha256(new Uint8Array(0));

/** SHA-256(0x00 || leafInput). In Chio the leaf input is the 32 raw bytes of an entry's entry_hash. */
export function merkleLeafHash(leafInput: Uint8Array): Uint8Array {
  const buf = new Uint8Array(1 + leafInput.length);
  buf[0] = 0x00;
  buf.set(leafInput, 1);
  return sha256(buf);
}

/** SHA-256(0x01 || left || right). */
export function merkleNodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  const buf = new Uint8Array(1 + left.length + right.length);
  buf[0] = 0x01;
  buf.set(left, 1);
  buf.set(right, 1 + left.length);
  return sha256(buf);
}

/**
 * Hash of the perfect, aligned subtree at `level`, `index`: leaves [index·2^level, (index+1)·2^level).
 * Only ever asked for subtrees wholly inside the tree. May throw (e.g. a storage fault); errors propagate.
 */
export type SubtreeReader = (level: number, index: number) => Uint8Array;

/** A value that is a 32-byte hash. Used on attacker-controlled input, so it never throws. */
export function isMerkleHash(value: unknown): value is Uint8Array {
  return value instanceof Uint8Array && value.length === MERKLE_HASH_BYTES;
}

export function hashesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

export function isSafeCount(n: unknown): n is number {
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
}

/** The largest power of two strictly below `n` (n ≥ 2): where the RFC splits a tree of n leaves. */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** log2(width) when `width` is a power of two, otherwise -1. */
function levelOf(width: number): number {
  let level = 0;
  let w = 1;
  while (w < width) {
    w *= 2;
    level++;
  }
  return w === width ? level : -1;
}

/** RangeError unless `n` is a safe integer ≥ `min` (sizes and indexes given to the builders). */
export function assertCount(name: string, n: number, min: number): void {
  if (!isSafeCount(n) || n < min) throw new RangeError(`${name} must be a safe integer >= ${min}, got ${String(n)}`);
}

/**
 * Hashes of the nodes of the RFC tree of `size` leaves, each node [lo, hi) computed at most once
 * per call. A node of power-of-two width is perfect and aligned (the RFC splits at powers of two),
 * so it is one read; any other node ends at `size` (it lies on the right edge) and is built from
 * the perfect subtrees of the binary decomposition of hi − lo. A builder therefore reads each
 * perfect subtree it needs once: O(log n) reads per root or proof.
 */
export function treeNodes(size: number, read: SubtreeReader): (lo: number, hi: number) => Uint8Array {
  const memo = new Map<string, Uint8Array>();
  const node = (lo: number, hi: number): Uint8Array => {
    const key = `${lo}:${hi}`;
    const cached = memo.get(key);
    if (cached !== undefined) return cached;
    const width = hi - lo;
    const level = levelOf(width);
    let h: Uint8Array;
    if (level >= 0) {
      h = read(level, lo / width);
      if (!isMerkleHash(h)) {
        throw new TypeError(`the subtree reader returned no 32-byte hash for level ${level}, index ${lo / width}`);
      }
    } else {
      if (hi !== size || width < 2) throw new RangeError(`[${lo}, ${hi}) is not a node of the tree of size ${size}`);
      const k = splitPoint(width);
      h = merkleNodeHash(node(lo, lo + k), node(lo + k, hi));
    }
    memo.set(key, h);
    return h;
  };
  return node;
}

/** MTH of the first `size` leaves (the empty tree's root when `size` is 0). Reads popcount(size) subtrees. */
export function merkleRoot(size: number, read: SubtreeReader): Uint8Array {
  assertCount('size', size, 0);
  if (size === 0) return EMPTY_TREE_ROOT;
  return treeNodes(size, read)(0, size);
}

/**
 * The perfect subtrees that appending leaf `leafIndex` (hash `leafHash`) completes, bottom up: level 0
 * is the leaf itself, then each parent it completes (reading left siblings with `read`). Storing these
 * for every append is what makes every reader above O(log n) reads.
 */
export function completedSubtrees(
  leafIndex: number,
  leafHash: Uint8Array,
  read: SubtreeReader,
): Array<{ level: number; index: number; hash: Uint8Array }> {
  assertCount('leafIndex', leafIndex, 0);
  if (!isMerkleHash(leafHash)) throw new TypeError('leafHash must be a 32-byte hash');
  const out = [{ level: 0, index: leafIndex, hash: leafHash }];
  let index = leafIndex;
  let h = leafHash;
  // The node just completed is a right child exactly when its index is odd; its parent is then complete.
  for (let level = 0; index % 2 === 1; level++) {
    const left = read(level, index - 1);
    if (!isMerkleHash(left))
      throw new TypeError(`the subtree reader returned no 32-byte hash for level ${level}, index ${index - 1}`);
    h = merkleNodeHash(left, h);
    index = (index - 1) / 2;
    out.push({ level: level + 1, index, hash: h });
  }
  return out;
}

/** The naive recursive MTH over all leaf hashes, straight from RFC 6962 §2.1 (reference for tests). */
export function naiveMerkleRoot(leafHashes: readonly Uint8Array[]): Uint8Array {
  const n = leafHashes.length;
  if (n === 0) return EMPTY_TREE_ROOT;
  if (n === 1) return leafHashes[0]!;
  const k = splitPoint(n);
  return merkleNodeHash(naiveMerkleRoot(leafHashes.slice(0, k)), naiveMerkleRoot(leafHashes.slice(k)));
}

/**
 * An in-memory tree of leaf hashes with the same reader (for verifying a whole ledger, rebuilding, and
 * tests). It keeps every perfect subtree, packed per level into one growing byte array (about 64 bytes
 * per leaf); append() is O(log n) amortised.
 */
export class MemoryMerkleTree {
  #size = 0;
  /** levels[l] holds the hashes of the complete subtrees at level l, 32 bytes each, in index order. */
  readonly #levels: { bytes: Uint8Array; count: number }[] = [];

  /** Returns a copy, so a caller cannot alter the tree through it. RangeError for a subtree not (yet) in the tree. */
  readonly read: SubtreeReader = (level, index) => {
    const row = Number.isSafeInteger(level) && level >= 0 ? this.#levels[level] : undefined;
    if (row === undefined || !Number.isSafeInteger(index) || index < 0 || index >= row.count) {
      throw new RangeError(
        `no complete subtree at level ${String(level)}, index ${String(index)} in a tree of size ${this.#size}`,
      );
    }
    return row.bytes.slice(index * MERKLE_HASH_BYTES, (index + 1) * MERKLE_HASH_BYTES);
  };

  get size(): number {
    return this.#size;
  }

  append(leafHash: Uint8Array): void {
    for (const { level, index, hash: h } of completedSubtrees(this.#size, leafHash, this.read)) {
      let row = this.#levels[level];
      if (row === undefined) {
        row = { bytes: new Uint8Array(MERKLE_HASH_BYTES * 4), count: 0 };
        this.#levels[level] = row;
      }
      if (index !== row.count) throw new Error(`merkle tree bookkeeping broken at level ${level}`);
      if ((row.count + 1) * MERKLE_HASH_BYTES > row.bytes.length) {
        const grown = new Uint8Array(row.bytes.length * 2);
        grown.set(row.bytes);
        row.bytes = grown;
      }
      row.bytes.set(h, row.count * MERKLE_HASH_BYTES);
      row.count++;
    }
    this.#size++;
  }

  root(): Uint8Array {
    return merkleRoot(this.#size, this.read);
  }
}
