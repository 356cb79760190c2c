/**
 * Inclusion and consistency proofs over the ledger's Merkle tree as JSON (DESIGN §10:
 * `chio.inclusion-proof.v1` `{schema, seq, leaf_index, tree_size, entry_hash, hashes}` and
 * `chio.consistency-proof.v1` `{schema, old_size, new_size, hashes}`, hashes as 64 hex), built
 * from the stored tree in O(log n) reads, and checked offline against signed checkpoint notes.
 * Owns: the proof formats and their offline check. Reads the ledger; never writes. Proofs and notes
 * given to the checks are attacker-controlled.
 */
import { z } from 'zod';
import {
  consistencyProof,
  fromHex,
  inclusionProof,
  merkleLeafHash,
  toHex,
  verifyCheckpointNote,
  verifyConsistency,
  verifyInclusion,
} from '../../crypto/index.js';
import type { SubtreeReader } from '../../crypto/index.js';
import { ChioError } from '../../errors.js';
import { LedgerTree, latestCheckpoint } from '../../ledger/index.js';
import type { Ledger } from '../../ledger/index.js';
import { latestCheckpointPg } from '../../ledger/pg/checkpoints.js';
import type { PgLedger } from '../../ledger/pg/open.js';
import { pgSnapshot } from '../../ledger/pg/read.js';
import { treeSizePg, withStoredTree } from '../../ledger/pg/tree.js';
import { describeIssues } from '../../validation.js';

export const INCLUSION_PROOF_SCHEMA = 'chio.inclusion-proof.v1';
export const CONSISTENCY_PROOF_SCHEMA = 'chio.consistency-proof.v1';
/** A tree of 2^53 leaves needs 53 hashes; more is not a proof. */
const MAX_PROOF_HASHES = 64;

const hex64 = z.string().regex(/^[0-9a-f]{64}$/, 'expected 64 lowercase hex characters');
const size = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

export const InclusionProofSchema = z
  .strictObject({
    schema: z.literal(INCLUSION_PROOF_SCHEMA),
    seq: size,
    leaf_index: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
    tree_size: size,
    entry_hash: hex64,
    hashes: z.array(hex64).max(MAX_PROOF_HASHES),
  })
  .refine((p) => p.leaf_index === p.seq - 1 && p.leaf_index < p.tree_size, {
    message: 'leaf_index must be seq - 1 and inside the tree',
  });
export type InclusionProof = z.infer<typeof InclusionProofSchema>;

export const ConsistencyProofSchema = z
  .strictObject({
    schema: z.literal(CONSISTENCY_PROOF_SCHEMA),
    old_size: size,
    new_size: size,
    hashes: z.array(hex64).max(2 * MAX_PROOF_HASHES),
  })
  .refine((p) => p.old_size <= p.new_size, { message: 'old_size must not exceed new_size' });
export type ConsistencyProof = z.infer<typeof ConsistencyProofSchema>;

/** What a proof reads: the tree's size, the latest stored checkpoint's size, and its nodes (either store). */
export interface ProofSource {
  treeSize: number;
  latestCheckpointSize: number | undefined;
  read: SubtreeReader;
}

type EntryRow = { seq: number; entry_hash: string };
type Target = { receiptId: string } | { seq: number };

/** Inclusion proof of the entry holding `receiptId` (or at `seq`) in the tree of `treeSize` entries. */
export function proveInclusion(
  ledger: Ledger,
  target: Target,
  options: { treeSize?: number | undefined; tree?: LedgerTree } = {},
): InclusionProof {
  const tree = options.tree ?? new LedgerTree(ledger.db);
  const row = (
    'receiptId' in target
      ? ledger.db.prepare('SELECT seq, entry_hash FROM ledger_entries WHERE receipt_id = ?').get(target.receiptId)
      : ledger.db.prepare('SELECT seq, entry_hash FROM ledger_entries WHERE seq = ?').get(target.seq)
  ) as EntryRow | undefined;
  const latestCheckpointSize = options.treeSize === undefined ? latestCheckpoint(ledger)?.treeSize : undefined;
  return inclusionOf(
    row,
    target,
    { treeSize: tree.treeSize(), latestCheckpointSize, read: tree.read },
    options.treeSize,
  );
}

