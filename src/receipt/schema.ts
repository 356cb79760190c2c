/**
 * The `chio.receipt.v1` wire format (DESIGN §5) as zod schemas; types come from `z.infer`.
 * Owns: field names, types and encodings. Must not import ledger, kernel, edges or cli.
 *
 * Objects are strict: a receipt with a member this version does not know is not a valid v1
 * receipt, even if its signature verifies (unknown members would be signed but never checked).
 * Optional members are omitted, never `null`.
 */
import { z } from 'zod';

export const RECEIPT_SCHEMA_ID = 'chio.receipt.v1';

const hex64 = z.string().regex(/^[0-9a-f]{64}$/, 'expected 64 lowercase hex characters');
const hex128 = z.string().regex(/^[0-9a-f]{128}$/, 'expected 128 lowercase hex characters');
/** Integers in signed objects are safe integers (DESIGN §4). */
const unixSeconds = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
/**
 * A plain JSON object, passed through as is. Not `z.record`: it copies members by assignment, and
 * assigning a member named "__proto__" (legal JSON, and attacker-controlled here) replaces the
 * copy's prototype instead of keeping the member, so the signed bytes would silently change.
 */
const jsonObject = z.custom<Record<string, unknown>>(
  (v) => typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype,
  'expected a JSON object',
);

export const DecisionSchema = z.discriminatedUnion('verdict', [
  z.strictObject({ verdict: z.literal('allow') }),
  z.strictObject({ verdict: z.literal('deny'), reason: z.string(), guard: z.string() }),
  z.strictObject({ verdict: z.literal('cancelled'), reason: z.string() }),
  z.strictObject({ verdict: z.literal('incomplete'), reason: z.string() }),
]);
export type Decision = z.infer<typeof DecisionSchema>;
export type Verdict = Decision['verdict'];

export const ReceiptKindSchema = z.enum(['mediated_decision', 'trace_observation', 'advisory_evaluation']);
export const BoundaryClassSchema = z.enum(['prevent', 'detect_only', 'advisory_only']);
export const ToolOriginSchema = z.enum([
  'caller_executed',
  'host_executed_provider_reported',
  'host_executed_unmediated',
]);
export const RedactionModeSchema = z.enum(['none', 'summary', 'redacted']);
export const TrustLevelSchema = z.enum(['mediated', 'verified', 'advisory']);
export type ReceiptKind = z.infer<typeof ReceiptKindSchema>;
export type BoundaryClass = z.infer<typeof BoundaryClassSchema>;
export type TrustLevel = z.infer<typeof TrustLevelSchema>;

export const GuardEvidenceSchema = z.strictObject({
  guard_name: z.string(),
  verdict: z.boolean(),
  details: z.string().optional(),
});
export type GuardEvidence = z.infer<typeof GuardEvidenceSchema>;

export const ToolCallActionSchema = z.strictObject({
  /** Possibly redacted (see redaction_mode); the hash is always over the original. */
  parameters: z.unknown(),
  parameter_hash: hex64,
});

/** Everything the producer decides; the signer adds kernel_key, id and signature. */
const receiptFields = {
  timestamp: unixSeconds,
  capability_id: z.string().min(1),
  tool_server: z.string().min(1),
  tool_name: z.string().min(1),
  action: ToolCallActionSchema,
  decision: DecisionSchema.optional(),
  receipt_kind: ReceiptKindSchema,
  boundary_class: BoundaryClassSchema,
  tool_origin: ToolOriginSchema,
  redaction_mode: RedactionModeSchema,
  actor_chain: z.array(z.unknown()).optional(),
  content_hash: hex64,
  /** 64-hex, or "" where no policy was in force (trace observations). */
  policy_hash: z.union([hex64, z.literal('')]),
  evidence: z.array(GuardEvidenceSchema).optional(),
  metadata: jsonObject.optional(),
  trust_level: TrustLevelSchema,
  tenant_id: z.string().optional(),
};

/** A receipt as its producer hands it to the signer. `parameter_hash` may be left for the signer to compute. */
export const ReceiptDraftSchema = z.strictObject({
  ...receiptFields,
  action: z.strictObject({ parameters: z.unknown(), parameter_hash: hex64.optional() }),
});
export type ReceiptDraft = z.input<typeof ReceiptDraftSchema>;

/** A signed `chio.receipt.v1` receipt. Attacker-controlled whenever it was read from outside this process. */
export const ReceiptSchema = z.strictObject({
  ...receiptFields,
  id: hex64,
  kernel_key: hex64,
  /** Not covered by id or signature (DESIGN §5); only Ed25519 exists in v1. */
  algorithm: z.literal('ed25519').optional(),
  signature: hex128,
});
export type Receipt = z.infer<typeof ReceiptSchema>;

export { describeIssues } from '../validation.js';
