/**
 * Serving JSON-RPC over NDJSON (the stdio transports of the MCP and ACP edges): each line is
 * parsed and handed to `handle`, concurrently — a long tool call does not hold up a ping — and
 * each answer is written as one line. A line that is not JSON is answered −32700 and serving goes
 * on; an oversized line is refused (−32600) without being buffered. When the input ends, the
 * handlers in flight finish, then it resolves.
 * Owns: the line-to-handler loop. Imports node: and this area only. Input is attacker-controlled.
 */
import type { Readable, Writable } from 'node:stream';
import { errorResponse, INVALID_REQUEST, PARSE_ERROR } from './jsonrpc.js';
import { DEFAULT_MAX_MESSAGE_BYTES, readLines } from './ndjson.js';

/** Writes one message as one line. */
export function lineWriter(output: Writable): (message: object) => void {
  return (message) => {
    output.write(`${JSON.stringify(message)}\n`);
  };
}

export async function serveJsonRpcLines(
  handle: (value: unknown) => Promise<object | null>,
  input: Readable,
  write: (message: object) => void,
  maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES,
): Promise<void> {
  const pending = new Set<Promise<void>>();
  await readLines(
    input,
    {
      onLine(line) {
        if (line.trim() === '') return;
        let value: unknown;
        try {
          value = JSON.parse(line);
        } catch (e) {
          write(errorResponse(null, PARSE_ERROR, `parse error: ${(e as Error).message}`));
          return;
        }
        const p = handle(value).then((response) => {
          if (response !== null) write(response);
        });
        pending.add(p);
        void p.finally(() => pending.delete(p));
      },
      onOversize: (limit) => write(errorResponse(null, INVALID_REQUEST, `message larger than ${limit} bytes refused`)),
    },
    maxMessageBytes,
  );
  while (pending.size > 0) await Promise.all([...pending]);
}
