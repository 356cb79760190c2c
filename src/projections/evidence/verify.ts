/**
 * Checking an evidence bundle offline, with no ledger, under trusted public keys: every receipt's
 * signature and id; every entry hash recomputed; the session chain complete from its first entry
 * (no session_prev_seq) to its last, each entry linking to the one before; every inclusion proof
 * leading to the checkpoint's root; the checkpoint's signature; and the certificate (a trusted
 * signer, its session, count and ledger_binding matching the entries). The first failure is the
 * verdict, naming what failed and where. A removed, reordered or altered receipt, a checkpoint of
 * another ledger or a certificate of another session all fail.
 * Owns: the bundle check. Imports no ledger file access. The bundle is attacker-controlled.
 */
import {
  fromHex,
  hashCanonical,
  merkleLeafHash,
  toHex,
  verifyCheckpointNote,
  verifyInclusion,
} from '../../crypto/index.js';
import { entryHash, receiptSha256 } from '../../ledger/index.js';
import { verifyReceipt } from '../../receipt/index.js';
import { describeIssues } from '../../validation.js';
import { verifyCertificate } from '../certificate/index.js';
import { EvidenceBundleSchema } from './schema.js';

export type EvidenceVerdict =
  | {
      ok: true;
      sessionId: string;
      receipts: number;
      treeSize: number;
      root: string;
      checkpointSigner: string;
      certificateSigner: string;
    }
  | { ok: false; check: EvidenceCheck; reason: string; seq?: number };

export type EvidenceCheck =
  | 'schema'
  | 'checkpoint'
  | 'entry'
  | 'receipt'
  | 'entry_hash'
  | 'session_chain'
  | 'inclusion'
  | 'certificate';

export interface VerifyEvidenceOptions {
  /** Kernel keys (64 hex) trusted to sign receipts, checkpoints and (their own sessions') certificates. */
  trustedKernelKeys: ReadonlySet<string>;
  /** Authority keys (64 hex) trusted to sign certificates. */
  trustedAuthorityKeys?: ReadonlySet<string> | undefined;
}

export function verifyEvidenceBundle(input: unknown, o: VerifyEvidenceOptions): EvidenceVerdict {
  const parsed = EvidenceBundleSchema.safeParse(input);
  if (!parsed.success)
    return {
      ok: false,
      check: 'schema',
      reason: `not a valid chio.evidence-bundle.v1: ${describeIssues(parsed.error).slice(0, 5).join('; ')}`,
    };
  const b = parsed.data;
  const fail = (check: EvidenceCheck, reason: string, seq?: number): EvidenceVerdict => ({
    ok: false,
    check,
    reason,
    ...(seq === undefined ? {} : { seq }),
  });

  const note = verifyCheckpointNote(b.checkpoint, [...o.trustedKernelKeys]);
  if (!note.ok) return fail('checkpoint', `the checkpoint does not verify under a trusted kernel key: ${note.reason}`);
  const { treeSize, rootHash } = note.body;
  if (b.proofs.length !== b.entries.length)
    return fail('inclusion', `${b.entries.length} entries but ${b.proofs.length} inclusion proofs`);

  const ids: string[] = [];
  let previousSeq: number | null = null;
  for (const [i, e] of b.entries.entries()) {
    if (e.session_id !== b.session_id)
      return fail(
        'entry',
        `the entry at seq ${e.seq} belongs to session ${JSON.stringify(e.session_id)}, not ${JSON.stringify(b.session_id)}`,
        e.seq,
      );
    if (e.session_prev_seq !== previousSeq) {
      return fail(
        'session_chain',
        previousSeq === null
          ? `the first entry (seq ${e.seq}) links to seq ${e.session_prev_seq}: the session's earlier entries are missing`
          : `the entry at seq ${e.seq} links to seq ${e.session_prev_seq ?? 'none'}, not to the entry before it (seq ${previousSeq}): an entry was removed, reordered or added`,
        e.seq,
      );
    }
    if (previousSeq !== null && e.seq <= previousSeq)
      return fail('session_chain', `seq ${e.seq} does not follow seq ${previousSeq}`, e.seq);
    let receipt: unknown;
    try {
      receipt = JSON.parse(e.body);
    } catch {
      return fail('receipt', `the body at seq ${e.seq} is not JSON`, e.seq);
    }
    const v = verifyReceipt(receipt, { trustedKernelKeys: o.trustedKernelKeys });
    if (!v.ok) return fail('receipt', `the receipt at seq ${e.seq} does not verify (${v.check}: ${v.message})`, e.seq);
    const recomputed = entryHash({
      seq: e.seq,
      prevHash: e.prev_hash,
      receiptSha256: receiptSha256(e.body),
      sessionId: e.session_id,
      sessionPrevSeq: e.session_prev_seq,
    });
    if (recomputed !== e.entry_hash)
      return fail(
        'entry_hash',
        `the entry at seq ${e.seq} hashes to ${recomputed}, not its entry_hash ${e.entry_hash}`,
        e.seq,
      );
    const p = b.proofs[i]!;
    if (p.seq !== e.seq || p.entry_hash !== e.entry_hash)
      return fail(
        'inclusion',
        `proof ${i} is for seq ${p.seq} (${p.entry_hash}), not for the entry at seq ${e.seq}`,
        e.seq,
      );
    if (p.tree_size !== treeSize)
      return fail(
        'inclusion',
        `the proof for seq ${e.seq} is against a tree of ${p.tree_size} entries, the checkpoint's has ${treeSize}`,
        e.seq,
      );
    if (
      !verifyInclusion(
        merkleLeafHash(fromHex(e.entry_hash)),
        p.leaf_index,
        p.tree_size,
        p.hashes.map(fromHex),
        rootHash,
      )
    ) {
      return fail(
        'inclusion',
        `the entry at seq ${e.seq} is not in the tree the checkpoint signs (its proof does not lead to root ${toHex(rootHash)})`,
        e.seq,
      );
    }
    ids.push(v.id);
    previousSeq = e.seq;
  }

  const cert = b.certificate;
  const cv = verifyCertificate(cert, {
    trustedKernelKeys: o.trustedKernelKeys,
    trustedAuthorityKeys: o.trustedAuthorityKeys,
  });
  if (!cv.passed) return fail('certificate', cv.reason);
  if (cert.body.session_id !== b.session_id)
    return fail(
      'certificate',
      `the certificate is for session ${JSON.stringify(cert.body.session_id)}, not ${JSON.stringify(b.session_id)}`,
    );
  if (cert.body.receipt_count !== b.entries.length)
    return fail(
      'certificate',
      `the certificate counts ${cert.body.receipt_count} receipts, the bundle holds ${b.entries.length}`,
    );
  const last = b.entries.at(-1)!;
  const actual = {
    first_seq: b.entries[0]!.seq,
    last_seq: last.seq,
    session_head_entry_hash: last.entry_hash,
    receipt_set_digest: hashCanonical(ids),
  };
  for (const key of Object.keys(actual) as Array<keyof typeof actual>) {
    if (cert.body.ledger_binding[key] !== actual[key])
      return fail('certificate', `the certificate's ledger_binding.${key} does not match the bundle's entries`);
  }
  return {
    ok: true,
    sessionId: b.session_id,
    receipts: b.entries.length,
    treeSize,
    root: toHex(rootHash),
    checkpointSigner: note.signerKey,
    certificateSigner: cert.signer_key,
  };
}
