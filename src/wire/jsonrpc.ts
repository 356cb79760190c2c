/**
 * JSON-RPC 2.0 message shapes shared by every line-based peer (MCP edge, ACP edge, ACP proxy):
 * classification of one parsed message, and error/result construction. MCP and ACP both use
 * string-or-integer ids and reject batches (MCP 2025-06-18 removed them; ACP v1 never had them).
 * Every byte classified here is attacker-controlled.
 * Owns: message shapes and the standard error codes. Imports zod only.
 */
import { z } from 'zod';

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;

export const RequestIdSchema = z.union([z.string(), z.number().int()]);
export type RequestId = z.infer<typeof RequestIdSchema>;

const RequestSchema = z.object({
  jsonrpc: z.literal('2.0'),
  id: RequestIdSchema,
  method: z.string().min(1),
  params: z.record(z.string(), z.unknown()).optional(),
});
const NotificationSchema = z.object({
  jsonrpc: z.literal('2.0'),
  method: z.string().min(1),
  params: z.record(z.string(), z.unknown()).optional(),
});
const ResponseSchema = z.object({
  jsonrpc: z.literal('2.0'),
  id: RequestIdSchema.nullable(),
  result: z.unknown().optional(),
  error: z.unknown().optional(),
});

export type JsonRpcRequest = z.infer<typeof RequestSchema>;
export type JsonRpcNotification = z.infer<typeof NotificationSchema>;
export type JsonRpcResponse = z.infer<typeof ResponseSchema>;

export type Incoming =
  | { kind: 'request'; message: JsonRpcRequest }
  | { kind: 'notification'; message: JsonRpcNotification }
  | { kind: 'response'; message: JsonRpcResponse }
  | { kind: 'invalid'; id: RequestId | null; reason: string };

export interface ClassifyOptions {
  /** The reason given when a batch (JSON array) arrives. */
  batchReason?: string;
}

export function classify(value: unknown, options: ClassifyOptions = {}): Incoming {
  if (Array.isArray(value))
    return { kind: 'invalid', id: null, reason: options.batchReason ?? 'batches are not supported' };
  if (value === null || typeof value !== 'object')
    return { kind: 'invalid', id: null, reason: 'a message is a JSON object' };
  const v = value as Record<string, unknown>;
  // The id an invalid message is answered with, when it has a usable one. Read only on that path:
  // for a notification (no id) the failed parse builds zod issues, on every update an ACP agent streams.
  const idOf = (): RequestId | null => (RequestIdSchema.safeParse(v.id).success ? (v.id as RequestId) : null);
  if ('method' in v) {
    if ('id' in v) {
      const r = RequestSchema.safeParse(v);
      return r.success
        ? { kind: 'request', message: r.data }
        : {
            kind: 'invalid',
            id: idOf(),
            reason: 'not a valid JSON-RPC 2.0 request (jsonrpc "2.0", string or integer id, method, object params)',
          };
    }
    const n = NotificationSchema.safeParse(v);
    return n.success
      ? { kind: 'notification', message: n.data }
      : { kind: 'invalid', id: null, reason: 'not a valid JSON-RPC 2.0 notification' };
  }
  const r = ResponseSchema.safeParse(v);
  if (r.success && 'result' in v !== 'error' in v) return { kind: 'response', message: r.data };
  return { kind: 'invalid', id: idOf(), reason: 'not a JSON-RPC 2.0 request, notification or response' };
}

export function errorResponse(id: RequestId | null, code: number, message: string, data?: unknown): object {
  return { jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } };
}

export function resultResponse(id: RequestId, result: unknown): object {
  return { jsonrpc: '2.0', id, result };
}

/** A failure that becomes a JSON-RPC error response. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}
