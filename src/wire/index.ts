/**
 * Wire helpers shared by the edges and the proxy: JSON-RPC 2.0 shapes, NDJSON framing, HTTP server timeouts and shutdown.
 * Owns: nothing beyond re-exports. Imports node: and zod only (no kernel, no ledger).
 */
export * from './jsonrpc.js';
export { readLines, DEFAULT_MAX_MESSAGE_BYTES } from './ndjson.js';
export type { LineHandlers } from './ndjson.js';
export { serveJsonRpcLines, lineWriter } from './serve.js';
export {
  applyServerTimeouts,
  closeServer,
  HEADERS_TIMEOUT_MS,
  KEEP_ALIVE_TIMEOUT_MS,
  SHUTDOWN_GRACE_MS,
} from './http-server.js';
