/**
 * Signed checkpoints of a PostgreSQL ledger (DESIGN §10): the same C2SP signed notes over the RFC
 * 6962 root, kept append-only in ledger_checkpoints, under the same rule as on SQLite
 * (../checkpoints.ts): a checkpoint is never signed over a tree that no longer holds the latest
 * stored one. Made under the append lock, so the size it covers is the head when it is signed.
 * Owns: ledger_checkpoints on PostgreSQL. Must not import kernel, edges, cli or projections.
 */
import type pg from 'pg';
import { defaultOrigin, merkleRoot, toHex } from '../../crypto/index.js';
import type { Ed25519Signer } from '../../crypto/index.js';
import { ChioError } from '../../errors.js';
import { assertStillHolds, checkpointFromRow, shrunk, signedCheckpoint } from '../checkpoints.js';
import type { CheckpointOptions, CheckpointOutcome, CheckpointRow, StoredCheckpoint } from '../checkpoints.js';
import type { PgLedger } from './open.js';
import { inTransaction } from './transaction.js';
import { treeSizePg, withStoredTree } from './tree.js';

type Queryable = pg.Pool | pg.PoolClient;

/** Every stored checkpoint, smallest tree first (read from the database: verify before trusting). */
export async function listCheckpointsPg(db: Queryable): Promise<StoredCheckpoint[]> {
  return ((await db.query('SELECT * FROM ledger_checkpoints ORDER BY tree_size')).rows as CheckpointRow[]).map(
    checkpointFromRow,
  );
}

export async function latestCheckpointPg(db: Queryable): Promise<StoredCheckpoint | undefined> {
  const row = (await db.query('SELECT * FROM ledger_checkpoints ORDER BY tree_size DESC LIMIT 1')).rows[0] as
    | CheckpointRow
    | undefined;
  return row === undefined ? undefined : checkpointFromRow(row);
}

/**
 * Signs and stores a checkpoint of the whole ledger as it is now. If the latest stored checkpoint
 * already covers every entry, it is returned (created: false). CHIO-CHECKPOINT-EMPTY-LEDGER for an
 * empty ledger, CHIO-CHECKPOINT-INCONSISTENT when the ledger no longer holds the latest one's tree.
 */
export async function createCheckpointPg(
  ledger: PgLedger,
  signer: Ed25519Signer,
  options: CheckpointOptions = {},
): Promise<CheckpointOutcome> {
  try {
    return await inTransaction(ledger.pool, async (client): Promise<CheckpointOutcome> => {
      await client.query('SELECT id FROM chio_append_lock WHERE id = 1 FOR UPDATE');
      const size = await treeSizePg(client);
      if (size === 0)
        throw new ChioError(
          'CHIO-CHECKPOINT-EMPTY-LEDGER',
          'the ledger has no entries: there is no tree to checkpoint',
        );
      const latest = await latestCheckpointPg(client);
      if (latest !== undefined && latest.treeSize > size) throw shrunk(latest, size);
      const [then, now] = await withStoredTree(
        client,
        (read) =>
          [latest === undefined ? undefined : merkleRoot(latest.treeSize, read), merkleRoot(size, read)] as const,
      );
      if (latest !== undefined) {
        assertStillHolds(latest, toHex(then!));
        if (latest.treeSize === size) return { checkpoint: latest, created: false };
      }
      const first = (await client.query('SELECT entry_hash FROM ledger_entries WHERE seq = 1')).rows[0] as {
        entry_hash: string;
      };
      const checkpoint = signedCheckpoint(
        size,
        now,
        options.origin ?? defaultOrigin(first.entry_hash),
        signer,
        options.now,
      );
      await client.query(
        'INSERT INTO ledger_checkpoints (tree_size, root_hash, origin, signer_key, note, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
        [
          checkpoint.treeSize,
          checkpoint.rootHash,
          checkpoint.origin,
          checkpoint.signerKey,
          checkpoint.note,
          checkpoint.createdAt,
        ],
      );
      return { checkpoint, created: true };
    });
  } catch (e) {
    if (e instanceof ChioError) throw e;
    throw new ChioError('CHIO-LEDGER-APPEND-FAILED', `checkpoint not stored: ${(e as Error).message}`, { cause: e });
  }
}
