/**
 * The stdio transport (MCP basic/transports: one JSON-RPC message per line, UTF-8, nothing else on
 * stdout). Messages are handled concurrently — a long tool call does not hold up a ping — and each
 * response is written as one line. A line over the size limit is refused with an error and
 * skipped, never buffered whole; malformed JSON is −32700. When the input ends, the transport
 * waits for calls in flight, then resolves.
 * Owns: framing. Imports the session and JSON-RPC helpers.
 */
import type { Readable, Writable } from 'node:stream';
import { errorResponse, INVALID_REQUEST, PARSE_ERROR } from './jsonrpc.js';
import type { McpSession } from './session.js';

export const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

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

  let buffered: Buffer[] = [];
  let size = 0;
  let skipping = false;
  for await (const chunk of input as AsyncIterable<Buffer | string>) {
    let data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    for (;;) {
      const nl = data.indexOf(0x0a);
      const part = nl < 0 ? data : data.subarray(0, nl);
      if (!skipping) {
        if (size + part.length > max) {
          skipping = true;
          buffered = [];
          size = 0;
          write(errorResponse(null, INVALID_REQUEST, `message larger than ${max} bytes refused`));
        } else {
          buffered.push(part);
          size += part.length;
        }
      }
      if (nl < 0) break;
      if (!skipping) dispatch(Buffer.concat(buffered).toString('utf8'));
      buffered = [];
      size = 0;
      skipping = false;
      data = data.subarray(nl + 1);
    }
  }
  if (!skipping && size > 0) dispatch(Buffer.concat(buffered).toString('utf8'));
  while (pending.size > 0) await Promise.all([...pending]);
  session.close();
}
