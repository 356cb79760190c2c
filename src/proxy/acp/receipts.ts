/**
 * Receipt drafts the ACP proxy asks the kernel to sign (issue 7, DESIGN §5):
 *  - an audit entry, `audit_only` → `trace_observation` (no decision, trust `verified`, capability
 *    `acp-session:<sessionId>`), `cryptographically_enforced` → `mediated_decision`, allow, trust
 *    `mediated`, the presented token's capability id;
 *  - a request the proxy refused → `mediated_decision`, deny, naming the guard.
 * content_hash of an audit receipt is the entry's contentHash; the signing nonce is
 * `acp-<toolCallId>-<status>-<contentHash>` (DESIGN §5), so a re-sent identical event maps to the
 * same receipt instead of a second one.
 * Owns: draft construction. Imports receipt types and crypto.
 */
import { NULL_CONTENT_HASH } from '../../crypto/index.js';
import type { ReceiptDraft } from '../../receipt/index.js';
import { acpMetadata, receiptContext } from './audit.js';
import type { AcpToolCallAuditEntry } from './audit.js';

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

export function auditDraft(entry: AcpToolCallAuditEntry, policyHash: string): ReceiptDraft {
  const enforced = entry.enforcementMode === 'cryptographically_enforced';
  const timestamp = Number.parseInt(entry.timestamp, 10);
  return {
    timestamp,
    capability_id: enforced ? entry.capabilityId! : `acp-session:${entry.sessionId}`,
    tool_server: entry.serverId,
    tool_name: receiptToolName(entry),
    action: {
      parameters: {
        tool_call_id: entry.toolCallId,
        title: entry.title,
        kind: entry.kind,
        status: entry.status,
        authorization_parameter_hash: entry.authorizationParameterHash ?? null,
      },
    },
    ...(enforced ? { decision: { verdict: 'allow' as const } } : {}),
    receipt_kind: enforced ? 'mediated_decision' : 'trace_observation',
    boundary_class: enforced ? 'prevent' : 'detect_only',
    // The agent ran the tool and reported it; an enforced one also passed the proxy's checks first.
    tool_origin: enforced ? 'caller_executed' : 'host_executed_provider_reported',
    redaction_mode: 'none',
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
  parameterHash: string;
  guard: string;
  reason: string;
  capabilityId?: string;
  timestamp: number;
}

export function refusalDraft(r: Refusal, policyHash: string): ReceiptDraft {
  return {
    timestamp: r.timestamp,
    capability_id: r.capabilityId ?? `acp-session:${r.sessionId}`,
    tool_server: r.serverId,
    tool_name: r.method,
    action: { parameters: { session_id: r.sessionId, operation: r.operation, resource: r.resource, authorization_parameter_hash: r.parameterHash } },
    decision: { verdict: 'deny', reason: r.reason, guard: r.guard },
    receipt_kind: 'mediated_decision',
    boundary_class: 'prevent',
    tool_origin: 'caller_executed',
    redaction_mode: 'none',
    content_hash: NULL_CONTENT_HASH,
    policy_hash: policyHash,
    evidence: [{ guard_name: r.guard, verdict: false, details: r.reason }],
    metadata: { acp: { sessionId: r.sessionId, operation: r.operation, resource: r.resource } },
    trust_level: 'mediated',
  };
}
