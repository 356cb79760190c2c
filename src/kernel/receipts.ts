/**
 * The receipt drafts the kernel signs: allowed (and completed, failed or cancelled) calls, denials,
 * revocations, and the facts of a reserved call that recovery (recovery.ts) signs when its
 * receipt was never written. One place for the field choices of DESIGN §4–§5 as the kernel makes them.
 * Owns: draft construction and the stream content hash. Must not import ledger internals, edges or cli.
 */
import { z } from 'zod';
import { canonicalJson, hashCanonical, NULL_CONTENT_HASH, sha256Hex } from '../crypto/index.js';
import { GuardEvidenceSchema, PARAMETER_SALT_KEY, ParameterSaltMarkerSchema } from '../receipt/index.js';
import type { Decision, GuardEvidence, ReceiptDraft } from '../receipt/index.js';
import { GRANT_INDEX_KEY, REVOCATION_TOOL_NAME, REVOCATION_TOOL_SERVER } from '../ledger/index.js';
import type { LoadedPolicy } from './policy.js';
import { redactAction } from './redaction.js';
import type { RedactedAction } from './redaction.js';
import type { RedactionKey } from './redaction-key.js';

export interface CallFacts {
  now: number;
  capabilityId: string;
  serverId: string;
  toolName: string;
  parameters: unknown;
  evidence: GuardEvidence[];
  policy: LoadedPolicy;
  /** The receipt's signing nonce (the request id): with capabilityId and now, it names the receipt's parameter salt. */
  nonce: string;
  /** The operator's redaction key; required when the policy redacts (the parameter_hash is then salted). */
  redactionKey?: RedactionKey | undefined;
  metadata?: Record<string, unknown>;
}

/** DESIGN §4 stream hash: sha256_hex of the concatenated H(chunk.data) hex strings. */
export function streamContentHash(
  chunks: readonly unknown[],
  chunkHashes = chunks.map((c) => hashCanonical(c)),
): { contentHash: string; chunkHashes: string[] } {
  return { contentHash: sha256Hex(chunkHashes.join('')), chunkHashes };
}

/**
 * The redacted action of each call's facts, computed once: an allowed call needs it for its
 * reservation (reservedFacts) and again for its receipt (outcomeDraft), and computing it means
 * canonicalizing the parameters twice, an HMAC and a salted hash. Keyed by the facts object the
 * kernel built; reused only while every input is still the same value (the kernel reassigns
 * evidence and metadata, never these). So a redacted receipt records the redacted copy and salted
 * hash taken before dispatch — what was authorized and reserved — even if the tool mutates the
 * arguments object it was handed; the copy is the kernel's own (redactKeys builds new containers).
 */
const redactedOnce = new WeakMap<CallFacts, { inputs: readonly unknown[]; redacted: RedactedAction }>();

function redactedActionOf(f: CallFacts): RedactedAction {
  const inputs = [f.parameters, f.policy, f.redactionKey, f.capabilityId, f.now, f.nonce];
  const cached = redactedOnce.get(f);
  if (cached?.inputs.every((v, i) => v === inputs[i])) return cached.redacted;
  const redacted = redactAction(f.parameters, f.policy.policy.redaction, {
    key: f.redactionKey,
    input: { capabilityId: f.capabilityId, timestamp: f.now, signingNonce: f.nonce },
  });
  redactedOnce.set(f, { inputs, redacted });
  return redacted;
}

/**
 * The action of a receipt draft. Unredacted, the draft leaves parameter_hash to the signer, which
 * canonicalizes the parameters anyway for the action member and hashes that text: hashing them
 * here too would canonicalize them twice for the same bytes (DESIGN §4: H(parameters) either way).
 * Redacted, the salted hash and the redacted copy can only come from here (the signer never sees
 * the originals or the key); they are the ones computed for the call's reservation.
 */
function draftAction(
  f: CallFacts,
): Pick<RedactedAction, 'mode' | 'saltMarker'> & { action: { parameters: unknown; parameter_hash?: string } } {
  return f.policy.policy.redaction.mode === 'none'
    ? { action: { parameters: f.parameters }, mode: 'none' }
    : redactedActionOf(f);
}

