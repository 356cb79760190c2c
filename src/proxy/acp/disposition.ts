/**
 * What the ACP proxy does with one message, as the interceptor decides it and the
 * transport applies it in arrival order.
 * Owns: the disposition shapes. Imports the audit types only.
 */
import type { AcpToolCallAuditEntry } from './audit.js';

/** What to do with one message: forward it or not, answer its sender, and send extras to the peer after it. */
export interface Disposition {
  forward: boolean;
  toSender: object[];
  toPeerAfter: object[];
  /** The audit entry recorded for this message, if any (tests, logs). */
  entry?: AcpToolCallAuditEntry;
}

/** A judged message: `ready` resolves with its disposition once its own receipt, if any, committed or failed. */
export interface Judged {
  ready: Promise<Disposition>;
}

export const pass = (): Disposition => ({ forward: true, toSender: [], toPeerAfter: [] });
export const at = (d: Disposition): Judged => ({ ready: Promise.resolve(d) });
