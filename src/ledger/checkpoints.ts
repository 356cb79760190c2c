/**
 * Signed checkpoints stored in the ledger (DESIGN §10): a C2SP signed note over the RFC 6962 root
 * of the first `tree_size` entries, signed by a kernel key, kept append-only in
 * ledger_checkpoints. A checkpoint is never signed over a tree that is not consistent with the
 * latest stored one: the stored tree must still hash to that checkpoint's root at its size, or the
 * new one is refused (CHIO-CHECKPOINT-INCONSISTENT) — a ledger cut or rewritten since is not
 * blessed by a fresh signature.
 * Owns: ledger_checkpoints. Must not import kernel, edges, cli or projections.
 */
import { defaultOrigin, signCheckpoint, toHex } from '../crypto/index.js';
import type { Ed25519Signer } from '../crypto/index.js';
import { ChioError } from '../errors.js';
import type { Ledger } from './open.js';
import { LedgerTree } from './tree.js';

export interface StoredCheckpoint {
  treeSize: number;
  /** 64 hex. */
  rootHash: string;
  origin: string;
  signerKey: string;
  note: string;
  createdAt: number;
}

export interface CheckpointRow {
  tree_size: number;
  root_hash: string;
  origin: string;
  signer_key: string;
  note: string;
  created_at: number;
}

export const checkpointFromRow = (r: CheckpointRow): StoredCheckpoint => ({
  treeSize: r.tree_size,
  rootHash: r.root_hash,
  origin: r.origin,
  signerKey: r.signer_key,
  note: r.note,
  createdAt: r.created_at,
});

function hasCheckpointTable(ledger: Ledger): boolean {
  return (
    ledger.db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'ledger_checkpoints'").get() !==
    undefined
  );
}

/** Every stored checkpoint, smallest tree first (read from the file: verify before trusting). */
export function listCheckpoints(ledger: Ledger): StoredCheckpoint[] {
  if (!hasCheckpointTable(ledger)) return [];
  return (ledger.db.prepare('SELECT * FROM ledger_checkpoints ORDER BY tree_size').all() as CheckpointRow[]).map(
    checkpointFromRow,
  );
}

export function latestCheckpoint(ledger: Ledger): StoredCheckpoint | undefined {
  if (!hasCheckpointTable(ledger)) return undefined;
  const row = ledger.db.prepare('SELECT * FROM ledger_checkpoints ORDER BY tree_size DESC LIMIT 1').get() as
    | CheckpointRow
    | undefined;
  return row === undefined ? undefined : checkpointFromRow(row);
}

/** The origin line of this ledger's checkpoints by default: `chio-ledger/<first 32 hex of seq 1's entry_hash>`. */
export function ledgerOrigin(ledger: Ledger): string {
  const first = ledger.db.prepare('SELECT entry_hash FROM ledger_entries WHERE seq = 1').get() as
    | { entry_hash: string }
    | undefined;
  if (first === undefined)
    throw new ChioError('CHIO-CHECKPOINT-EMPTY-LEDGER', 'the ledger has no entries: there is no tree to checkpoint');
  return defaultOrigin(first.entry_hash);
}

export interface CheckpointOptions {
  /** The note's origin line (default: ledgerOrigin). */
  origin?: string | undefined;
  now?: number | undefined;
}

export type CheckpointOutcome = { checkpoint: StoredCheckpoint; created: boolean };

/** The ledger holds fewer entries than the latest checkpoint covers. */
export function shrunk(latest: StoredCheckpoint, size: number): ChioError {
  return new ChioError(
    'CHIO-CHECKPOINT-INCONSISTENT',
    `the latest checkpoint covers ${latest.treeSize} entries but the ledger holds ${size}: entries were removed; no checkpoint is signed over it`,
  );
}

/** Throws unless the ledger's first `latest.treeSize` entries still hash to the latest checkpoint's root (`now`, hex). */
export function assertStillHolds(latest: StoredCheckpoint, now: string): void {
  if (now !== latest.rootHash) {
    throw new ChioError(
      'CHIO-CHECKPOINT-INCONSISTENT',
      `the ledger's first ${latest.treeSize} entries hash to root ${now}, not ${latest.rootHash} as the latest checkpoint says: entries were changed or removed; no checkpoint is signed over it`,
    );
  }
}

/** A new checkpoint of `size` entries with root `rootHash`, signed as a C2SP note whose key name is the origin (DESIGN §10). */
export function signedCheckpoint(
  size: number,
  rootHash: Uint8Array,
  origin: string,
  signer: Ed25519Signer,
  now?: number,
): StoredCheckpoint {
  // Verifiers identify the key by (origin, key hash).
  const note = signCheckpoint({ origin, treeSize: size, rootHash }, signer, origin);
  return {
    treeSize: size,
    rootHash: toHex(rootHash),
    origin,
    signerKey: signer.publicKeyHex,
    note,
    createdAt: now ?? Math.floor(Date.now() / 1000),
  };
}

/**
 * Signs and stores a checkpoint of the whole ledger as it is now, in one IMMEDIATE transaction.
 * If the latest stored checkpoint already covers every entry, it is returned (created: false).
 * Throws CHIO-CHECKPOINT-EMPTY-LEDGER for an empty ledger and CHIO-CHECKPOINT-INCONSISTENT when the
 * ledger no longer holds the tree of the latest stored checkpoint.
 */
export function createCheckpoint(
  ledger: Ledger,
  signer: Ed25519Signer,
  options: CheckpointOptions = {},
): CheckpointOutcome {
  const db = ledger.db;
  const run = db.transaction((): CheckpointOutcome => {
    const tree = new LedgerTree(db);
    const size = tree.treeSize();
    if (size === 0)
      throw new ChioError('CHIO-CHECKPOINT-EMPTY-LEDGER', 'the ledger has no entries: there is no tree to checkpoint');
    const latest = latestCheckpoint(ledger);
    if (latest !== undefined) {
      if (latest.treeSize > size) throw shrunk(latest, size);
      assertStillHolds(latest, toHex(tree.root(latest.treeSize)));
      if (latest.treeSize === size) return { checkpoint: latest, created: false };
    }
    const checkpoint = signedCheckpoint(
      size,
      tree.root(size),
      options.origin ?? ledgerOrigin(ledger),
      signer,
      options.now,
    );
    db.prepare(
      'INSERT INTO ledger_checkpoints (tree_size, root_hash, origin, signer_key, note, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    ).run(
      checkpoint.treeSize,
      checkpoint.rootHash,
      checkpoint.origin,
      checkpoint.signerKey,
      checkpoint.note,
      checkpoint.createdAt,
    );
    return { checkpoint, created: true };
  });
  try {
    return run.immediate();
  } catch (e) {
    if (e instanceof ChioError) throw e;
    throw new ChioError('CHIO-LEDGER-APPEND-FAILED', `checkpoint not stored: ${(e as Error).message}`, { cause: e });
  }
}