function base(
  f: CallFacts,
  decision: Decision,
  contentHash: string,
  extraMetadata: Record<string, unknown>,
  redacted = draftAction(f),
): ReceiptDraft {
  // The salt marker last: nothing else may claim a receipt's hash is (or is not) salted.
  const metadata = {
    ...f.metadata,
    ...extraMetadata,
    ...(redacted.saltMarker === undefined ? {} : { [PARAMETER_SALT_KEY]: redacted.saltMarker }),
  };
  return {
    timestamp: f.now,
    capability_id: f.capabilityId,
    tool_server: f.serverId,
    tool_name: f.toolName,
    action: redacted.action,
    decision,
    receipt_kind: 'mediated_decision',
    boundary_class: 'prevent',
    tool_origin: 'caller_executed',
    redaction_mode: redacted.mode,
    content_hash: contentHash,
    policy_hash: f.policy.policyHash,
    ...(f.evidence.length > 0 ? { evidence: f.evidence } : {}),
    ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
    trust_level: 'mediated',
  };
}

export function denyDraft(f: CallFacts, reason: string, guard: string): ReceiptDraft {
  return base(f, { verdict: 'deny', reason, guard }, NULL_CONTENT_HASH, {});
}

/** A call withdrawn before dispatch: no grant used, nothing ran. */
export function cancelledDraft(f: CallFacts, reason: string): ReceiptDraft {
  return base(f, { verdict: 'cancelled', reason }, NULL_CONTENT_HASH, {});
}

/**
 * What a dispatched call produced. `contentHash` / `chunkHashes`: H(output) / H(chunk.data) as
 * the dispatcher already computed them while checking the output is JCS-representable (the
 * kernel's own values, computed from the same objects), so the output is canonicalized once.
 */
export type CallOutcome =
  | { kind: 'output'; output: unknown; contentHash?: string }
  | { kind: 'stream'; chunks: unknown[]; totalBytes: number; chunkHashes?: string[] }
  | { kind: 'failed'; reason: string }
  | { kind: 'cancelled'; reason: string };

/** An allowed call that ran: allow (with its output), incomplete (the tool failed) or cancelled. */
export function outcomeDraft(f: CallFacts, grantIndex: number, outcome: CallOutcome): ReceiptDraft {
  switch (outcome.kind) {
    case 'output':
      return base(f, { verdict: 'allow' }, outcome.contentHash ?? hashCanonical(outcome.output ?? null), {
        [GRANT_INDEX_KEY]: grantIndex,
      });
    case 'stream': {
      const { contentHash, chunkHashes } = streamContentHash(outcome.chunks, outcome.chunkHashes);
      return base(f, { verdict: 'allow' }, contentHash, {
        [GRANT_INDEX_KEY]: grantIndex,
        stream: { chunks_received: chunkHashes.length, total_bytes: outcome.totalBytes, chunk_hashes: chunkHashes },
      });
    }
    case 'failed':
      return base(f, { verdict: 'incomplete', reason: outcome.reason }, NULL_CONTENT_HASH, {
        [GRANT_INDEX_KEY]: grantIndex,
      });
    case 'cancelled':
      return base(f, { verdict: 'cancelled', reason: outcome.reason }, NULL_CONTENT_HASH, {
        [GRANT_INDEX_KEY]: grantIndex,
      });
  }
}

/**
 * Something the kernel saw cross a boundary and did not decide (DESIGN §5 trace_observation: no
 * decision, detect_only, trust verified): the parameters as the policy's redaction records them,
 * content_hash over what came back.
 */
export function observationDraft(f: CallFacts, contentHash: string): ReceiptDraft {
  const { decision: _decision, ...draft } = base(f, { verdict: 'allow' }, contentHash, {});
  return {
    ...draft,
    receipt_kind: 'trace_observation',
    boundary_class: 'detect_only',
    tool_origin: 'host_executed_provider_reported',
    trust_level: 'verified',
  };
}

/** A revocation is the kernel's own mediated action: chio-kernel/revoke_capability, allowed. */
export function revocationDraft(
  now: number,
  capabilityId: string,
  reason: string | undefined,
  policy: LoadedPolicy,
): ReceiptDraft {
  const parameters = reason === undefined ? { capability_id: capabilityId } : { capability_id: capabilityId, reason };
  return {
    timestamp: now,
    capability_id: capabilityId,
    tool_server: REVOCATION_TOOL_SERVER,
    tool_name: REVOCATION_TOOL_NAME,
    action: { parameters },
    decision: { verdict: 'allow' },
    receipt_kind: 'mediated_decision',
    boundary_class: 'prevent',
    tool_origin: 'caller_executed',
    redaction_mode: 'none',
    content_hash: NULL_CONTENT_HASH,
    policy_hash: policy.policyHash,
    trust_level: 'mediated',
  };
}

