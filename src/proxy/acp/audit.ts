/**
 * `AcpToolCallAuditEntry`: what the proxy records of a `session/update` that carries a
 * `tool_call`, or a `tool_call_update` with a status (a status-less update records nothing).
 * camelCase on the wire; `timestamp` is a string of Unix seconds; `contentHash` is H(JCS) of the
 * event's declared fields only — `toolCallId`, `title`, `kind`, `status` of a tool call (those
 * present), `toolCallId` and `status` of an update — so extra keys cannot move it. `capabilityId`
 * and the seven `authorization*` fields are set together (an enforced context) or not at all.
 * Under a redacting policy the entry is what the proxy records (redaction.ts): the title is
 * `"[REDACTED]"` and `contentHash` is over the declared fields with that title, the resource is
 * redacted or null, and `authorizationParameterHash` is null.
 * Owns: the entry shape, its hash, and reading it out of session/update. Imports crypto, zod and
 * the proxy's redaction rules. The session/update params are written by the agent: attacker-controlled.
 */
import { z } from 'zod';
import { hashCanonical } from '../../crypto/index.js';
import type { Redaction } from '../../kernel/index.js';
import { NO_REDACTION, recordedResource, recordedTitle, redacts } from './redaction.js';

export type EnforcementMode = 'audit_only' | 'cryptographically_enforced';

/** The authorization linkage of an enforced context (set together or not at all). */
export interface AuthorizationContext {
  capabilityId: string;
  authorizationReceiptId: string;
  authorizationRequestId: string;
  authorizationToolCallId: string;
  authorizationCorrelationId: string;
  authorizationOperation: string;
  authorizationResource: string;
  /** H(JCS(the request params without the token)); null when the policy redacts (never computed then). */
  authorizationParameterHash: string | null;
}

export interface AcpToolCallAuditEntry extends Partial<Omit<AuthorizationContext, 'authorizationResource'>> {
  /** The resource as recorded: `"[REDACTED]"` or null (hash_only) when the policy withholds it. */
  authorizationResource?: string | null;
  toolCallId: string;
  title: string;
  kind: string | null;
  status: string;
  sessionId: string;
  timestamp: string;
  serverId: string;
  contentHash: string;
  enforcementMode: EnforcementMode;
}

const nonBlank = z.string().refine((s) => s.trim() !== '' && s.trim() === s, 'must be a non-empty unpadded string');

/** ACP v1 ToolCall (schema `tool_call`): toolCallId and title required; the rest optional. */
const ToolCallSchema = z
  .object({
    sessionUpdate: z.literal('tool_call'),
    toolCallId: nonBlank,
    title: z.string(),
    kind: z.string().optional(),
    status: z.string().optional(),
  })
  .passthrough();
/** ACP v1 ToolCallUpdate: only toolCallId required; fields are patch-like and nullable. */
const ToolCallUpdateSchema = z
  .object({
    sessionUpdate: z.literal('tool_call_update'),
    toolCallId: nonBlank,
    title: z.string().nullish(),
    kind: z.string().nullish(),
    status: z.string().nullish(),
  })
  .passthrough();
const SessionUpdateParamsSchema = z
  .object({ sessionId: nonBlank, update: z.object({ sessionUpdate: z.string() }).passthrough() })
  .passthrough();

/** A tool-call event read out of session/update, or why it could not be read. */
export type ToolCallEvent =
  | { kind: 'none' }
  | { kind: 'invalid'; message: string }
  | { kind: 'tool_call'; sessionId: string; toolCallId: string; title: string; toolKind?: string; status?: string }
  | { kind: 'tool_call_update'; sessionId: string; toolCallId: string; status: string };

export function readToolCallEvent(params: unknown): ToolCallEvent {
  const p = SessionUpdateParamsSchema.safeParse(params);
  if (!p.success)
    return {
      kind: 'invalid',
      message:
        `invalid session/update params: ${p.error.issues[0]?.path.join('.') ?? ''} ${p.error.issues[0]?.message ?? ''}`.trim(),
    };
  const u = p.data.update;
  if (u.sessionUpdate === 'tool_call') {
    const t = ToolCallSchema.safeParse(u);
    if (!t.success)
      return {
        kind: 'invalid',
        message: `invalid session/update params: malformed tool call: update.${t.error.issues[0]?.path.join('.')} ${t.error.issues[0]?.message}`,
      };
    return {
      kind: 'tool_call',
      sessionId: p.data.sessionId,
      toolCallId: t.data.toolCallId,
      title: t.data.title,
      ...(t.data.kind === undefined ? {} : { toolKind: t.data.kind }),
      ...(t.data.status === undefined ? {} : { status: t.data.status }),
    };
  }
  if (u.sessionUpdate === 'tool_call_update') {
    const t = ToolCallUpdateSchema.safeParse(u);
    if (!t.success)
      return {
        kind: 'invalid',
        message: `invalid session/update params: malformed tool call update: update.${t.error.issues[0]?.path.join('.')} ${t.error.issues[0]?.message}`,
      };
    if (t.data.status === undefined || t.data.status === null) return { kind: 'none' };
    return {
      kind: 'tool_call_update',
      sessionId: p.data.sessionId,
      toolCallId: t.data.toolCallId,
      status: t.data.status,
    };
  }
  return { kind: 'none' };
}

