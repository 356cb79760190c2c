/**
 * The ACP edge over stdio: one JSON-RPC message per line in, one response per line out
 * (ACP v1 transports; upstream's hello-acp serving loop). Unlike upstream's loop, a line that is
 * not JSON is answered −32700 and the edge keeps serving; an oversized line is refused (−32600)
 * without being buffered. When the input ends, calls in flight finish, then the edge closes.
 * Owns: the edge's transport wiring. Imports src/wire and the edge.
 */
import type { Readable, Writable } from 'node:stream';
import { lineWriter, serveJsonRpcLines } from '../../wire/index.js';
import type { AcpEdge } from './edge.js';

export async function serveAcpStdio(
  edge: AcpEdge,
  input: Readable,
  output: Writable,
  options: { maxMessageBytes?: number } = {},
): Promise<void> {
  await serveJsonRpcLines((value) => edge.handle(value), input, lineWriter(output), options.maxMessageBytes);
  edge.close();
}
