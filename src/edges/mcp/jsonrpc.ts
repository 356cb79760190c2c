/**
 * JSON-RPC 2.0 as MCP uses it (MCP 2025-11-25 basic/index: ids are strings or integers, never
 * null; no batches): message classification and the error codes. Every byte read here is
 * attacker-controlled.
 * Owns: message shapes and error construction. Imports zod only.
 */
import { z } from 'zod';

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
/** Upstream chio's `session_not_initialized` (error registry code 1001). */
export const SESSION_NOT_INITIALIZED = -32002;

export const RequestIdSchema = z.union([z.string(), z.number().int()]);
export type RequestId = z.infer<typeof RequestIdSchema>;

const RequestSchema = z.object({ jsonrpc: z.literal('2.0'), id: RequestIdSchema, method: z.string().min(1), params: z.record(z.string(), z.unknown()).optional() });
const NotificationSchema = z.object({ jsonrpc: z.literal('2.0'), method: z.string().min(1), params: z.record(z.string(), z.unknown()).optional() });
const ResponseSchema = z.object({ jsonrpc: z.literal('2.0'), id: RequestIdSchema.nullable(), result: z.unknown().optional(), error: z.unknown().optional() });

export type JsonRpcRequest = z.infer<typeof RequestSchema>;
export type JsonRpcNotification = z.infer<typeof NotificationSchema>;

export type Incoming =
  | { kind: 'request'; message: JsonRpcRequest }
  | { kind: 'notification'; message: JsonRpcNotification }
  | { kind: 'response' }
  | { kind: 'invalid'; id: RequestId | null; reason: string };

export function classify(value: unknown): Incoming {
  if (Array.isArray(value)) return { kind: 'invalid', id: null, reason: 'batches are not supported (removed in MCP 2025-06-18)' };
  if (value === null || typeof value !== 'object') return { kind: 'invalid', id: null, reason: 'a message is a JSON object' };
  const v = value as Record<string, unknown>;
  const id = RequestIdSchema.safeParse(v['id']).success ? (v['id'] as RequestId) : null;
  if ('method' in v) {
    if ('id' in v) {
      const r = RequestSchema.safeParse(v);
      return r.success ? { kind: 'request', message: r.data } : { kind: 'invalid', id, reason: 'not a valid JSON-RPC 2.0 request (jsonrpc "2.0", string or integer id, method, object params)' };
    }
    const n = NotificationSchema.safeParse(v);
    return n.success ? { kind: 'notification', message: n.data } : { kind: 'invalid', id: null, reason: 'not a valid JSON-RPC 2.0 notification' };
  }
  if (ResponseSchema.safeParse(v).success) return { kind: 'response' };
  return { kind: 'invalid', id, reason: 'not a JSON-RPC 2.0 request, notification or response' };
}

export function errorResponse(id: RequestId | null, code: number, message: string, data?: unknown): object {
  return { jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } };
}

export function resultResponse(id: RequestId, result: unknown): object {
  return { jsonrpc: '2.0', id, result };
}

/** A failure that becomes a JSON-RPC error response. */
export class RpcError extends Error {
  constructor(readonly code: number, message: string, readonly data?: unknown) {
    super(message);
  }
}
