/**
 * The compliance certificate (`chio.compliance.certificate.v1`): a signed summary of one
 * session. `{body, signer_key, signature}`, signature = Ed25519 by the signer over JCS(body). The
 * `ledger_binding` ties it to the ledger: the session's first and last seq, the entry_hash of its
 * last entry, and H([receipt ids in session order]).
 * Owns: the format. Imports zod only. A certificate read from a file is attacker-controlled.
 */
import { z } from 'zod';

export const CERTIFICATE_SCHEMA_ID = 'chio.compliance.certificate.v1';

const hex64 = z.string().regex(/^[0-9a-f]{64}$/, 'expected 64 lowercase hex characters');
const seconds = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

export const LedgerBindingSchema = z.strictObject({
  first_seq: z.number().int().positive(),
  last_seq: z.number().int().positive(),
  session_head_entry_hash: hex64,
  receipt_set_digest: hex64,
});

export const CertificateBodySchema = z.strictObject({
  schema: z.literal(CERTIFICATE_SCHEMA_ID),
  session_id: z.string().min(1),
  issued_at: seconds,
  receipt_count: z.number().int().positive(),
  first_receipt_at: seconds,
  last_receipt_at: seconds,
  all_signatures_valid: z.boolean(),
  chain_continuous: z.boolean(),
  scope_compliant: z.boolean(),
  budget_compliant: z.boolean(),
  guards_compliant: z.boolean(),
  anomalies: z.array(z.string()),
  kernel_key: hex64,
  ledger_binding: LedgerBindingSchema,
});
export type CertificateBody = z.infer<typeof CertificateBodySchema>;

export const CertificateSchema = z.strictObject({
  body: CertificateBodySchema,
  signer_key: hex64,
  signature: z.string().regex(/^[0-9a-f]{128}$/, 'expected 128 lowercase hex characters'),
});
export type Certificate = z.infer<typeof CertificateSchema>;
