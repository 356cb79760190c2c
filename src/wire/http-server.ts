/**
 * Connection timeouts and shutdown for the HTTP servers Chio runs (`chio serve`'s audit API and
 * explorer, `chio mcp serve-http`). Owns: those numbers, the shutdown sequence, and why. Imports node: only.
 *
 * Node's default keep-alive timeout (5 s) races clients whose own idle timer is a little shorter
 * (undici, Node's fetch: 4 s): under load the client's timer fires late, it reuses the connection
 * just as the server closes it, and the request fails with "other side closed" although the server
 * never saw it. Servers behind proxies use 60 s or more for the same reason (RFC 9112 §9.3 lets
 * either side close an idle connection; the client is expected to retry only idempotent requests,
 * and a JSON-RPC POST is not one).
 *
 * Shutdown cannot rely on `server.close()` alone: it closes the connections idle at that moment,
 * but one that finishes its request afterwards stays open until the keep-alive timeout (65 s), and
 * one that never sent complete headers (a silent or slowloris client) keeps it waiting for ever,
 * since close() also stops Node's headers-timeout sweep. `closeServer` therefore keeps closing
 * connections as they go idle and, after a grace period, closes whatever is left.
 */
import type { Server } from 'node:http';

export const KEEP_ALIVE_TIMEOUT_MS = 65_000;
/** Must exceed the keep-alive timeout (Node's own rule) so a reused connection's next request is not cut at its headers. */
export const HEADERS_TIMEOUT_MS = 66_000;
/** How long requests in progress get to finish at shutdown before their connections are closed. */
export const SHUTDOWN_GRACE_MS = 2_000;

export function applyServerTimeouts(server: Server): Server {
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  return server;
}

/**
 * Stops accepting connections, lets requests in progress finish for up to `graceMs`, closes each
 * connection as soon as it is idle, then closes every connection left; resolves once the server
 * has closed.
 */
export function closeServer(server: Server, graceMs = SHUTDOWN_GRACE_MS): Promise<void> {
  return new Promise((resolve) => {
    const sweep = setInterval(() => server.closeIdleConnections(), 100);
    const deadline = setTimeout(() => server.closeAllConnections(), graceMs);
    server.close(() => {
      clearInterval(sweep);
      clearTimeout(deadline);
      resolve();
    });
  });
}
