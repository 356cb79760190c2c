/**
 * The live sessions of the Streamable HTTP edge (MCP basic/transports §Session Management): each
 * MCP-Session-Id with its McpSession and SDK transport, how many may be live at once, and when an
 * idle one is ended. A session is idle when no request on it is in flight (a POST or DELETE whose
 * response is still open); an open GET stream is not activity, opening one is. Ending a session
 * (DELETE, idle expiry, a failed or abandoned initialize, shutdown) always does the same three
 * things: forget the id (later requests get 404), stop the session's upstream-notification relay,
 * close the transport (its open streams end).
 * Owns: session lifetime and the limits. Must not import node:http (http.ts does the HTTP).
 */
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { ChioError } from '../../errors.js';
import type { McpSession } from './session.js';

/** JSON-RPC error of an initialize refused at the session cap (answered with HTTP 503). */
export const TOO_MANY_SESSIONS = -32003;

export const DEFAULT_MAX_SESSIONS = 256;
export const DEFAULT_SESSION_IDLE_TIMEOUT_MS = 15 * 60 * 1000;
/** setTimeout's ceiling (2^31−1 ms, 24.8 days): a longer delay would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

const LimitsSchema = z.object({
  maxSessions: z.number().int().min(1).default(DEFAULT_MAX_SESSIONS),
  sessionIdleTimeoutMs: z.number().min(1).max(MAX_TIMER_MS).default(DEFAULT_SESSION_IDLE_TIMEOUT_MS),
});
export type SessionLimits = z.infer<typeof LimitsSchema>;

/** Validates the limits (the CLI calls this before it starts anything, serveHttp again). */
export function sessionLimits(input: {
  maxSessions?: number | undefined;
  sessionIdleTimeoutMs?: number | undefined;
}): SessionLimits {
  const r = LimitsSchema.safeParse({
    ...(input.maxSessions === undefined ? {} : { maxSessions: input.maxSessions }),
    ...(input.sessionIdleTimeoutMs === undefined ? {} : { sessionIdleTimeoutMs: input.sessionIdleTimeoutMs }),
  });
  if (!r.success) {
    throw new ChioError(
      'CHIO-MCP-HTTP-OPTIONS',
      r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
    );
  }
  return r.data;
}

interface Live {
  readonly session: McpSession;
  readonly transport: StreamableHTTPServerTransport;
  /** Requests on this session whose responses are still open. */
  busy: number;
  timer: NodeJS.Timeout | undefined;
  /** When the idle timer fires (ms since the epoch); Infinity while busy. */
  deadline: number;
}

/** A place under the cap, held by one initialize while it runs. */
export interface Slot {
  /** The transport initialized the session: it becomes live, its initialize in flight; call the result when that response closes. */
  fill(id: string, session: McpSession, transport: StreamableHTTPServerTransport): () => void;
  /** The initialize ended: frees the place unless `fill` made it a session. Safe to call twice. */
  release(): void;
}

export class HttpSessions {
  private readonly live = new Map<string, Live>();
  private reserved = 0;
  private ended = false;

  constructor(private readonly limits: SessionLimits) {}

  get size(): number {
    return this.live.size;
  }

  transport(id: string): StreamableHTTPServerTransport | undefined {
    return this.live.get(id)?.transport;
  }

  /** A place for one initialize, or undefined at the cap (live sessions plus initializes under way). */
  admit(): Slot | undefined {
    if (this.live.size + this.reserved >= this.limits.maxSessions) return undefined;
    this.reserved++;
    let held = true;
    const release = () => {
      if (held) this.reserved--;
      held = false;
    };
    return {
      fill: (id, session, transport) => {
        release();
        const entry: Live = { session, transport, busy: 0, timer: undefined, deadline: Infinity };
        this.live.set(id, entry);
        const done = this.hold(id, entry);
        if (this.ended) this.close(id); // initialized while the edge was shutting down
        return done;
      },
      release,
    };
  }

  /** A request on the session began; call the result when its response closes. */
  begin(id: string): () => void {
    const entry = this.live.get(id);
    return entry === undefined ? () => {} : this.hold(id, entry);
  }

  /** Activity that holds nothing open (opening the GET stream): the idle clock starts again. */
  touch(id: string): void {
    const entry = this.live.get(id);
    if (entry !== undefined && entry.busy === 0) this.arm(id, entry);
  }

  /** Ends the session (see the header); false when the id is not live. */
  close(id: string): boolean {
    const entry = this.live.get(id);
    if (entry === undefined) return false;
    this.live.delete(id);
    clearTimeout(entry.timer);
    entry.session.close();
    void entry.transport.close().catch(() => {});
    return true;
  }

  /** Ends every session, and any that finishes initializing afterwards (the edge is shutting down). */
  closeAll(): void {
    this.ended = true;
    for (const id of [...this.live.keys()]) this.close(id);
  }

  /** Seconds until the soonest idle session expires (the cap's Retry-After); the idle timeout when none is idle. */
  retryAfterSeconds(now = Date.now()): number {
    let soonest = now + this.limits.sessionIdleTimeoutMs;
    for (const entry of this.live.values()) soonest = Math.min(soonest, entry.deadline);
    return Math.max(1, Math.ceil((soonest - now) / 1000));
  }

  private hold(id: string, entry: Live): () => void {
    entry.busy++;
    clearTimeout(entry.timer);
    entry.timer = undefined;
    entry.deadline = Infinity;
    let open = true;
    return () => {
      if (!open) return;
      open = false;
      entry.busy--;
      if (entry.busy === 0 && this.live.get(id) === entry) this.arm(id, entry);
    };
  }

  private arm(id: string, entry: Live): void {
    clearTimeout(entry.timer);
    entry.deadline = Date.now() + this.limits.sessionIdleTimeoutMs;
    entry.timer = setTimeout(() => {
      if (entry.busy === 0 && this.live.get(id) === entry) this.close(id);
    }, this.limits.sessionIdleTimeoutMs);
    // Expiry is housekeeping: it must not keep a process alive that is otherwise done.
    entry.timer.unref();
  }
}
