/**
 * The params of the MCP methods the edge answers itself, as it reads them (attacker-controlled:
 * extra members pass through, the ones it uses are checked), and the JSON-RPC -32602 answer for
 * tool arguments that no receipt could carry.
 * Owns: those shapes and that refusal. Imports zod, crypto and the edge's JSON-RPC errors.
 */
import { z } from 'zod';
import { assertCanonicalizable } from '../../crypto/index.js';
import { isChioError } from '../../errors.js';
import { INVALID_PARAMS, RpcError } from './jsonrpc.js';

export const CallToolParamsSchema = z
  .object({
    name: z.string().min(1),
    arguments: z.record(z.string(), z.unknown()).optional(),
    task: z.object({ ttl: z.number().int().nonnegative().optional() }).passthrough().optional(),
  })
  .passthrough();
export const TaskIdParamsSchema = z.object({ taskId: z.string().min(1) }).passthrough();
export const ListParamsSchema = z.object({ cursor: z.string().optional() }).passthrough();
// Governed methods' params (attacker-controlled): only what the kernel judges is relayed.
export const ResourceParamsSchema = z.object({ uri: z.string().min(1) }).passthrough();
export const PromptParamsSchema = z
  .object({ name: z.string().min(1), arguments: z.record(z.string(), z.string()).optional() })
  .passthrough();
export const CancelledParamsSchema = z
  .object({ requestId: z.union([z.string(), z.number()]).optional(), reason: z.string().optional() })
  .passthrough();

/**
 * Tool arguments that RFC 8785 cannot carry losslessly (an integer beyond 2^53−1, a lone
 * surrogate, nesting beyond 128 levels; attacker-controlled) cannot be put in a receipt, so the
 * call never runs and nothing is recorded: the client sent invalid params (JSON-RPC -32602), the
 * edge had no internal error. Looked at only once a call has failed on canonical JSON (the hot path
 * walks the arguments no more than before), and only the arguments: a failure on anything else,
 * such as an upstream's output, is answered as it was.
 */
export function invalidArguments(e: unknown, args: unknown): RpcError | undefined {
  if (!isChioError(e) || e.code !== 'CHIO-CRYPTO-NOT-CANONICAL') return undefined;
  return nonCanonicalArguments(args);
}

/** The -32602 answer for tool arguments RFC 8785 cannot carry; undefined when it can carry them. */
export function nonCanonicalArguments(args: unknown): RpcError | undefined {
  try {
    assertCanonicalizable(args);
    return undefined;
  } catch (refusal) {
    if (!isChioError(refusal)) return undefined;
    return new RpcError(INVALID_PARAMS, `${refusal.code}: ${refusal.message}`, {
      code: refusal.code,
      ...refusal.details,
    });
  }
}
