/**
 * Checking the ledger's Merkle tree and its checkpoints against the entries (DESIGN §10): the tree
 * is recomputed from every entry_hash in seq order; each stored subtree must equal it; each stored
 * checkpoint must carry a valid signature (under the trusted keys when given, else its own signer),
 * name the tree it stores, and commit to the root the entries still hash to at its size; each
 * consecutive pair must be consistent; and each external note (a checkpoint file, an anchor file)
 * must verify under a trusted key and commit to exactly the tree the ledger still holds at its size.
 * A tail cut, or an entry removed and the rest re-appended, after a note was anchored fails here,
 * naming the note's size and what differs.
 * Owns: the tree and checkpoint checks. Reads the ledger; never writes. Notes are attacker-controlled.
 */
import {
  consistencyProof,
  fromHex,
  MemoryMerkleTree,
  merkleRoot,
  toHex,
  verifyCheckpointNote,
  verifyConsistency,
} from '../../crypto/index.js';
import { entryLeafHash, listCheckpoints } from '../../ledger/index.js';
import type { Ledger, StoredCheckpoint } from '../../ledger/index.js';
import { listCheckpointsPg } from '../../ledger/pg/checkpoints.js';
import type { PgLedger } from '../../ledger/pg/open.js';
import { pgSnapshot } from '../../ledger/pg/read.js';

export type TreeCheck =
  | 'subtrees'
  | 'checkpoint_signature'
  | 'checkpoint_body'
  | 'checkpoint_size'
  | 'checkpoint_root'
  | 'checkpoint_consistency'
  | 'anchor_malformed'
  | 'anchor_signature'
  | 'anchor_size'
  | 'anchor_root';

export interface TreeFailure {
  check: TreeCheck;
  /** Where the note came from: `ledger`, a checkpoint file, `<anchor file>:<line>`. */
  source: string;
  treeSize?: number;
  message: string;
}

export interface TreeVerdict {
  ok: boolean;
  /** Entries in the ledger, and the RFC 6962 root over all of them (64 hex; the empty-tree root for none). */
  treeSize: number;
  root: string;
  /** Stored checkpoints checked, and external notes checked. */
  checkpoints: number;
  anchors: number;
  /** The largest checkpoint or anchored note that still matches the entries, if any. */
  largestMatching?: number;
  failures: TreeFailure[];
}

export interface ExternalNote {
  source: string;
  note: string;
}

export interface VerifyTreeOptions {
  /** Kernel keys (64 hex) a checkpoint must be signed by. Required to check external notes; without it a stored checkpoint is checked under its own signer. */
  trustedKeys?: ReadonlySet<string> | undefined;
  /** Notes kept outside the ledger (`--checkpoint`, `--anchor-file`). */
  external?: readonly ExternalNote[];
  /** Lines of anchor files that are not notes (they fail the verdict). */
  malformed?: ReadonlyArray<{ source: string; reason: string }>;
}

type SubtreeRow = { level: number; idx: number; hash: Buffer };

/** What the checks read from a ledger: every entry_hash in seq order, every stored subtree (undefined: no such table), the stored checkpoints. */
export interface TreeSource {
  entryHashes: Iterable<string>;
  subtrees: Iterable<SubtreeRow> | undefined;
  checkpoints: StoredCheckpoint[];
}

/** Reads every entry_hash and stored subtree of an SQLite ledger: O(n). */
export function verifyTree(ledger: Ledger, options: VerifyTreeOptions = {}): TreeVerdict {
  const db = ledger.db;
  const hasSubtrees =
    db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'merkle_subtrees'").get() !== undefined;
  return verifyTreeOf(
    {
      entryHashes: (function* () {
        for (const row of db
          .prepare('SELECT entry_hash FROM ledger_entries ORDER BY seq')
          .iterate() as IterableIterator<{ entry_hash: string }>)
          yield row.entry_hash;
      })(),
      // Generators: each statement runs only once the one before has been read to the end (better-sqlite3 runs one at a time).
      subtrees: hasSubtrees
        ? (function* () {
            yield* db
              .prepare('SELECT level, idx, hash FROM merkle_subtrees ORDER BY level, idx')
              .iterate() as IterableIterator<SubtreeRow>;
          })()
        : undefined,
      checkpoints: listCheckpoints(ledger),
    },
    options,
  );
}

/** The same checks on PostgreSQL, over one snapshot. */
export async function verifyTreePg(ledger: PgLedger, options: VerifyTreeOptions = {}): Promise<TreeVerdict> {
  return pgSnapshot(ledger, async (client) => {
    const hashes: string[] = [];
    for (let after = 0; ; ) {
      const rows = (
        await client.query('SELECT seq, entry_hash FROM ledger_entries WHERE seq > $1 ORDER BY seq LIMIT 10000', [
          after,
        ])
      ).rows as Array<{ seq: number; entry_hash: string }>;
      if (rows.length === 0) break;
      for (const r of rows) hashes.push(r.entry_hash);
      after = rows.at(-1)!.seq;
    }
    const subtrees = (await client.query('SELECT level, idx, hash FROM merkle_subtrees ORDER BY level, idx'))
      .rows as SubtreeRow[];
    return verifyTreeOf({ entryHashes: hashes, subtrees, checkpoints: await listCheckpointsPg(client) }, options);
  });
}

