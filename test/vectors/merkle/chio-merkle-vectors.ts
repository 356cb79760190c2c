/**
 * Builds test/vectors/merkle/chio-merkle-v1.json with the product's Merkle code (src/crypto/merkle*.ts):
 * the RFC 6962 tree over the three ledger entries of the shared golden vectors
 * (test/vectors/receipt/chio-v1.json, produced independently of this project), leaf i = entry seq i+1,
 * leaf input = the 32 raw bytes of its entry_hash (DESIGN §10). It holds every leaf hash, every perfect
 * subtree, the root of every size, and every inclusion and consistency proof in DESIGN §10's JSON shapes.
 * test/crypto/merkle-vectors.test.ts asserts the committed file equals this output (CHIO_WRITE_VECTORS=1
 * rewrites it); test/vectors/check_merkle.py checks it with its own implementation.
 */
import {
  completedSubtrees,
  consistencyProof,
  EMPTY_TREE_ROOT,
  fromHex,
  inclusionProof,
  MemoryMerkleTree,
  merkleLeafHash,
  merkleRoot,
  toHex,
} from '../../../src/crypto/index.js';
import { loadVector } from '../../helpers/vectors.js';

interface LedgerEntryVector {
  seq: number;
  entry_hash: string;
}

export function buildMerkleVectors() {
  const entries = loadVector<{ ledger: { entries: LedgerEntryVector[] } }>('receipt/chio-v1.json').ledger.entries;
  const tree = new MemoryMerkleTree();
  const leaves: Array<{ seq: number; leaf_index: number; entry_hash: string; leaf_hash: string }> = [];
  const subtrees: Array<{ level: number; index: number; hash: string }> = [];
  for (const [i, e] of entries.entries()) {
    if (e.seq !== i + 1) throw new Error(`ledger vector entries out of order at ${i}`);
    const leafHash = merkleLeafHash(fromHex(e.entry_hash));
    for (const s of completedSubtrees(i, leafHash, tree.read)) subtrees.push({ level: s.level, index: s.index, hash: toHex(s.hash) });
    tree.append(leafHash);
    leaves.push({ seq: e.seq, leaf_index: i, entry_hash: e.entry_hash, leaf_hash: toHex(leafHash) });
  }
  const n = tree.size;
  const sizes = Array.from({ length: n }, (_, i) => i + 1);
  return {
    description:
      'RFC 6962 (RFC 9162 §2.1) Merkle tree over the ledger entries of receipt/chio-v1.json (DESIGN §10): leaf i is the entry with seq i+1; ' +
      'leaf_hash = SHA-256(0x00 || the 32 bytes of entry_hash); node = SHA-256(0x01 || left || right); the tree of n leaves splits at the ' +
      'largest power of two below n. Roots of every size, every perfect subtree, every inclusion and consistency proof (hashes bottom up, ' +
      'as in RFC 6962 §2.1.1 and §2.1.2). See test/vectors/README.md.',
    source: 'receipt/chio-v1.json ledger.entries',
    empty_tree_root: toHex(EMPTY_TREE_ROOT),
    leaves,
    subtrees,
    roots: sizes.map((size) => ({ tree_size: size, root: toHex(merkleRoot(size, tree.read)) })),
    inclusion_proofs: sizes.flatMap((size) =>
      leaves.slice(0, size).map((leaf) => ({
        schema: 'chio.inclusion-proof.v1',
        seq: leaf.seq,
        leaf_index: leaf.leaf_index,
        tree_size: size,
        entry_hash: leaf.entry_hash,
        hashes: inclusionProof(leaf.leaf_index, size, tree.read).map(toHex),
      })),
    ),
    consistency_proofs: sizes.flatMap((newSize) =>
      sizes.slice(0, newSize).map((oldSize) => ({
        schema: 'chio.consistency-proof.v1',
        old_size: oldSize,
        new_size: newSize,
        hashes: consistencyProof(oldSize, newSize, tree.read).map(toHex),
      })),
    ),
  };
}
