/**
 * The stdio transport (MCP basic/transports: one JSON-RPC message per line, UTF-8, nothing else on
 * stdout). Messages are handled concurrently — a long tool call does not hold up a ping — and each
 * response is written as one line. A line over the size limit is refused with an error and
 * skipped, never buffered whole; malformed JSON is −32700. When the input ends, the transport
 * waits for calls in flight, then resolves.
 * Owns: the MCP session's transport wiring. Imports src/wire and the session.
 */
import type { Readable, Writable } from 'node:stream';
import { stamp } from '../../stage-profile.js';
import { DEFAULT_MAX_MESSAGE_BYTES, lineWriter, serveJsonRpcLines } from '../../wire/index.js';
import type { McpSession } from './session.js';

export { DEFAULT_MAX_MESSAGE_BYTES };

export interface StdioOptions {
  maxMessageBytes?: number;
}

export async function serveStdio(
  session: McpSession,
  input: Readable,
  output: Writable,
  options: StdioOptions = {},
): Promise<void> {
  const write = lineWriter(output);
  session.setOutbound(write);
  // Stage stamps for the bench's profile (no-ops unless CHIO_STAGE_PROFILE is set): a message
  // parsed, and an answer written.
  const answer = (message: object) => {
    write(message);
    stamp('respond');
  };
  await serveJsonRpcLines(
    (value) => {
      stamp('received');
      return session.handle(value);
    },
    input,
    answer,
    options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
  );
  session.close();
}