/**
 * The proof for `row` (the entry `target` names, undefined when there is none) in the tree of
 * `treeSize` entries — by default the latest stored checkpoint that covers it, else the whole ledger.
 */
export function inclusionOf(
  row: EntryRow | undefined,
  target: Target,
  source: ProofSource,
  treeSize?: number,
): InclusionProof {
  if (row === undefined)
    throw new ChioError(
      'CHIO-PROOF-NOT-FOUND',
      `no entry ${'receiptId' in target ? `with receipt id ${target.receiptId}` : `at seq ${target.seq}`} in the ledger`,
    );
  const n = source.treeSize;
  const size =
    treeSize ??
    (source.latestCheckpointSize !== undefined && source.latestCheckpointSize >= row.seq
      ? source.latestCheckpointSize
      : n);
  if (!Number.isSafeInteger(size) || size < row.seq || size > n) {
    throw new ChioError(
      'CHIO-PROOF-NOT-FOUND',
      `no tree of size ${size} holds seq ${row.seq} (the ledger has ${n} entries)`,
    );
  }
  const hashes = inclusionProof(row.seq - 1, size, source.read).map(toHex);
  return {
    schema: INCLUSION_PROOF_SCHEMA,
    seq: row.seq,
    leaf_index: row.seq - 1,
    tree_size: size,
    entry_hash: row.entry_hash,
    hashes,
  };
}

/** Consistency proof from the tree of `oldSize` entries to the tree of `newSize` (default: the whole ledger). */
export function proveConsistency(
  ledger: Ledger,
  oldSize: number,
  newSize?: number,
  tree: LedgerTree = new LedgerTree(ledger.db),
): ConsistencyProof {
  return consistencyOf(oldSize, newSize, {
    treeSize: tree.treeSize(),
    latestCheckpointSize: undefined,
    read: tree.read,
  });
}

export function consistencyOf(oldSize: number, newSize: number | undefined, source: ProofSource): ConsistencyProof {
  const n = source.treeSize;
  const to = newSize ?? n;
  if (!Number.isSafeInteger(oldSize) || !Number.isSafeInteger(to) || oldSize < 1 || oldSize > to || to > n) {
    throw new ChioError(
      'CHIO-PROOF-NOT-FOUND',
      `no consistency proof from size ${oldSize} to ${to} (the ledger has ${n} entries; 1 <= old <= new <= ${n})`,
    );
  }
  return {
    schema: CONSISTENCY_PROOF_SCHEMA,
    old_size: oldSize,
    new_size: to,
    hashes: consistencyProof(oldSize, to, source.read).map(toHex),
  };
}

/** On PostgreSQL: the entry, the sizes and the O(log n) nodes read in one snapshot. */
export async function proveInclusionPg(
  ledger: PgLedger,
  target: Target,
  options: { treeSize?: number | undefined } = {},
): Promise<InclusionProof> {
  return pgSnapshot(ledger, async (client) => {
    const row = (
      'receiptId' in target
        ? await client.query('SELECT seq, entry_hash FROM ledger_entries WHERE receipt_id = $1', [target.receiptId])
        : await client.query('SELECT seq, entry_hash FROM ledger_entries WHERE seq = $1', [target.seq])
    ).rows[0] as EntryRow | undefined;
    const sizes = {
      treeSize: await treeSizePg(client),
      latestCheckpointSize: (await latestCheckpointPg(client))?.treeSize,
    };
    return withStoredTree(client, (read) => inclusionOf(row, target, { ...sizes, read }, options.treeSize));
  });
}

