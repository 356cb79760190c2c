/**
 * The `metadata.chio` blocks the ACP edge attaches (upstream chio-acp-edge conversion and
 * chio-cross-protocol lifecycle). Constant surface descriptions plus per-result receipt linkage.
 * Owns: metadata field names and values. Imports receipt types only.
 */
import type { Receipt } from '../../receipt/index.js';

export const AUTHORITY_PATH = 'cross_protocol_orchestrator';

export const LIFECYCLE = {
  toolInvoke: 'blocking_terminal_result',
  toolStream: 'deferred_task_resume',
  toolResume: 'supported',
  toolCancel: 'supported',
} as const;

export const RUNTIME_LIFECYCLE = {
  surface: 'acp_authoritative',
  blockingEntrypoint: 'tool/invoke',
  streamEntrypoint: 'tool/stream',
  followUpEntrypoint: 'tool/resume',
  cancelEntrypoint: 'tool/cancel',
  streamDelivery: 'resumed_terminal_payload',
  partialOutputDelivery: 'resumed_terminal_payload',
  claimEligible: true,
  compatibilityOnly: false,
} as const;

/** `result.metadata` of session/list_capabilities. */
export function surfaceMetadata() {
  return {
    chio: {
      authorityPath: AUTHORITY_PATH,
      authoritative: true,
      compatibilityOnly: false,
      claimEligible: true,
      receiptBearingInvoke: true,
      permissionPreviewOnly: true,
      invokeMode: 'blocking_or_deferred_task',
      runtimeLifecycle: RUNTIME_LIFECYCLE,
      lifecycle: LIFECYCLE,
      streamDelivery: 'resumed_terminal_payload',
    },
  };
}

/**
 * How a call's lifecycle ended: upstream's OperationTerminalState, serialized as `{"state": …}`
 * (serde `tag = "state"`), `reason` on the two states that carry one. It tracks the lifecycle, not
 * the authorization verdict: a denied call reached its end, so it is `{state: "completed"}` with
 * `decision: "deny"` beside it — exactly as upstream's kernel reports a denial.
 */
export type TerminalState =
  | { state: 'completed' }
  | { state: 'cancelled'; reason: string }
  | { state: 'incomplete'; reason: string };

export function terminalStateOf(receipt: Receipt): TerminalState {
  const decision = receipt.decision;
  switch (decision?.verdict) {
    case 'allow':
    case 'deny':
      return { state: 'completed' };
    case 'cancelled':
      return { state: 'cancelled', reason: decision.reason };
    case 'incomplete':
      return { state: 'incomplete', reason: decision.reason };
    default:
      // A receipt with no decision is not mediated; the edge never signs one, but say so rather than guess.
      return { state: 'incomplete', reason: 'the receipt records no decision' };
  }
}

/** `metadata.chio` of a receipt-bearing result (tool/invoke, a resumed or cancelled task). */
export function receiptMetadata(receipt: Receipt) {
  const decision = receipt.decision;
  return {
    chio: {
      receiptId: receipt.id,
      receipt,
      decision: decision?.verdict ?? null,
      capabilityId: receipt.capability_id,
      authorityPath: AUTHORITY_PATH,
      authoritative: true,
      reason: decision !== undefined && 'reason' in decision ? decision.reason : null,
      terminalState: terminalStateOf(receipt),
    },
  };
}

/** `metadata.chio` of a deferred task that has not run yet. */
export function pendingTaskMetadata(decision: 'pending' | 'cancelled') {
  return {
    chio: {
      receiptId: null,
      receipt: null,
      decision,
      capabilityId: null,
      authorityPath: AUTHORITY_PATH,
      authoritative: true,
      compatibilityOnly: false,
      claimEligible: true,
      receiptBearing: false,
      ...(decision === 'pending' ? { receiptPending: true } : {}),
      runtimeLifecycle: RUNTIME_LIFECYCLE,
      lifecycle: LIFECYCLE,
    },
  };
}

/** `metadata.chio` of a session/request_permission preview: never a receipt. */
export function previewMetadata(denial?: { guard: string; reason: string }) {
  return {
    chio: {
      receiptId: null,
      receipt: null,
      authorityPath: 'capability_preview',
      authoritative: false,
      previewOnly: true,
      compatibilityOnly: false,
      claimEligible: false,
      receiptBearing: false,
      invokeAuthorityPath: AUTHORITY_PATH,
      reason: 'permission preview only',
      ...(denial === undefined ? {} : { previewDenial: denial }),
    },
  };
}
