/**
 * Receipt drafts the ACP proxy asks the kernel to sign (DESIGN §5):
 *  - an audit entry, `audit_only` → `trace_observation` (no decision, trust `verified`, capability
 *    `acp-session:<sessionId>`), `cryptographically_enforced` → `mediated_decision`, allow, trust
 *    `mediated`, the presented token's capability id;
 *  - a request the proxy refused → `mediated_decision`, deny, naming the guard.
 * content_hash of an audit receipt is the entry's contentHash; the signing nonce is
 * `acp-<toolCallId>-<status>-<contentHash>` (DESIGN §5), so a re-sent identical event maps to the
 * same receipt instead of a second one.
 * Under a redacting policy (`redaction` = the kernel policy's) both record what redaction.ts allows
 * — no unsalted request hash, the resource and free text redacted — with redaction_mode `redacted`
 * or `summary` and parameter_hash over the recorded parameters; with `none` they are unchanged.
 * Owns: draft construction. Imports receipt types, crypto and the proxy's redaction rules.
 */
import { NULL_CONTENT_HASH } from '../../crypto/index.js';
import type { Redaction } from '../../kernel/index.js';
import type { ReceiptDraft } from '../../receipt/index.js';
import { acpMetadata, receiptContext } from './audit.js';
import type { AcpToolCallAuditEntry } from './audit.js';
import { NO_REDACTION, recordedAction, recordedReason, recordedResource, recordedTitle, redacts } from './redaction.js';

/** ACP method each authorization operation stands for; an entry without one is named by its kind. */
export const OPERATION_METHODS: Record<string, string> = {
  fs_read: 'fs/read_text_file',
  fs_write: 'fs/write_text_file',
  terminal: 'terminal/create',
  terminal_kill: 'terminal/kill',
  terminal_release: 'terminal/release',
};

export function receiptToolName(entry: AcpToolCallAuditEntry): string {
  const op = entry.authorizationOperation;
  if (op !== undefined && op.trim() !== '') return OPERATION_METHODS[op] ?? op;
  if (entry.kind !== null && entry.kind.trim() !== '') return entry.kind;
  return 'session/update';
}

export function auditNonce(entry: AcpToolCallAuditEntry): string {
  return `acp-${entry.toolCallId}-${entry.status}-${entry.contentHash}`;
}

/**
 * `entry` must come from `auditEntry` with the same `redaction`: its contentHash (the receipt's
 * content_hash) is over the fields as recorded. The title, resource and request hash are
 * redacted here again (idempotent), so a draft never carries them in clear under a redacting policy.
 */
export function auditDraft(
  entry: AcpToolCallAuditEntry,
  policyHash: string,
  redaction: Redaction = NO_REDACTION,
): ReceiptDraft {
  const enforced = entry.enforcementMode === 'cryptographically_enforced';
  const timestamp = Number.parseInt(entry.timestamp, 10);
  if (redacts(redaction)) {
    entry = {
      ...entry,
      title: entry.title === '' ? '' : recordedTitle(redaction, entry.title),
      ...(entry.authorizationResource == null
        ? {}
        : {
            authorizationResource: recordedResource(
              redaction,
              entry.authorizationOperation,
              entry.authorizationResource,
            ),
          }),
      ...(entry.authorizationParameterHash === undefined ? {} : { authorizationParameterHash: null }),
    };
  }
  const { action, mode } = recordedAction(
    {
      tool_call_id: entry.toolCallId,
      title: entry.title,
      kind: entry.kind,
      status: entry.status,
      authorization_parameter_hash: entry.authorizationParameterHash ?? null,
    },
    redaction,
  );
  return {
    timestamp,
    capability_id: enforced ? entry.capabilityId! : `acp-session:${entry.sessionId}`,
    tool_server: entry.serverId,
    tool_name: receiptToolName(entry),
    action,
    ...(enforced ? { decision: { verdict: 'allow' as const } } : {}),
    receipt_kind: enforced ? 'mediated_decision' : 'trace_observation',
    boundary_class: enforced ? 'prevent' : 'detect_only',
    // The agent ran the tool and reported it; an enforced one also passed the proxy's checks first.
    tool_origin: enforced ? 'caller_executed' : 'host_executed_provider_reported',
    redaction_mode: mode,
    content_hash: entry.contentHash,
    policy_hash: enforced ? policyHash : '',
    metadata: { acp: acpMetadata(entry), receipt_context: receiptContext(entry) },
    trust_level: enforced ? 'mediated' : 'verified',
  };
}

/** A refused agent request (fs or terminal): what was asked, who refused it and why. */
export interface Refusal {
  serverId: string;
  sessionId: string;
  method: string;
  operation: string;
  resource: string;
  /** H(JCS(the request params without the token)); null (not computed) when the policy redacts. */
  parameterHash: string | null;
  guard: string;
  reason: string;
  /** false: the reason quotes nothing of the request, and is recorded under a redacting policy too. Default true. */
  quotesRequest?: boolean;
  capabilityId?: string;
  timestamp: number;
}

export function refusalDraft(r: Refusal, policyHash: string, redaction: Redaction = NO_REDACTION): ReceiptDraft {
  const resource = recordedResource(redaction, r.operation, r.resource);
  const reason = recordedReason(redaction, r);
  const { action, mode } = recordedAction(
    {
      session_id: r.sessionId,
      operation: r.operation,
      resource,
      authorization_parameter_hash: redacts(redaction) ? null : r.parameterHash,
    },
    redaction,
  );
  return {
    timestamp: r.timestamp,
    capability_id: r.capabilityId ?? `acp-session:${r.sessionId}`,
    tool_server: r.serverId,
    tool_name: r.method,
    action,
    decision: { verdict: 'deny', reason, guard: r.guard },
    receipt_kind: 'mediated_decision',
    boundary_class: 'prevent',
    tool_origin: 'caller_executed',
    redaction_mode: mode,
    content_hash: NULL_CONTENT_HASH,
    policy_hash: policyHash,
    evidence: [{ guard_name: r.guard, verdict: false, details: reason }],
    metadata: { acp: { sessionId: r.sessionId, operation: r.operation, resource } },
    trust_level: 'mediated',
  };
}
