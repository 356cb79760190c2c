/**
 * Running an allowed call on its tool server: the whole output, or the stream's chunks (each one
 * canonicalized once: its size counted and its hash carried to the receipt), or why it failed or
 * was cancelled. A tool's failure is an outcome, never a throw: the receipt records it.
 * Owns: one dispatch and the hashes it carries. Imports crypto and the tool-server contract.
 */
import { canonicalJson, hashCanonical, sha256Hex } from '../crypto/index.js';
import type { ToolCallRequest } from './kernel-types.js';
import type { InvokeContext, ToolServerConnection } from './tool-server.js';

export async function dispatchCall(server: ToolServerConnection, request: ToolCallRequest, context: InvokeContext) {
  try {
    if (request.stream === true && server.invokeStream !== undefined) {
      const chunks: unknown[] = [];
      let chunkHashes: string[] | undefined = [];
      let totalBytes = 0;
      for await (const chunk of server.invokeStream(request.toolName, request.arguments ?? {}, context)) {
        // One canonicalization per chunk: its size here, its H(chunk.data) carried to the receipt
        // (a chunk without data is sized as null but never hashed as one: the receipt refuses it).
        const text = canonicalJson(chunk.data ?? null);
        totalBytes += Buffer.byteLength(text, 'utf8');
        if (chunk.data === undefined) chunkHashes = undefined;
        else chunkHashes?.push(sha256Hex(text));
        context.onChunk?.(chunk.data, chunks.length);
        chunks.push(chunk.data);
      }
      return { kind: 'stream' as const, chunks, totalBytes, ...(chunkHashes === undefined ? {} : { chunkHashes }) };
    }
    const output = await server.invoke(request.toolName, request.arguments ?? {}, context);
    // An output JCS cannot represent is a tool failure, not a receipt failure. The canonical
    // form is needed once: its hash is the receipt's content_hash (carried, not recomputed).
    const contentHash = hashCanonical(output ?? null);
    return { kind: 'output' as const, output, contentHash };
  } catch (e) {
    if (request.signal?.aborted === true) return { kind: 'cancelled' as const, reason: 'cancelled by the caller' };
    return { kind: 'failed' as const, reason: `tool error: ${(e as Error)?.message ?? String(e)}` };
  }
}
