/**
 * What the MCP client gets for a governed call, from the kernel's answer: a tools/call result
 * (a denial is a result with isError; an allowed call's output as text and as structuredContent,
 * or the upstream's own result passed through), or for resources/read, resources/subscribe and
 * prompts/get the upstream's result or a JSON-RPC error. Every answer carries its receipt in
 * `_meta` (or in the error's `data`).
 * Owns: that mapping. Imports the kernel's response type and the JSON-RPC error; must not import cli.
 */
import type { ToolCallResponse } from '../../kernel/index.js';
import { RECEIPT_META_KEY } from './handshake.js';
import { INTERNAL_ERROR, INVALID_PARAMS, RpcError } from './jsonrpc.js';

/** JSON-RPC code of a governed method the kernel denied (the code of the edge's `unknown tool`). */
export const GOVERNED_DENIED = INVALID_PARAMS;

/** The receipt as `_meta` names it: its id, its verdict, its place in the ledger. */
function receiptMeta(r: ToolCallResponse) {
  return { id: r.receipt.id, decision: r.receipt.decision?.verdict ?? null, seq: r.entry.seq };
}

/**
 * A tools/call result. `passthrough`: the upstream's own result shape (a wrapped server's tool);
 * `streamed`: the output is the chunks of a streamed call.
 */
export function toolCallResult(r: ToolCallResponse, passthrough: boolean, streamed: boolean): Record<string, unknown> {
  const meta = { [RECEIPT_META_KEY]: receiptMeta(r) };
  if (!r.ok)
    return {
      content: [{ type: 'text', text: r.guard === undefined ? r.reason : `${r.reason} (${r.guard})` }],
      isError: true,
      _meta: meta,
    };
  if (passthrough) return { ...(r.output as Record<string, unknown>), _meta: meta };
  const structured =
    streamed && Array.isArray(r.output)
      ? { chunks: r.output }
      : r.output !== null && typeof r.output === 'object' && !Array.isArray(r.output)
        ? r.output
        : { result: r.output ?? null };
  return {
    content: [{ type: 'text', text: JSON.stringify(r.output ?? null) }],
    structuredContent: structured,
    isError: false,
    _meta: meta,
  };
}

/**
 * A governed method's result: denied → JSON-RPC error GOVERNED_DENIED with the receipt in `data`
 * (the upstream was never asked); an upstream error → its own code; allowed → the upstream's
 * result plus the receipt in `_meta`. Throws the RpcError.
 */
export function governedMethodResult(r: ToolCallResponse): Record<string, unknown> {
  const receipt = receiptMeta(r);
  if (!r.ok) {
    if (r.verdict === 'deny') {
      throw new RpcError(GOVERNED_DENIED, `denied: ${r.guard === undefined ? r.reason : `${r.reason} (${r.guard})`}`, {
        decision: 'deny',
        reason: r.reason,
        guard: r.guard ?? null,
        [RECEIPT_META_KEY]: receipt,
      });
    }
    // The upstream's own error (resource not found, …) keeps its code; the receipt says incomplete.
    const upstream = /MCP error (-?\d+): (.*)$/s.exec(r.reason);
    throw new RpcError(
      upstream === null ? INTERNAL_ERROR : Number(upstream[1]),
      upstream === null ? r.reason : upstream[2]!,
      { [RECEIPT_META_KEY]: receipt },
    );
  }
  return { ...(r.output as Record<string, unknown>), _meta: { [RECEIPT_META_KEY]: receipt } };
}