/** H(JCS) of the declared fields only (see the module comment). */
export function eventContentHash(event: Extract<ToolCallEvent, { kind: 'tool_call' | 'tool_call_update' }>): string {
  if (event.kind === 'tool_call_update') return hashCanonical({ toolCallId: event.toolCallId, status: event.status });
  return hashCanonical({
    toolCallId: event.toolCallId,
    title: event.title,
    ...(event.toolKind === undefined ? {} : { kind: event.toolKind }),
    ...(event.status === undefined ? {} : { status: event.status }),
  });
}

/** ACP's default status of a tool call that names none (schema ToolCallStatus default). */
export const DEFAULT_TOOL_CALL_STATUS = 'pending';

/**
 * The entry the proxy records of one event. `redaction` (the kernel policy's): under `hash_only` or
 * `redact_keys` the title, the resource and the request hash are recorded as redaction.ts says, and
 * contentHash covers the declared fields as recorded (the title `"[REDACTED]"`), so neither it nor
 * the signing nonce built from it confirms a guessed title.
 */
export function auditEntry(
  event: Extract<ToolCallEvent, { kind: 'tool_call' | 'tool_call_update' }>,
  serverId: string,
  nowSeconds: number,
  context?: AuthorizationContext,
  redaction: Redaction = NO_REDACTION,
): AcpToolCallAuditEntry {
  const redacting = redacts(redaction);
  // Under a redacting policy everything below, contentHash included, is built from the event as recorded.
  const recorded =
    redacting && event.kind === 'tool_call' ? { ...event, title: recordedTitle(redaction, event.title) } : event;
  const entry: AcpToolCallAuditEntry = {
    toolCallId: recorded.toolCallId,
    title: recorded.kind === 'tool_call' ? recorded.title : '',
    kind: recorded.kind === 'tool_call' ? (recorded.toolKind ?? null) : null,
    status: recorded.kind === 'tool_call' ? (recorded.status ?? DEFAULT_TOOL_CALL_STATUS) : recorded.status,
    sessionId: recorded.sessionId,
    timestamp: String(nowSeconds),
    serverId,
    contentHash: eventContentHash(recorded),
    enforcementMode: context === undefined ? 'audit_only' : 'cryptographically_enforced',
  };
  if (context === undefined) return entry;
  if (!redacting) return { ...entry, ...context };
  return {
    ...entry,
    ...context,
    authorizationResource: recordedResource(redaction, context.authorizationOperation, context.authorizationResource),
    authorizationParameterHash: null,
  };
}

/** The eleven camelCase keys of `metadata.acp`, null where absent. */
export function acpMetadata(entry: AcpToolCallAuditEntry) {
  return {
    sessionId: entry.sessionId,
    toolCallId: entry.toolCallId,
    capabilityId: entry.capabilityId ?? null,
    authorizationReceiptId: entry.authorizationReceiptId ?? null,
    authorizationRequestId: entry.authorizationRequestId ?? null,
    authorizationToolCallId: entry.authorizationToolCallId ?? null,
    authorizationCorrelationId: entry.authorizationCorrelationId ?? null,
    authorizationOperation: entry.authorizationOperation ?? null,
    authorizationResource: entry.authorizationResource ?? null,
    authorizationParameterHash: entry.authorizationParameterHash ?? null,
    enforcementMode: entry.enforcementMode,
  };
}

/** The snake_case linkage fields of `metadata.receipt_context`. */
export function receiptContext(entry: AcpToolCallAuditEntry) {
  return {
    request_id: entry.authorizationRequestId ?? null,
    session_id: entry.sessionId,
    tool_call_id: entry.toolCallId,
    authorization_receipt_id: entry.authorizationReceiptId ?? null,
    authorization_correlation_id: entry.authorizationCorrelationId ?? null,
    authorization_operation: entry.authorizationOperation ?? null,
    authorization_resource: entry.authorizationResource ?? null,
    authorization_parameter_hash: entry.authorizationParameterHash ?? null,
  };
}
