/**
 * A session/update carrying a tool_call or tool_call_update, judged for the ACP proxy:
 * its capability context is bound and settled, its audit entry built and its signed receipt
 * started at once, in arrival order; whether it is forwarded waits for that receipt (`ready`).
 * So the transport can judge the next messages while this receipt commits (the kernel's writer
 * then commits them together), and the next update still sees the call exactly as it did when
 * each update waited for its own receipt: settling never depended on the commit's outcome. The
 * kernel's decisions on later fs/terminal requests do not read these receipts either (they count
 * no budget: no grant index in their metadata), so their commit may lag the judging.
 * Owns: the tool-call update disposition. Imports the kernel (signing) and the proxy's audit rules.
 * Params are attacker-controlled (the agent may be hostile).
 */
import { isChioError } from '../../errors.js';
import type { Kernel } from '../../kernel/index.js';
import { auditEntry, readToolCallEvent } from './audit.js';
import type { AcpProxyConfig } from './config.js';
import type { CapabilityContexts } from './contexts.js';
import { at, pass } from './disposition.js';
import type { Disposition, Judged } from './disposition.js';
import { auditDraft, auditNonce } from './receipts.js';
import { NO_REDACTION } from './redaction.js';

export interface UpdateJudge {
  contexts: CapabilityContexts;
  config: AcpProxyConfig;
  /** Signs and appends receipts; without it nothing is recorded (and `required` attestation refuses updates). */
  kernel?: Kernel;
  log: (line: string) => void;
  clock: () => number;
}

/** `params` of a session/update notification from the agent. Synchronous up to the receipt's commit. */
export function judgeToolCallUpdate(params: unknown, j: UpdateJudge): Judged {
  const event = readToolCallEvent(params);
  if (event.kind === 'none') return at(pass());
  const required = j.config.fields.attestation === 'required';
  if (event.kind === 'invalid') {
    j.log(`${event.message}${required ? ' (not forwarded: attestation is required)' : ''}`);
    return at({ forward: !required, toSender: [], toPeerAfter: [] });
  }
  const context =
    event.kind === 'tool_call'
      ? j.contexts.bindToolCall(event.sessionId, event.toolCallId, event.toolKind)
      : j.contexts.forUpdate(event.sessionId, event.toolCallId);
  const kernel = j.kernel;
  // The entry as recorded: under a redacting policy without the title, resource or request hash in clear.
  const redaction = kernel?.policy.policy.redaction ?? NO_REDACTION;
  const entry = auditEntry(event, j.config.serverId, j.clock(), context, redaction);
  // Now, not after the commit: the next update is judged while this receipt commits.
  j.contexts.settle(entry.sessionId, entry.toolCallId, entry.status);
  const decide = (recorded: boolean): Disposition => {
    if (!recorded && required) {
      j.log(
        `tool call ${entry.toolCallId} (${entry.status}) not forwarded: attestation is required and ${kernel === undefined ? 'no receipt signer is installed' : 'its receipt could not be written'}`,
      );
      return { forward: false, toSender: [], toPeerAfter: [], entry };
    }
    return { forward: true, toSender: [], toPeerAfter: [], entry };
  };
  if (kernel === undefined) return at(decide(false));
  let receipt: Promise<unknown>;
  try {
    // Started now, in arrival order: the kernel appends in call order, so seqs follow arrival.
    receipt = kernel.recordReceipt(auditDraft(entry, kernel.policy.policyHash, redaction), {
      nonce: auditNonce(entry),
      sessionId: entry.sessionId,
    });
  } catch (e) {
    receipt = Promise.reject(e);
  }
  const recorded = receipt.then(
    () => true,
    (e: unknown) => {
      // The same event sent twice maps to the same receipt (same nonce and body): already recorded.
      const duplicate = isChioError(e) && e.code === 'CHIO-LEDGER-DUPLICATE-RECEIPT';
      if (!duplicate)
        j.log(
          `receipt for tool call ${entry.toolCallId} (${entry.status}) failed: ${(e as Error)?.message ?? String(e)}`,
        );
      return duplicate;
    },
  );
  return { ready: recorded.then(decide) };
}
