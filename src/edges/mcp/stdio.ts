/**
 * The stdio transport (MCP basic/transports: one JSON-RPC message per line, UTF-8, nothing else on
 * stdout). Messages are handled concurrently — a long tool call does not hold up a ping — and each
 * response is written as one line. A line over the size limit is refused with an error and
 * skipped, never buffered whole; malformed JSON is −32700. When the input ends, the transport
 * waits for calls in flight, then resolves.
 * Owns: framing. Imports the session and JSON-RPC helpers.
 */
import type { Readable, Writable } from 'node:stream';
import { DEFAULT_MAX_MESSAGE_BYTES, readLines } from '../../wire/index.js';
import { errorResponse, INVALID_REQUEST, PARSE_ERROR } from './jsonrpc.js';
import type { McpSession } from './session.js';

export { DEFAULT_MAX_MESSAGE_BYTES };

export interface StdioOptions {
  maxMessageBytes?: number;
}

export async function serveStdio(session: McpSession, input: Readable, output: Writable, options: StdioOptions = {}): Promise<void> {
  const max = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const pending = new Set<Promise<void>>();
  const write = (message: object) => {
    output.write(`${JSON.stringify(message)}\n`);
  };
  session.setOutbound(write);
  const dispatch = (line: string) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      write(errorResponse(null, PARSE_ERROR, `parse error: ${(e as Error).message}`));
      return;
    }
    const p = session.handle(value).then((response) => {
      if (response !== null) write(response);
    });
    pending.add(p);
    void p.finally(() => pending.delete(p));
  };

  await readLines(input, {
    onLine: dispatch,
    onOversize: (limit) => write(errorResponse(null, INVALID_REQUEST, `message larger than ${limit} bytes refused`)),
  }, max);
  while (pending.size > 0) await Promise.all([...pending]);
  session.close();
}
