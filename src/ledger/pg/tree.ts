/**
 * The ledger's RFC 6962 Merkle tree on PostgreSQL (DESIGN §10), stored as on SQLite (../tree.ts):
 * leaf i is the entry with seq i+1, its leaf hash SHA-256(0x00 || entry_hash bytes); the hashes of
 * complete subtrees of level 1 and up are kept in merkle_subtrees by every append transaction.
 * The tree algorithms (src/crypto/merkle*.ts) read nodes synchronously; which nodes a root, a proof
 * or an append needs depends only on sizes and indices, never on the hashes read. So a computation
 * here runs twice: once to learn the nodes it reads (with placeholders), then, after one query for
 * those nodes, for real — O(log n) rows per root or proof, fetched in one round trip.
 * Owns: merkle_subtrees on PostgreSQL. Must not import kernel, edges, cli or projections.
 */
import type pg from 'pg';
import { completedSubtrees, MemoryMerkleTree } from '../../crypto/index.js';
import type { SubtreeReader } from '../../crypto/index.js';
import { ChioError } from '../../errors.js';
import { entryLeafHash } from '../tree.js';

type Queryable = pg.Pool | pg.PoolClient;
const key = (level: number, index: number) => `${level}:${index}`;
const PLACEHOLDER = new Uint8Array(32);

/** Runs `compute` over the stored tree: the nodes it reads are fetched in one query first. */
export async function withStoredTree<T>(db: Queryable, compute: (read: SubtreeReader) => T): Promise<T> {
  const asked = new Map<string, [number, number]>();
  compute((level, index) => {
    asked.set(key(level, index), [level, index]);
    return PLACEHOLDER;
  });
  const nodes = await readNodes(db, [...asked.values()]);
  return compute((level, index) => {
    const hash = nodes.get(key(level, index));
    if (hash === undefined) {
      throw new ChioError(
        'CHIO-LEDGER-CORRUPT',
        level === 0
          ? `the ledger has no entry with seq ${index + 1}`
          : `the Merkle subtree at level ${level}, index ${index} is missing from merkle_subtrees`,
      );
    }
    return hash;
  });
}

/** Leaf hashes from ledger_entries, subtrees from merkle_subtrees (rows are attacker-controlled: shapes checked). */
async function readNodes(db: Queryable, wanted: Array<[number, number]>): Promise<Map<string, Uint8Array>> {
  const nodes = new Map<string, Uint8Array>();
  const leaves = wanted.filter(([l]) => l === 0).map(([, i]) => i + 1);
  const inner = wanted.filter(([l]) => l > 0);
  if (leaves.length > 0) {
    const rows = (await db.query('SELECT seq, entry_hash FROM ledger_entries WHERE seq = ANY($1::bigint[])', [leaves]))
      .rows as Array<{ seq: number; entry_hash: string }>;
    for (const r of rows)
      if (/^[0-9a-f]{64}$/.test(r.entry_hash)) nodes.set(key(0, r.seq - 1), entryLeafHash(r.entry_hash));
  }
  if (inner.length > 0) {
    const rows = (
      await db.query(
        'SELECT level, idx, hash FROM merkle_subtrees WHERE (level, idx) IN (SELECT * FROM unnest($1::int[], $2::bigint[]))',
        [inner.map(([l]) => l), inner.map(([, i]) => i)],
      )
    ).rows as Array<{ level: number; idx: number; hash: Buffer }>;
    for (const r of rows)
      if (Buffer.isBuffer(r.hash) && r.hash.length === 32) nodes.set(key(r.level, r.idx), new Uint8Array(r.hash));
  }
  return nodes;
}

/**
 * Stores the subtrees that entries `firstSeq`, `firstSeq + 1`, … (their entry hashes in order)
 * complete. Must run in the append transaction that inserted them, under the append lock.
 */
export async function appendSubtrees(
  client: pg.PoolClient,
  firstSeq: number,
  entryHashes: readonly string[],
): Promise<void> {
  if (entryHashes.length === 0) return;
  const leaves = entryHashes.map(entryLeafHash);
  const made = await withStoredTree(client, (stored) => {
    // Nodes completed earlier in this batch are read from here, the rest from the stored tree.
    const mine = new Map<string, Uint8Array>();
    const read: SubtreeReader = (level, index) => mine.get(key(level, index)) ?? stored(level, index);
    const out: Array<{ level: number; index: number; hash: Uint8Array }> = [];
    leaves.forEach((leaf, k) => {
      for (const s of completedSubtrees(firstSeq - 1 + k, leaf, read)) {
        mine.set(key(s.level, s.index), s.hash);
        if (s.level > 0) out.push(s);
      }
    });
    return out;
  });
  if (made.length === 0) return;
  await client.query(
    'INSERT INTO merkle_subtrees (level, idx, hash) SELECT * FROM unnest($1::int[], $2::bigint[], $3::bytea[])',
    [made.map((s) => s.level), made.map((s) => s.index), made.map((s) => Buffer.from(s.hash))],
  );
}

/** Re-derives merkle_subtrees from every entry (in the caller's transaction, under the append lock): the migration to schema 4. */
export async function rebuildSubtreesPg(client: pg.PoolClient): Promise<number> {
  await client.query('DELETE FROM merkle_subtrees');
  const tree = new MemoryMerkleTree();
  let stored = 0;
  for (let after = 0; ; ) {
    const rows = (
      await client.query('SELECT seq, entry_hash FROM ledger_entries WHERE seq > $1 ORDER BY seq LIMIT 10000', [after])
    ).rows as Array<{ seq: number; entry_hash: string }>;
    if (rows.length === 0) return stored;
    const made: Array<{ level: number; index: number; hash: Uint8Array }> = [];
    for (const row of rows) {
      const leaf = entryLeafHash(row.entry_hash);
      for (const s of completedSubtrees(row.seq - 1, leaf, tree.read)) if (s.level > 0) made.push(s);
      tree.append(leaf);
    }
    if (made.length > 0) {
      await client.query(
        'INSERT INTO merkle_subtrees (level, idx, hash) SELECT * FROM unnest($1::int[], $2::bigint[], $3::bytea[])',
        [made.map((s) => s.level), made.map((s) => s.index), made.map((s) => Buffer.from(s.hash))],
      );
      stored += made.length;
    }
    after = rows.at(-1)!.seq;
  }
}

/** The tree size: the head's seq (seqs are contiguous from 1). */
export async function treeSizePg(db: Queryable): Promise<number> {
  return ((await db.query('SELECT coalesce(max(seq), 0) AS n FROM ledger_entries')).rows[0] as { n: number }).n;
}
