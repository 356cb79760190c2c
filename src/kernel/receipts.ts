/**
 * The receipt drafts the kernel signs: allowed (and completed, failed or cancelled) calls, denials,
 * and revocations. One place for the field choices of DESIGN §4–§5 as the kernel makes them.
 * Owns: draft construction and the stream content hash. Must not import ledger internals, edges or cli.
 */
import { hashCanonical, NULL_CONTENT_HASH, sha256Hex } from '../crypto/index.js';
import type { Decision, GuardEvidence, ReceiptDraft } from '../receipt/index.js';
import { GRANT_INDEX_KEY, REVOCATION_TOOL_NAME, REVOCATION_TOOL_SERVER } from '../ledger/index.js';
import type { LoadedPolicy } from './policy.js';
import { redactParameters } from './redaction.js';

export interface CallFacts {
  now: number;
  capabilityId: string;
  serverId: string;
  toolName: string;
  parameters: unknown;
  evidence: GuardEvidence[];
  policy: LoadedPolicy;
  metadata?: Record<string, unknown>;
}

/** DESIGN §4 stream hash: sha256_hex of the concatenated H(chunk.data) hex strings. */
export function streamContentHash(chunks: readonly unknown[]): { contentHash: string; chunkHashes: string[] } {
  const chunkHashes = chunks.map((c) => hashCanonical(c));
  return { contentHash: sha256Hex(chunkHashes.join('')), chunkHashes };
}

function base(f: CallFacts, decision: Decision, contentHash: string, extraMetadata: Record<string, unknown>): ReceiptDraft {
  const redacted = redactParameters(f.parameters, f.policy.policy.redaction);
  const metadata = { ...f.metadata, ...extraMetadata };
  return {
    timestamp: f.now,
    capability_id: f.capabilityId,
    tool_server: f.serverId,
    tool_name: f.toolName,
    action: { parameters: redacted.parameters, parameter_hash: hashCanonical(f.parameters) },
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

/** An allowed call that ran: allow (with its output), incomplete (the tool failed) or cancelled. */
export function outcomeDraft(
  f: CallFacts,
  grantIndex: number,
  outcome: { kind: 'output'; output: unknown } | { kind: 'stream'; chunks: unknown[]; totalBytes: number } | { kind: 'failed'; reason: string } | { kind: 'cancelled'; reason: string },
): ReceiptDraft {
  switch (outcome.kind) {
    case 'output':
      return base(f, { verdict: 'allow' }, hashCanonical(outcome.output ?? null), { [GRANT_INDEX_KEY]: grantIndex });
    case 'stream': {
      const { contentHash, chunkHashes } = streamContentHash(outcome.chunks);
      return base(f, { verdict: 'allow' }, contentHash, {
        [GRANT_INDEX_KEY]: grantIndex,
        stream: { chunks_received: chunkHashes.length, total_bytes: outcome.totalBytes, chunk_hashes: chunkHashes },
      });
    }
    case 'failed':
      return base(f, { verdict: 'incomplete', reason: outcome.reason }, NULL_CONTENT_HASH, { [GRANT_INDEX_KEY]: grantIndex });
    case 'cancelled':
      return base(f, { verdict: 'cancelled', reason: outcome.reason }, NULL_CONTENT_HASH, { [GRANT_INDEX_KEY]: grantIndex });
  }
}

/** A revocation is the kernel's own mediated action: chio-kernel/revoke_capability, allowed. */
export function revocationDraft(now: number, capabilityId: string, reason: string | undefined, policy: LoadedPolicy): ReceiptDraft {
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
