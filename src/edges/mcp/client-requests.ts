/**
 * Requests the edge sends its client on an upstream server's behalf (sampling/createMessage,
 * elicitation/create, roots/list, ping): each gets an id of the edge's own (`chio-relay-<n>`, so
 * it can never collide with the edge's roots requests or be confused with the upstream's id),
 * waits until the client has finished initializing (MCP lifecycle: no requests before
 * `notifications/initialized`), and settles with the client's response. When the upstream
 * cancels, the client is sent `notifications/cancelled` and any late answer is dropped. The
 * client's progress on a relayed request (the upstream's progressToken in `_meta`) is recognised
 * here so the session can pass it upstream. At most MAX_RELAYED_IN_FLIGHT are outstanding.
 * Owns: the relayed requests in flight. Imports only the JSON-RPC shapes. Answers are attacker-controlled.
 */
import { RpcError } from './jsonrpc.js';
import type { RequestId } from './jsonrpc.js';

export const RELAY_REQUEST_PREFIX = 'chio-relay-';
/** Requests to the client in flight at once, at most: an upstream that floods the client is refused past it. */
export const MAX_RELAYED_IN_FLIGHT = 64;

/** Where a request goes: the transport sends it (HTTP: on the stream of `related`, the client request that caused it). */
export type RequestSink = (
  message: { jsonrpc: '2.0'; id: string; method: string; params?: Record<string, unknown> },
  related: RequestId | undefined,
) => void | Promise<void>;

interface Pending {
  resolve(result: Record<string, unknown>): void;
  reject(error: Error): void;
  progressToken: unknown;
}

export class ClientRequests {
  private readonly pending = new Map<string, Pending>();
  private sequence = 0;
  private open: () => void = () => {};
  private readonly opened: Promise<void>;
  private closed = false;

  constructor(private readonly sink: () => RequestSink | undefined) {
    this.opened = new Promise((resolve) => (this.open = resolve));
  }

  /** The client finished initializing: requests held until now go out. */
  ready(): void {
    this.open();
  }

  /** Sends one request to the client and waits for its answer; rejects with the client's error (code kept) or when `signal` aborts. */
  async send(
    method: string,
    params: Record<string, unknown> | undefined,
    signal: AbortSignal,
    related: () => RequestId | undefined,
  ): Promise<Record<string, unknown>> {
    await Promise.race([this.opened, aborted(signal)]);
    if (this.closed) throw new RpcError(-32603, 'the client session has ended');
    if (this.pending.size >= MAX_RELAYED_IN_FLIGHT)
      throw new RpcError(-32603, `too many requests to the client in flight (at most ${MAX_RELAYED_IN_FLIGHT})`);
    const id = `${RELAY_REQUEST_PREFIX}${++this.sequence}`;
    const sink = this.sink();
    if (sink === undefined) throw new RpcError(-32603, 'the client cannot be reached');
    const progressToken = (params?._meta as { progressToken?: unknown } | undefined)?.progressToken;
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      const onAbort = () => {
        if (!this.pending.delete(id)) return;
        // MCP cancellation: tell the client it need not answer; the upstream has stopped waiting.
        void Promise.resolve(
          sink(
            {
              jsonrpc: '2.0',
              method: 'notifications/cancelled',
              params: { requestId: id, reason: String(signal.reason ?? 'cancelled by the server') },
            } as never,
            undefined,
          ),
        ).catch(() => {});
        reject(new RpcError(-32800, 'request cancelled'));
      };
      this.pending.set(id, {
        progressToken,
        resolve: (r) => {
          signal.removeEventListener('abort', onAbort);
          resolve(r);
        },
        reject: (e) => {
          signal.removeEventListener('abort', onAbort);
          reject(e);
        },
      });
      signal.addEventListener('abort', onAbort, { once: true });
      Promise.resolve(
        sink({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }, related()),
      ).catch((e: unknown) => {
        if (this.pending.delete(id))
          reject(
            new RpcError(-32603, `the request could not be sent to the client: ${(e as Error)?.message ?? String(e)}`),
          );
      });
    });
  }

  /** Takes a response (attacker-controlled) if it answers a relayed request; returns whether it did. */
  accept(response: { id: unknown; result?: unknown; error?: unknown }): boolean {
    if (typeof response.id !== 'string') return false;
    const p = this.pending.get(response.id);
    if (p === undefined) return response.id.startsWith(RELAY_REQUEST_PREFIX); // late answer to a cancelled request: dropped
    this.pending.delete(response.id);
    if (response.error !== undefined) {
      const e = response.error as { code?: unknown; message?: unknown; data?: unknown };
      p.reject(
        new RpcError(
          typeof e.code === 'number' && Number.isInteger(e.code) ? e.code : -32603,
          typeof e.message === 'string' ? e.message : 'error',
          e.data,
        ),
      );
    } else if (response.result !== null && typeof response.result === 'object' && !Array.isArray(response.result)) {
      p.resolve(response.result as Record<string, unknown>);
    } else {
      p.reject(new RpcError(-32603, 'the client answered with a result that is not an object'));
    }
    return true;
  }

  /** Whether a progress token belongs to a relayed request still in flight (its progress goes upstream). */
  relaysProgress(token: unknown): boolean {
    if (typeof token !== 'string' && typeof token !== 'number') return false;
    for (const p of this.pending.values()) if (p.progressToken === token) return true;
    return false;
  }

  /** The session ended: every relayed request fails, later ones too. */
  close(): void {
    this.closed = true;
    this.open();
    for (const [id, p] of this.pending) {
      this.pending.delete(id);
      p.reject(new RpcError(-32603, 'the client session has ended'));
    }
  }
}

function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(new RpcError(-32800, 'request cancelled'));
    else signal.addEventListener('abort', () => reject(new RpcError(-32800, 'request cancelled')), { once: true });
  });
}