/** Receipt metadata: the producer's own id for the call (recorded, never trusted as unique). */
export const REQUEST_ID_KEY = 'chio_request_id';
/** A producer's call id longer than this is recorded as `sha256:<hex>` of it (the client chooses it). */
export const MAX_REQUEST_ID_CHARS = 256;

/** The producer's call id as a receipt records it (attacker-controlled: bounded). */
export function recordedRequestId(requestId: string): string {
  return requestId.length <= MAX_REQUEST_ID_CHARS ? requestId : `sha256:${sha256Hex(requestId)}`;
}

/**
 * The facts of an allowed call, stored with its reservation before the tool runs: the receipt
 * draft as it would be signed, minus decision, content_hash and metadata other than the salt
 * marker and the producer's call id (RFC 8785 text). The parameters are already redacted by the policy — unredacted
 * parameters never reach the table when the policy redacts them — and their hash already salted;
 * the salt and the key are never stored. Throws (before anything is reserved) for parameters JCS
 * cannot represent, or a redacting policy without a key.
 */
export function reservedFacts(f: CallFacts): string {
  const {
    decision: _decision,
    content_hash: _contentHash,
    metadata,
    ...facts
  } = base(f, { verdict: 'incomplete', reason: '' }, NULL_CONTENT_HASH, {}, redactedActionOf(f));
  // Kept from the metadata: the salt marker and the producer's own id for the call.
  const kept = Object.fromEntries(
    [PARAMETER_SALT_KEY, REQUEST_ID_KEY].flatMap((k) => (metadata?.[k] === undefined ? [] : [[k, metadata[k]]])),
  );
  return canonicalJson(Object.keys(kept).length === 0 ? facts : { ...facts, metadata: kept });
}

const hex64 = z.string().regex(/^[0-9a-f]{64}$/);
/** The members recovery takes from stored facts (read back from the file: attacker-controlled). */
const StoredFactsSchema = z.object({
  timestamp: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
  capability_id: z.string().min(1),
  tool_server: z.string().min(1),
  tool_name: z.string().min(1),
  action: z.object({ parameters: z.unknown(), parameter_hash: hex64 }),
  redaction_mode: z.enum(['none', 'summary', 'redacted']),
  policy_hash: z.union([hex64, z.literal('')]),
  evidence: z.array(GuardEvidenceSchema).optional(),
  // Only the salt marker and the producer's call id are kept from stored metadata (facts written
  // before salting have neither).
  metadata: z
    .object({
      [PARAMETER_SALT_KEY]: ParameterSaltMarkerSchema.optional(),
      [REQUEST_ID_KEY]: z.string().max(MAX_REQUEST_ID_CHARS).optional(),
    })
    .optional(),
});

/** Stands for a tool server or name the reservation did not record. */
export const UNKNOWN_TOOL = '(unknown)';
/** Stands for the parameter_hash of parameters the reservation did not record (no JCS text hashes to it). */
export const UNKNOWN_PARAMETER_HASH = '0'.repeat(64);

/** A reservation without a receipt, and what the settling process knows about it. */
export interface UnsettledCall {
  requestId: string;
  capabilityId: string;
  grantIndex: number;
  reservedAt: number;
  owner: string;
  toolServer: string | null;
  toolName: string | null;
  /** reservedFacts() text, or null (a row written before schema 5). */
  facts: string | null;
  /** Why the receipt is missing, for the reason: "its producer … is gone", "the append failed: …". */
  cause: { kind: 'producer_gone' | 'append_failed' | 'not_written'; detail: string };
  /** What this process saw the tool do, when it is the producer whose append failed. */
  toolOutcome?: { verdict: 'allow' | 'incomplete' | 'cancelled'; content_hash: string; reason?: string } | undefined;
}

/**
 * The `incomplete` receipt of a reserved call whose receipt was never written. Everything the
 * kernel decides (kind, boundary, trust, origin, decision) is fixed here, never read from the
 * row; from the stored facts come only the call's own members, and only when they parse and name
 * the row's capability. A row without usable facts gets a receipt that says what is unknown.
 */
type StoredFacts = z.infer<typeof StoredFactsSchema>;

/**
 * The stored facts, or undefined when they do not parse, name another capability, lack their
 * parameters, or carry unredacted parameters that do not hash to their parameter_hash: such facts
 * were not written by a kernel, and are not signed.
 */
