/**
 * The kernel capability checker: when installed, every fs and terminal request the agent
 * makes must present a kernel-issued capability token, and the kernel decides it — capability,
 * budget, revocation, the policy's guards — leaving a signed authorization receipt (allow or deny)
 * before the request may be forwarded. The token travels in the request params as
 * `capabilityToken`, `capability_token`, `chio.capabilityToken` or `chio.capability_token`
 * (upstream's places), a JSON object or its JSON text; it is stripped before the payload is hashed.
 * It is a bearer token: the proxy cannot see which process holds the subject's key.
 * When the kernel's policy redacts parameters, nothing the kernel records may be an unsalted
 * function of the request (a guessed path or file content would be confirmed by hashing it): the
 * payload hash is not computed, the kernel's arguments carry the resource once, under the request's
 * own key (`path`, `command`, `terminalId`, which the policy names to redact it), and the request
 * and correlation ids are random instead of hashes of the request.
 * Owns: token extraction, the operation payload and its hash, the authority-only tool server.
 * Imports the kernel. Params are attacker-controlled.
 */
import { randomUUID } from 'node:crypto';
import { hashCanonical } from '../../crypto/index.js';
import type { Kernel, ToolServerConnection } from '../../kernel/index.js';
import type { AuthorizationContext } from './audit.js';
import { OPERATION_METHODS } from './receipts.js';
import { redacts, RESOURCE_KEYS } from './redaction.js';

const TOKEN_KEYS = ['capabilityToken', 'capability_token'] as const;

/** The token (if any) and the params without it: what the authorization hash covers. */
export function splitToken(params: Record<string, unknown>): { token: unknown; payload: Record<string, unknown> } {
  const payload: Record<string, unknown> = { ...params };
  let token: unknown;
  for (const k of TOKEN_KEYS) {
    if (k in payload) {
      token ??= payload[k];
      delete payload[k];
    }
  }
  const chio = payload.chio;
  if (typeof chio === 'object' && chio !== null && !Array.isArray(chio)) {
    const rest: Record<string, unknown> = { ...(chio as Record<string, unknown>) };
    for (const k of TOKEN_KEYS) {
      if (k in rest) {
        token ??= rest[k];
        delete rest[k];
      }
    }
    if (Object.keys(rest).length === 0) delete payload.chio;
    else payload.chio = rest;
  }
  if (typeof token === 'string') {
    try {
      token = JSON.parse(token);
    } catch {
      /* left as a string: the kernel refuses it as a malformed token */
    }
  }
  return { token, payload };
}

/** The ACP request id from the params (`toolCallId`, `tool_call_id`, `toolCall.toolCallId`), if non-blank. */
export function requestToolCallId(params: Record<string, unknown>): string | undefined {
  const toolCall = params.toolCall;
  const candidates = [
    params.toolCallId,
    params.tool_call_id,
    typeof toolCall === 'object' && toolCall !== null ? (toolCall as Record<string, unknown>).toolCallId : undefined,
  ];
  const id = candidates.find((c): c is string => typeof c === 'string' && c.trim() !== '');
  return id;
}

export interface CheckRequest {
  requestId: string | number | null;
  sessionId: string;
  operation: keyof typeof OPERATION_METHODS;
  resource: string;
  params: Record<string, unknown>;
}

export type CheckVerdict =
  | { ok: true; context: AuthorizationContext }
  | {
      ok: false;
      reason: string;
      capabilityId?: string;
      parameterHash: string | null /** the kernel already signed a deny receipt */;
      recorded: boolean;
    };

/** The tool server the kernel dispatches authorizations to: it does nothing but say so. */
export function authorityServer(serverId: string): ToolServerConnection {
  return {
    manifest: {
      schema: 'chio.manifest.v1',
      server_id: serverId,
      name: 'ACP proxy authority (authorizes agent requests the editor executes)',
      version: '1',
      tools: Object.values(OPERATION_METHODS).map((name) => ({
        name,
        description: `authorize ${name}`,
        input_schema: { type: 'object' },
        has_side_effects: true,
      })),
    },
    async invoke() {
      return { authorityOnly: true };
    },
  };
}

export class KernelCapabilityChecker {
  constructor(
    private readonly kernel: Kernel,
    private readonly serverId: string,
  ) {
    kernel.registerToolServer(authorityServer(serverId));
  }

  async check(req: CheckRequest): Promise<CheckVerdict> {
    const { token, payload } = splitToken(req.params);
    // Redacting policy: see the module comment. Every id below is then random, not derived from the request.
    const redacting = redacts(this.kernel.policy.policy.redaction);
    const parameterHash = redacting ? null : hashCanonical(payload);
    const toolCallId = requestToolCallId(req.params) ?? '';
    const correlationId = `acp-auth-${redacting ? randomUUID() : hashCanonical({ id: req.requestId, sessionId: req.sessionId, operation: req.operation, resource: req.resource })}`;
    const capabilityId =
      typeof (token as { id?: unknown } | null)?.id === 'string' ? (token as { id: string }).id : undefined;
    if (token === undefined)
      return { ok: false, reason: 'no capability token presented', parameterHash, recorded: false };
    const subject = (token as { subject?: unknown } | null)?.subject;
    const requestId = `acp-live-guard-${redacting ? randomUUID() : hashCanonical({ correlationId, toolCallId, parameterHash, payload })}`;
    const r = await this.kernel.evaluateToolCall({
      capability: token,
      caller: typeof subject === 'string' ? subject : '',
      serverId: this.serverId,
      toolName: OPERATION_METHODS[req.operation]!,
      arguments: {
        [RESOURCE_KEYS[req.operation]!]: req.resource,
        operation: req.operation,
        // The same value again under `resource` would stay in clear in the kernel's receipt when the
        // policy names only `path`: under redaction it is sent once.
        ...(redacting ? {} : { resource: req.resource }),
        session_id: req.sessionId,
        tool_call_id: toolCallId,
        authorization_correlation_id: correlationId,
        ...(redacting ? {} : { authorization_parameter_hash: parameterHash }),
      },
      requestId,
      sessionId: req.sessionId,
    });
    if (!r.ok)
      return {
        ok: false,
        reason: r.reason,
        parameterHash,
        recorded: true,
        ...(capabilityId === undefined ? {} : { capabilityId }),
      };
    return {
      ok: true,
      context: {
        capabilityId: r.receipt.capability_id,
        authorizationReceiptId: r.receipt.id,
        authorizationRequestId: requestId,
        authorizationToolCallId: toolCallId,
        authorizationCorrelationId: correlationId,
        authorizationOperation: req.operation,
        authorizationResource: req.resource,
        authorizationParameterHash: parameterHash,
      },
    };
  }
}
