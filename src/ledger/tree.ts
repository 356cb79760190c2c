/**
 * The ledger's RFC 6962 Merkle tree in SQLite (DESIGN §10). Leaf i is the entry with seq i+1, its
 * leaf input the 32 raw bytes of that entry's entry_hash. The hashes of complete subtrees of level
 * 1 and up are stored in merkle_subtrees by the append transaction (each append completes one on
 * average, reading one left sibling per completed level); a leaf hash is computed from
 * ledger_entries.entry_hash. So a root, an inclusion proof or a consistency proof costs O(log n)
 * row reads (src/crypto/merkle.ts asks for O(log n) subtrees), never a pass over the ledger.
 * Owns: merkle_subtrees. Must not import kernel, edges, cli or projections.
 */
import type Database from 'better-sqlite3';
import {
  completedSubtrees,
  consistencyProof,
  fromHex,
  inclusionProof,
  MemoryMerkleTree,
  merkleLeafHash,
  merkleRoot,
} from '../crypto/index.js';
import type { SubtreeReader } from '../crypto/index.js';
import { ChioError } from '../errors.js';

/** The leaf hash of an entry: SHA-256(0x00 || entry_hash bytes). */
export function entryLeafHash(entryHashHex: string): Uint8Array {
  return merkleLeafHash(fromHex(entryHashHex));
}

/** Reads the stored tree of one connection; `reads` counts the rows it has read (tests, benchmarks). */
export class LedgerTree {
  reads = 0;
  private readonly leaf: Database.Statement<[number], { entry_hash: string }>;
  private readonly subtree: Database.Statement<[number, number], { hash: Buffer }>;
  private readonly size: Database.Statement<[], { n: number | null }>;

  constructor(db: Database.Database) {
    if (
      db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'merkle_subtrees'").get() === undefined
    ) {
      throw new ChioError(
        'CHIO-LEDGER-CORRUPT',
        'this ledger has no Merkle tree yet (schema older than 7): open it once with a producer or `chio ledger checkpoint` to upgrade it',
      );
    }
    this.leaf = db.prepare('SELECT entry_hash FROM ledger_entries WHERE seq = ?');
    this.subtree = db.prepare('SELECT hash FROM merkle_subtrees WHERE level = ? AND idx = ?');
    this.size = db.prepare('SELECT max(seq) AS n FROM ledger_entries');
  }

  readonly read: SubtreeReader = (level, index) => {
    this.reads++;
    if (level === 0) {
      const row = this.leaf.get(index + 1);
      if (row === undefined)
        throw new ChioError('CHIO-LEDGER-CORRUPT', `the ledger has no entry with seq ${index + 1}`);
      return entryLeafHash(row.entry_hash);
    }
    const row = this.subtree.get(level, index);
    if (row === undefined || !Buffer.isBuffer(row.hash) || row.hash.length !== 32) {
      throw new ChioError(
        'CHIO-LEDGER-CORRUPT',
        `the Merkle subtree at level ${level}, index ${index} is missing from merkle_subtrees (chio ledger rebuild-projections re-derives it)`,
      );
    }
    return new Uint8Array(row.hash);
  };

  /** Number of entries (the current tree size). */
  treeSize(): number {
    return this.size.get()?.n ?? 0;
  }

  root(size: number): Uint8Array {
    return merkleRoot(size, this.read);
  }

  inclusion(leafIndex: number, size: number): Uint8Array[] {
    return inclusionProof(leafIndex, size, this.read);
  }

  consistency(oldSize: number, newSize: number): Uint8Array[] {
    return consistencyProof(oldSize, newSize, this.read);
  }
}

/**
 * The subtree each level last completed, as the appends of one write transaction computed them.
 * The left sibling an append needs at each level is exactly that subtree, so the appends after the
 * first of a batch read no row. Kept only for the transaction it was made for: after a rollback
 * those subtrees are gone from the file while this would still hold them.
 */
export class RecentSubtrees {
  private readonly latest: Array<{ index: number; hash: Uint8Array } | undefined> = [];
  constructor(private readonly stored: SubtreeReader) {}

  readonly read: SubtreeReader = (level, index) => {
    const recent = this.latest[level];
    return recent !== undefined && recent.index === index ? recent.hash : this.stored(level, index);
  };

  record(level: number, index: number, hash: Uint8Array): void {
    this.latest[level] = { index, hash };
  }
}

/** One stored subtree: complete, level ≥ 1, its 32-byte hash (DESIGN §10). */
export const INSERT_SUBTREE_SQL = 'INSERT INTO merkle_subtrees (level, idx, hash) VALUES (?, ?, ?)';

/** Stores the subtrees an append completes. Must run inside the append's write transaction. */
export class TreeAppender {
  private readonly tree: LedgerTree;
  private readonly insert: Database.Statement<[number, number, Buffer]>;

  constructor(db: Database.Database) {
    this.tree = new LedgerTree(db);
    this.insert = db.prepare(INSERT_SUBTREE_SQL);
  }

  /** A cache for the appends of one write transaction (`appended`'s `recent`). */
  recentSubtrees(): RecentSubtrees {
    return new RecentSubtrees(this.tree.read);
  }

  /** After entry `seq` (hash `entryHashHex`) was inserted; `recent` belongs to this transaction. */
  appended(seq: number, entryHashHex: string, recent?: RecentSubtrees): void {
    const subtrees = completedSubtrees(seq - 1, entryLeafHash(entryHashHex), recent?.read ?? this.tree.read);
    for (const s of subtrees) {
      // better-sqlite3 copies a bound blob, so a view of the hash's bytes is enough.
      if (s.level > 0)
        this.insert.run(s.level, s.index, Buffer.from(s.hash.buffer, s.hash.byteOffset, s.hash.byteLength));
    }
    // Recorded once every row is written: a fault above rolls the transaction back with its cache.
    if (recent !== undefined) for (const s of subtrees) recent.record(s.level, s.index, s.hash);
  }
}

/**
 * Re-derives merkle_subtrees from ledger_entries (in the caller's write transaction): the
 * migration to schema 7 for entries appended before it, and `rebuild-projections`.
 * Returns the number of subtrees stored.
 */
export function rebuildMerkleSubtrees(db: Database.Database): number {
  db.prepare('DELETE FROM merkle_subtrees').run();
  const insert = db.prepare(INSERT_SUBTREE_SQL);
  const tree = new MemoryMerkleTree();
  let stored = 0;
  // Read in pages: better-sqlite3 runs no other statement on a connection while an iterator is open.
  const page = db.prepare('SELECT seq, entry_hash FROM ledger_entries WHERE seq > ? ORDER BY seq LIMIT 10000');
  for (let after = 0; ; ) {
    const rows = page.all(after) as Array<{ seq: number; entry_hash: string }>;
    if (rows.length === 0) return stored;
    for (const row of rows) {
      const leaf = entryLeafHash(row.entry_hash);
      for (const s of completedSubtrees(row.seq - 1, leaf, tree.read)) {
        if (s.level > 0) {
          insert.run(s.level, s.index, Buffer.from(s.hash));
          stored++;
        }
      }
      tree.append(leaf);
    }
    after = rows.at(-1)!.seq;
  }
}
