/**
 * The ACP edge over stdio: one JSON-RPC message per line in, one response per line out
 * (ACP v1 transports; upstream's hello-acp serving loop). Unlike upstream's loop, a line that is
 * not JSON is answered −32700 and the edge keeps serving; an oversized line is refused (−32600)
 * without being buffered. When the input ends, calls in flight finish, then it resolves.
 * Owns: the edge's framing. Imports src/wire and the edge.
 */
import type { Readable, Writable } from 'node:stream';
import { DEFAULT_MAX_MESSAGE_BYTES, errorResponse, INVALID_REQUEST, PARSE_ERROR, readLines } from '../../wire/index.js';
import type { AcpEdge } from './edge.js';

export async function serveAcpStdio(edge: AcpEdge, input: Readable, output: Writable, options: { maxMessageBytes?: number } = {}): Promise<void> {
  const pending = new Set<Promise<void>>();
  const write = (message: object) => {
    output.write(`${JSON.stringify(message)}\n`);
  };
  await readLines(input, {
    onLine(line) {
      if (line.trim() === '') return;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (e) {
        write(errorResponse(null, PARSE_ERROR, `parse error: ${(e as Error).message}`));
        return;
      }
      const p = edge.handle(value).then((response) => {
        if (response !== null) write(response);
      });
      pending.add(p);
      void p.finally(() => pending.delete(p));
    },
    onOversize: (limit) => write(errorResponse(null, INVALID_REQUEST, `message larger than ${limit} bytes refused`)),
  }, options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES);
  while (pending.size > 0) await Promise.all([...pending]);
  edge.close();
}
