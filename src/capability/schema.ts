/**
 * The `chio.capability.v1` token (DESIGN §7) as zod schemas; types come from `z.infer`.
 * Owns: field names and encodings. Must not import ledger, kernel, edges or cli.
 *
 * A token is attacker-controlled whenever it arrives from outside the kernel: every field is
 * validated strictly before anything else looks at it.
 */
import { z } from 'zod';

export const CAPABILITY_SCHEMA_ID = 'chio.capability.v1';
/** Longest delegation chain accepted (ancestors of a token). */
export const MAX_DELEGATION_DEPTH = 8;

const hex64 = z.string().regex(/^[0-9a-f]{64}$/, 'expected 64 lowercase hex characters');
const hex128 = z.string().regex(/^[0-9a-f]{128}$/, 'expected 128 lowercase hex characters');
const unixSeconds = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
const count = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

export const OperationSchema = z.enum(['invoke', 'read_result', 'read', 'subscribe', 'get', 'delegate']);
export type Operation = z.infer<typeof OperationSchema>;

/** Upstream's wire shape: `{"type": …, "value": …}` (chio-core-types capability.rs). */
export const ConstraintSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('path_prefix'), value: z.string().startsWith('/', 'a path prefix is absolute') }),
  z.strictObject({ type: z.literal('domain_exact'), value: z.string().min(1) }),
  z.strictObject({ type: z.literal('domain_glob'), value: z.string().min(1) }),
  z.strictObject({ type: z.literal('regex_match'), value: z.string().min(1) }),
  z.strictObject({ type: z.literal('max_length'), value: count }),
  z.strictObject({ type: z.literal('max_args_size'), value: count }),
]);
export type Constraint = z.infer<typeof ConstraintSchema>;

/** An amount in the smallest unit of an ISO 4217 currency. */
export const MonetaryAmountSchema = z.strictObject({
  units: count,
  currency: z.string().regex(/^[A-Z]{3}$/, 'expected an ISO 4217 code'),
});
export type MonetaryAmount = z.infer<typeof MonetaryAmountSchema>;

export const ToolGrantSchema = z.strictObject({
  server_id: z.string().min(1),
  /** A tool name, or "*" for every tool of the server. */
  tool_name: z.string().min(1),
  operations: z.array(OperationSchema).min(1),
  constraints: z.array(ConstraintSchema).exactOptional(),
  max_invocations: count.exactOptional(),
  max_cost_per_invocation: MonetaryAmountSchema.exactOptional(),
  max_total_cost: MonetaryAmountSchema.exactOptional(),
  dpop_required: z.boolean().exactOptional(),
});
export type ToolGrant = z.infer<typeof ToolGrantSchema>;

export const ScopeSchema = z.strictObject({ grants: z.array(ToolGrantSchema) });
export type Scope = z.infer<typeof ScopeSchema>;

const tokenFields = {
  schema: z.literal(CAPABILITY_SCHEMA_ID),
  /** `cap-<uuidv7>` (a root token, named by its kernel) or `cap-<64 hex>` (a delegated token, named by its content: sign.ts). */
  id: z
    .string()
    .regex(
      /^cap-(?:[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}|[0-9a-f]{64})$/,
      'expected cap-<uuidv7> or cap-<64 hex>',
    ),
  /** Ed25519 public key of the signer. */
  issuer: hex64,
  /** Ed25519 public key of the agent the token is for. */
  subject: hex64,
  scope: ScopeSchema,
  issued_at: unixSeconds,
  expires_at: unixSeconds,
  /** For a delegated token: the id of the token it was delegated from (signed, so the chain cannot be re-parented). */
  parent_id: z.string().exactOptional(),
  signature: hex128,
};

/** A token as it appears inside another token's delegation chain: the chain itself is not repeated. */
export const AncestorTokenSchema = z.strictObject(tokenFields);
export type AncestorToken = z.infer<typeof AncestorTokenSchema>;

export const CapabilityTokenSchema = z.strictObject({
  ...tokenFields,
  /**
   * The tokens this one was delegated from, root first, each without its own chain. Not covered by
   * the signature (each ancestor carries its own); bound through `parent_id`.
   */
  delegation_chain: z.array(AncestorTokenSchema).max(MAX_DELEGATION_DEPTH).exactOptional(),
});
export type CapabilityToken = z.infer<typeof CapabilityTokenSchema>;
