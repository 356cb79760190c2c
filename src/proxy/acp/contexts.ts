/**
 * Enforced contexts waiting for the tool call they authorized. A checked fs/terminal
 * request that named its toolCallId is bound to that id at once ("live"); one that did not waits
 * in its session's FIFO (at most 32, oldest evicted) until a tool_call arrives whose `kind`
 * matches its operation (fs_read → read, fs_write → edit, terminal → execute). Exactly one match
 * binds; zero or several bind nothing, and the entry records `audit_only` — a guess would put a
 * capability's name on a call it may not have authorized. `session/cancel` purges a session.
 * Owns: binding state. Imports the audit types only.
 */
import type { AuthorizationContext } from './audit.js';

export const MAX_PENDING_PER_SESSION = 32;

const KIND_OF_OPERATION: Record<string, string> = { fs_read: 'read', fs_write: 'edit', terminal: 'execute' };

/** Statuses after which a tool call gets no further updates (ACP ToolCallStatus, plus spellings agents use). */
const TERMINAL_STATUSES = new Set(['completed', 'failed', 'error', 'cancelled', 'canceled']);

export class CapabilityContexts {
  private readonly pending = new Map<string, AuthorizationContext[]>();
  /** Per session: toolCallId → its bound context. */
  private readonly live = new Map<string, Map<string, AuthorizationContext>>();

  private liveOf(sessionId: string): Map<string, AuthorizationContext> {
    let m = this.live.get(sessionId);
    if (m === undefined) {
      m = new Map();
      this.live.set(sessionId, m);
    }
    return m;
  }

  remember(sessionId: string, context: AuthorizationContext): void {
    if (context.authorizationToolCallId !== '') {
      this.liveOf(sessionId).set(context.authorizationToolCallId, context);
      return;
    }
    const queue = this.pending.get(sessionId) ?? [];
    queue.push(context);
    if (queue.length > MAX_PENDING_PER_SESSION) queue.shift();
    this.pending.set(sessionId, queue);
  }

  /** For a tool_call: its live context, else the one pending context of a matching kind. */
  bindToolCall(sessionId: string, toolCallId: string, kind: string | undefined): AuthorizationContext | undefined {
    const live = this.forUpdate(sessionId, toolCallId);
    if (live !== undefined) return live;
    const k = kind?.trim();
    if (k === undefined || k === '') return undefined;
    const queue = this.pending.get(sessionId) ?? [];
    const matches = queue.flatMap((c, i) => (KIND_OF_OPERATION[c.authorizationOperation] === k ? [i] : []));
    if (matches.length !== 1) return undefined;
    const [bound] = queue.splice(matches[0]!, 1);
    const context = { ...bound!, authorizationToolCallId: toolCallId };
    this.liveOf(sessionId).set(toolCallId, context);
    return context;
  }

  /** For a tool_call_update: only a live context (an update never consumes a pending one). */
  forUpdate(sessionId: string, toolCallId: string): AuthorizationContext | undefined {
    return this.live.get(sessionId)?.get(toolCallId);
  }

  /** After the entry for a terminal status is recorded, the call gets no more updates. */
  settle(sessionId: string, toolCallId: string, status: string): void {
    if (TERMINAL_STATUSES.has(status)) this.live.get(sessionId)?.delete(toolCallId);
  }

  /** session/cancel: every pending and live context of the session. Returns how many were purged. */
  purge(sessionId: string): number {
    const { pending, live } = this.counts(sessionId);
    this.pending.delete(sessionId);
    this.live.delete(sessionId);
    return pending + live;
  }

  counts(sessionId: string): { pending: number; live: number } {
    return { pending: this.pending.get(sessionId)?.length ?? 0, live: this.live.get(sessionId)?.size ?? 0 };
  }
}
