/**
 * JSON-RPC 2.0 as MCP uses it (MCP 2025-11-25 basic/index: ids are strings or integers, never
 * null; no batches). The shapes are shared with the ACP side (src/wire); this adds MCP's
 * batch wording and its session-not-initialized code.
 * Owns: MCP's JSON-RPC specifics. Imports src/wire.
 */
import { classify as classifyMessage } from '../../wire/index.js';
import type { Incoming } from '../../wire/index.js';

export {
  PARSE_ERROR,
  INVALID_REQUEST,
  METHOD_NOT_FOUND,
  INVALID_PARAMS,
  INTERNAL_ERROR,
  RequestIdSchema,
  errorResponse,
  resultResponse,
  RpcError,
} from '../../wire/index.js';
export type { RequestId, JsonRpcRequest, JsonRpcNotification, Incoming } from '../../wire/index.js';

/** Upstream chio's `session_not_initialized` (error registry code 1001). */
export const SESSION_NOT_INITIALIZED = -32002;
/** An MCP-Session-Id the HTTP edge does not know (answered with HTTP 404). */
export const SESSION_NOT_FOUND = -32001;

export function classify(value: unknown): Incoming {
  return classifyMessage(value, { batchReason: 'batches are not supported (removed in MCP 2025-06-18)' });
}
