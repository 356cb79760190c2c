/**
 * Connection timeouts for the HTTP servers Chio runs (`chio serve`'s audit API and explorer,
 * `chio mcp serve-http`). Owns: those numbers and why. Imports node: only.
 *
 * Node's default keep-alive timeout (5 s) races clients whose own idle timer is a little shorter
 * (undici, Node's fetch: 4 s): under load the client's timer fires late, it reuses the connection
 * just as the server closes it, and the request fails with "other side closed" although the server
 * never saw it. Servers behind proxies use 60 s or more for the same reason (RFC 9112 §9.3 lets
 * either side close an idle connection; the client is expected to retry only idempotent requests,
 * and a JSON-RPC POST is not one). Idle connections still close at once on `server.close()`
 * (Node ≥ 19 closes idle sockets there), and headers must arrive within the headers timeout, so a
 * peer that opens connections and sends nothing holds each for at most that long.
 */
import type { Server } from 'node:http';

export const KEEP_ALIVE_TIMEOUT_MS = 65_000;
/** Must exceed the keep-alive timeout (Node's own rule) so a reused connection's next request is not cut at its headers. */
export const HEADERS_TIMEOUT_MS = 66_000;

export function applyServerTimeouts(server: Server): Server {
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  return server;
}
