/**
 * The evidence bundle (`chio.evidence-bundle.v1`, DESIGN §10): everything needed to check one
 * session offline with only a public key — the session's ledger entries (seq, prev_hash,
 * entry_hash, session_id, session_prev_seq, body), an inclusion proof for each against one signed
 * checkpoint, that checkpoint's note, and the session's compliance certificate.
 * Owns: the format. A bundle read from a file is attacker-controlled: every member is bounded.
 */
import { z } from 'zod';
import { CertificateSchema } from '../certificate/index.js';
import { InclusionProofSchema } from '../checkpoints/index.js';

export const EVIDENCE_BUNDLE_SCHEMA_ID = 'chio.evidence-bundle.v1';

const hex64 = z.string().regex(/^[0-9a-f]{64}$/, 'expected 64 lowercase hex characters');
const seq = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

export const BundleEntrySchema = z.strictObject({
  seq,
  prev_hash: hex64,
  entry_hash: hex64,
  session_id: z.string().min(1).max(256),
  session_prev_seq: seq.nullable(),
  /** The signed receipt's exact RFC 8785 text, as stored in the ledger. */
  body: z
    .string()
    .min(2)
    .max(1024 * 1024),
});
export type BundleEntry = z.infer<typeof BundleEntrySchema>;

export const EvidenceBundleSchema = z.strictObject({
  schema: z.literal(EVIDENCE_BUNDLE_SCHEMA_ID),
  session_id: z.string().min(1).max(256),
  entries: z.array(BundleEntrySchema).min(1).max(10_000_000),
  /** proofs[i] proves entries[i] against the checkpoint. */
  proofs: z.array(InclusionProofSchema).max(10_000_000),
  /** The signed checkpoint note (C2SP signed-note text). */
  checkpoint: z
    .string()
    .min(1)
    .max(128 * 1024),
  certificate: CertificateSchema,
});
export type EvidenceBundle = z.infer<typeof EvidenceBundleSchema>;