export async function proveConsistencyPg(
  ledger: PgLedger,
  oldSize: number,
  newSize?: number,
): Promise<ConsistencyProof> {
  return pgSnapshot(ledger, async (client) => {
    const treeSize = await treeSizePg(client);
    return withStoredTree(client, (read) =>
      consistencyOf(oldSize, newSize, { treeSize, latestCheckpointSize: undefined, read }),
    );
  });
}

export type ProofVerdict =
  | { ok: true; kind: 'inclusion'; seq: number; treeSize: number; signerKey: string }
  | { ok: true; kind: 'consistency'; oldSize: number; newSize: number; signerKey: string }
  | { ok: false; reason: string };

/**
 * Checks a proof offline. Inclusion: one note whose tree size is the proof's. Consistency: a note
 * for each size (old and new) among `notes`. Each note must verify under `trustedKeys` (64 hex).
 */
export function verifyProof(proof: unknown, notes: readonly string[], trustedKeys: readonly string[]): ProofVerdict {
  const schema = (proof as { schema?: unknown } | null)?.schema;
  const checked: Array<Extract<ReturnType<typeof verifyCheckpointNote>, { ok: true }>> = [];
  for (const note of notes) {
    const v = verifyCheckpointNote(note, trustedKeys);
    if (!v.ok) return { ok: false, reason: `checkpoint: ${v.reason}` };
    checked.push(v);
  }
  const noteFor = (n: number) => checked.find((v) => v.body.treeSize === n);
  if (schema === INCLUSION_PROOF_SCHEMA) {
    const p = InclusionProofSchema.safeParse(proof);
    if (!p.success)
      return { ok: false, reason: `not a valid ${INCLUSION_PROOF_SCHEMA}: ${describeIssues(p.error).join('; ')}` };
    const note = noteFor(p.data.tree_size);
    if (note === undefined)
      return {
        ok: false,
        reason: `no checkpoint given for tree size ${p.data.tree_size} (given: ${checked.map((v) => v.body.treeSize).join(', ') || 'none'})`,
      };
    const ok = verifyInclusion(
      merkleLeafHash(fromHex(p.data.entry_hash)),
      p.data.leaf_index,
      p.data.tree_size,
      p.data.hashes.map(fromHex),
      note.body.rootHash,
    );
    return ok
      ? { ok: true, kind: 'inclusion', seq: p.data.seq, treeSize: p.data.tree_size, signerKey: note.signerKey }
      : {
          ok: false,
          reason: `entry ${p.data.entry_hash} at seq ${p.data.seq} is not in the tree of size ${p.data.tree_size} the checkpoint signs (the proof does not lead to its root)`,
        };
  }
  if (schema === CONSISTENCY_PROOF_SCHEMA) {
    const p = ConsistencyProofSchema.safeParse(proof);
    if (!p.success)
      return { ok: false, reason: `not a valid ${CONSISTENCY_PROOF_SCHEMA}: ${describeIssues(p.error).join('; ')}` };
    const older = noteFor(p.data.old_size);
    const newer = noteFor(p.data.new_size);
    if (older === undefined || newer === undefined)
      return {
        ok: false,
        reason: `a consistency proof needs a checkpoint of size ${p.data.old_size} and one of size ${p.data.new_size}`,
      };
    const ok = verifyConsistency(
      p.data.old_size,
      p.data.new_size,
      p.data.hashes.map(fromHex),
      older.body.rootHash,
      newer.body.rootHash,
    );
    return ok
      ? {
          ok: true,
          kind: 'consistency',
          oldSize: p.data.old_size,
          newSize: p.data.new_size,
          signerKey: newer.signerKey,
        }
      : {
          ok: false,
          reason: `the tree of size ${p.data.new_size} does not extend the tree of size ${p.data.old_size}: the proof does not connect the two checkpoints' roots`,
        };
  }
  return { ok: false, reason: `not a proof: schema must be ${INCLUSION_PROOF_SCHEMA} or ${CONSISTENCY_PROOF_SCHEMA}` };
}