function parseFacts(text: string, capabilityId: string): StoredFacts | undefined {
  try {
    const p = StoredFactsSchema.safeParse(JSON.parse(text));
    if (!p.success || p.data.capability_id !== capabilityId || !('parameters' in p.data.action)) return undefined;
    if (p.data.redaction_mode === 'none' && hashCanonical(p.data.action.parameters) !== p.data.action.parameter_hash)
      return undefined;
    return p.data;
  } catch {
    return undefined; // not JSON, or parameters JCS cannot represent
  }
}

/**
 * The `incomplete` receipt of a reserved call whose receipt was never written. Everything the
 * kernel decides (kind, boundary, trust, origin, decision) is fixed here, never read from the
 * row; from the stored facts come only the call's own members, and only when they check out
 * (parseFacts). A row without usable facts gets a receipt that says what is unknown.
 * `ignoreFacts`: the facts checked out but could not be signed (recovery.ts retries without them).
 */
export function recoveredDraft(
  call: UnsettledCall,
  settledAt: number,
  settledBy: string,
  options: { ignoreFacts?: boolean } = {},
): ReceiptDraft {
  const parsed =
    call.facts === null || options.ignoreFacts === true ? undefined : parseFacts(call.facts, call.capabilityId);
  const factsState = call.facts === null ? 'unknown' : parsed === undefined ? 'unreadable' : 'stored';
  const saltMarker =
    parsed === undefined || parsed.redaction_mode === 'none' ? undefined : parsed.metadata?.[PARAMETER_SALT_KEY];
  const toolServer = parsed?.tool_server ?? call.toolServer ?? UNKNOWN_TOOL;
  const toolName = parsed?.tool_name ?? call.toolName ?? UNKNOWN_TOOL;
  const unknown =
    parsed !== undefined
      ? []
      : [
          ...(call.toolServer === null ? ['tool_server'] : []),
          ...(call.toolName === null ? ['tool_name'] : []),
          'parameters',
          'parameter_hash',
          'policy_hash',
          'evidence',
          'session_id',
        ];
  const told =
    call.toolOutcome === undefined
      ? 'the tool may have run; its outcome is unknown'
      : `the tool ran (${call.toolOutcome.verdict}) and the caller was answered with an error`;
  const recovery = {
    settled_at: settledAt,
    settled_by: settledBy,
    reserved_at: call.reservedAt,
    reserved_by: call.owner,
    cause: call.cause.kind,
    detail: call.cause.detail,
    facts: factsState,
    ...(unknown.length > 0 ? { unknown } : {}),
    ...(call.toolOutcome === undefined ? {} : { tool_outcome: call.toolOutcome }),
  };
  return {
    timestamp: parsed?.timestamp ?? call.reservedAt,
    capability_id: call.capabilityId,
    tool_server: toolServer,
    tool_name: toolName,
    // Unknown parameters: none are claimed (null, mode "summary") and the hash is a value no
    // parameters hash to; metadata.chio_recovery.unknown says so.
    action: parsed?.action ?? { parameters: null, parameter_hash: UNKNOWN_PARAMETER_HASH },
    decision: {
      verdict: 'incomplete',
      reason: `the receipt was not written after dispatch (${call.cause.detail}); ${told}`,
    },
    receipt_kind: 'mediated_decision',
    boundary_class: 'prevent',
    tool_origin: 'caller_executed',
    redaction_mode: parsed?.redaction_mode ?? 'summary',
    content_hash: NULL_CONTENT_HASH,
    policy_hash: parsed?.policy_hash ?? '',
    ...(parsed?.evidence !== undefined && parsed.evidence.length > 0 ? { evidence: parsed.evidence } : {}),
    // The original's salt marker: the stored parameter_hash is the salted one the original would
    // have carried (same capability, timestamp and signing nonce, so the same salt).
    metadata: {
      [GRANT_INDEX_KEY]: call.grantIndex,
      [RECOVERY_KEY]: recovery,
      ...(saltMarker === undefined ? {} : { [PARAMETER_SALT_KEY]: saltMarker }),
      ...(parsed?.metadata?.[REQUEST_ID_KEY] === undefined
        ? {}
        : { [REQUEST_ID_KEY]: parsed.metadata[REQUEST_ID_KEY] }),
    },
    trust_level: 'mediated',
  };
}

/** metadata member of a receipt signed by recovery (who settled it, when, why, what was known). */
export const RECOVERY_KEY = 'chio_recovery';
