/**
 * The upstream's sampling and elicitation requests to the client, observed: each exchange leaves a
 * `trace_observation` receipt (kernel.recordObservation: the request's params as the policy's
 * redaction records them, content_hash over the answer, `metadata.mcp_relay` with its outcome)
 * committed before the answer goes back upstream. If the receipt cannot be written the upstream
 * gets an error instead of the answer: nothing the client said passes unrecorded. roots/list and
 * ping are relayed without a receipt (they carry nothing of the conversation).
 * Params over MAX_OBSERVED_PARAMS_BYTES are recorded by size and hash.
 * Owns: what is recorded of a relayed request. Imports the kernel type and JSON-RPC shapes; must not import the session.
 */
import { canonicalJson, sha256Hex } from '../../crypto/index.js';
import { isChioError } from '../../errors.js';
import type { Kernel } from '../../kernel/index.js';
import { INTERNAL_ERROR, RpcError } from './jsonrpc.js';

export const OBSERVED_METHODS: ReadonlySet<string> = new Set(['sampling/createMessage', 'elicitation/create']);
/**
 * Params larger than this (RFC 8785 text, UTF-8 bytes) are recorded as `{chio_oversized: {bytes,
 * sha256}}` of that text: the upstream chooses their size, and a receipt is no place for megabytes
 * (a tool call's params are bounded by the client's message limit; these are not).
 */
export const MAX_OBSERVED_PARAMS_BYTES = 64 * 1024;

/** What a receipt records of relayed params: them, or the size and hash of their canonical text. */
export function recordedParams(params: Record<string, unknown> | undefined): unknown {
  const text = canonicalJson(params ?? {});
  const bytes = Buffer.byteLength(text, 'utf8');
  return bytes <= MAX_OBSERVED_PARAMS_BYTES ? (params ?? {}) : { chio_oversized: { bytes, sha256: sha256Hex(text) } };
}

export interface RelayContext {
  kernel: Kernel;
  serverId: string;
  capabilityId: string;
  sessionId: string;
  /** Sends the request to the client and waits for its answer. */
  send(signal: AbortSignal): Promise<Record<string, unknown>>;
}

/** Relays one request (params attacker-controlled, relayed as they are) and records the exchange when it is observed. */
export async function observedRelay(
  c: RelayContext,
  method: string,
  params: Record<string, unknown> | undefined,
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  if (!OBSERVED_METHODS.has(method)) return c.send(signal);
  let answer: { result: Record<string, unknown> } | { error: Error };
  try {
    answer = { result: await c.send(signal) };
  } catch (e) {
    answer = { error: e as Error };
  }
  const outcome = 'result' in answer ? 'answered' : signal.aborted ? 'cancelled' : 'error';
  const content =
    'result' in answer
      ? { result: answer.result }
      : {
          error: {
            code: answer.error instanceof RpcError ? answer.error.code : INTERNAL_ERROR,
            message: answer.error.message,
          },
        };
  try {
    await c.kernel.recordObservation({
      serverId: c.serverId,
      toolName: method,
      capabilityId: c.capabilityId,
      parameters: recordedParams(params),
      content,
      sessionId: c.sessionId,
      metadata: { mcp_relay: { direction: 'server_to_client', outcome } },
    });
  } catch (e) {
    throw new RpcError(
      INTERNAL_ERROR,
      `the exchange could not be recorded, so its answer is withheld: ${isChioError(e) ? e.code : ((e as Error)?.message ?? String(e))}`,
    );
  }
  if ('error' in answer) throw answer.error;
  return answer.result;
}