/** The checks over what a ledger holds. */
export function verifyTreeOf(source: TreeSource, options: VerifyTreeOptions = {}): TreeVerdict {
  const tree = new MemoryMerkleTree();
  for (const hash of source.entryHashes) tree.append(entryLeafHash(hash));
  const n = tree.size;
  const failures: TreeFailure[] = [];
  let largestMatching: number | undefined;
  const rootAt = (size: number): string => toHex(merkleRoot(size, tree.read));

  // Stored subtrees: every complete subtree of level >= 1, equal to the recomputed one, and nothing else.
  if (source.subtrees !== undefined) {
    let expected = 0;
    for (let level = 1; 2 ** level <= n; level++) expected += Math.floor(n / 2 ** level);
    let seen = 0;
    let bad: string | undefined;
    for (const row of source.subtrees) {
      seen++;
      if (bad !== undefined) continue;
      // The rows are read from the file: attacker-controlled, whatever the table's CHECK says.
      if (!Number.isSafeInteger(row.level) || !Number.isSafeInteger(row.idx) || !Buffer.isBuffer(row.hash)) {
        bad = `merkle_subtrees holds a malformed row (level ${String(row.level)}, index ${String(row.idx)})`;
        continue;
      }
      const inside = row.level >= 1 && row.idx >= 0 && (row.idx + 1) * 2 ** row.level <= n;
      if (!inside)
        bad = `merkle_subtrees holds a subtree (level ${row.level}, index ${row.idx}) beyond the ${n} entries`;
      else if (!Buffer.from(tree.read(row.level, row.idx)).equals(row.hash))
        bad = `the stored subtree at level ${row.level}, index ${row.idx} does not match the entries`;
    }
    if (bad === undefined && seen !== expected)
      bad = `merkle_subtrees holds ${seen} subtrees; ${n} entries make ${expected}`;
    if (bad !== undefined)
      failures.push({
        check: 'subtrees',
        source: 'ledger',
        message: `${bad} (chio ledger rebuild-projections re-derives them)`,
      });
  }

  const checkAgainstEntries = (
    source: string,
    size: number,
    root: string,
    prefix: 'checkpoint' | 'anchor',
  ): boolean => {
    if (size > n) {
      failures.push({
        check: `${prefix}_size`,
        source,
        treeSize: size,
        message: `the checkpoint covers ${size} entries but the ledger holds ${n}: ${size - n} entries after seq ${n} are gone`,
      });
      return false;
    }
    const now = rootAt(size);
    if (now !== root) {
      failures.push({
        check: `${prefix}_root`,
        source,
        treeSize: size,
        message: `the ledger's first ${size} entries hash to root ${now}, not ${root} as the checkpoint of size ${size} says: an entry at or before seq ${size} was changed, removed or reordered`,
      });
      return false;
    }
    largestMatching = Math.max(largestMatching ?? 0, size);
    return true;
  };

  // Stored checkpoints.
  const stored = source.checkpoints;
  let previous: { size: number; root: string } | undefined;
  for (const c of stored) {
    const source = `ledger checkpoint ${c.treeSize}`;
    const v = verifyCheckpointNote(c.note, [...(options.trustedKeys ?? [c.signerKey])]);
    if (!v.ok) {
      failures.push({
        check: 'checkpoint_signature',
        source,
        treeSize: c.treeSize,
        message: `the stored note does not verify${options.trustedKeys === undefined ? ' under its own signer' : ' under a trusted key'}: ${v.reason}`,
      });
      continue;
    }
    if (v.body.treeSize !== c.treeSize || toHex(v.body.rootHash) !== c.rootHash || v.body.origin !== c.origin) {
      failures.push({
        check: 'checkpoint_body',
        source,
        treeSize: c.treeSize,
        message: 'the stored note names another tree than its row (size, root or origin)',
      });
      continue;
    }
    if (!checkAgainstEntries(source, c.treeSize, c.rootHash, 'checkpoint')) continue;
    if (previous !== undefined) {
      const proof = consistencyProof(previous.size, c.treeSize, tree.read);
      if (!verifyConsistency(previous.size, c.treeSize, proof, fromHex(previous.root), fromHex(c.rootHash))) {
        failures.push({
          check: 'checkpoint_consistency',
          source,
          treeSize: c.treeSize,
          message: `not consistent with the checkpoint of size ${previous.size}`,
        });
      }
    }
    previous = { size: c.treeSize, root: c.rootHash };
  }

  // Notes kept outside the ledger.
  for (const m of options.malformed ?? [])
    failures.push({ check: 'anchor_malformed', source: m.source, message: m.reason });
  for (const e of options.external ?? []) {
    const v = verifyCheckpointNote(e.note, [...(options.trustedKeys ?? [])]);
    if (!v.ok) {
      failures.push({
        check: 'anchor_signature',
        source: e.source,
        message: `the note does not verify under a trusted kernel key: ${v.reason}`,
      });
      continue;
    }
    checkAgainstEntries(e.source, v.body.treeSize, toHex(v.body.rootHash), 'anchor');
  }

  return {
    ok: failures.length === 0,
    treeSize: n,
    root: rootAt(n),
    checkpoints: stored.length,
    anchors: options.external?.length ?? 0,
    ...(largestMatching === undefined ? {} : { largestMatching }),
    failures,
  };
}
