/**
 * The MCP edge: MCP sessions over the kernel (session.ts) on stdio and Streamable HTTP, in front
 * of in-process tool servers or a wrapped MCP server (upstream.ts, one connection per session).
 * Exports only; each module says what it owns.
 */
export { McpSession, SUPPORTED_PROTOCOL_VERSIONS, LATEST_PROTOCOL_VERSION, RECEIPT_META_KEY } from './session.js';
export type { McpSessionOptions, ConnectUpstream, UpstreamIdentity } from './session.js';
export { PASSTHROUGH_METHODS } from './session.js';
export { serveStdio, DEFAULT_MAX_MESSAGE_BYTES } from './stdio.js';
export type { StdioOptions } from './stdio.js';
export {
  PARSE_ERROR,
  INVALID_REQUEST,
  METHOD_NOT_FOUND,
  INVALID_PARAMS,
  INTERNAL_ERROR,
  SESSION_NOT_INITIALIZED,
} from './jsonrpc.js';
export { UpstreamMcpServer, passesMcpResultThrough } from './upstream.js';
export type { UpstreamTarget, UpstreamClientSide } from './upstream.js';
export { upstreamPathBases } from './path-bases.js';
export {
  serveHttp,
  sessionLimits,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SESSION_IDLE_TIMEOUT_MS,
  TOO_MANY_SESSIONS,
} from './http.js';
export type { HttpEdgeOptions, HttpEdge } from './http.js';
