/**
 * Newline-delimited JSON framing (MCP basic/transports stdio; ACP v1 transports: one message per
 * line, no embedded newlines). Reads a byte stream and hands each complete line to `onLine`; a
 * line over the size limit is refused through `onOversize` and skipped without ever being
 * buffered whole, so a hostile peer cannot grow memory past the limit. A last line without a
 * trailing newline is delivered at end of input.
 * Owns: framing only — parsing and meaning belong to the caller. Imports node: only.
 */
import type { Readable } from 'node:stream';

export const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

export interface LineHandlers {
  /** A complete line (without its newline), decoded as UTF-8. */
  onLine(line: string): void;
  /** A line longer than `maxMessageBytes` was dropped. */
  onOversize(maxMessageBytes: number): void;
}

/** Resolves when the input ends. Attacker-controlled bytes. */
export async function readLines(
  input: Readable | AsyncIterable<Buffer | string>,
  handlers: LineHandlers,
  maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES,
): Promise<void> {
  let buffered: Buffer[] = [];
  let size = 0;
  let skipping = false;
  for await (const chunk of input as AsyncIterable<Buffer | string>) {
    let data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    for (;;) {
      const nl = data.indexOf(0x0a);
      const part = nl < 0 ? data : data.subarray(0, nl);
      if (!skipping) {
        if (size + part.length > maxMessageBytes) {
          skipping = true;
          buffered = [];
          size = 0;
          handlers.onOversize(maxMessageBytes);
        } else {
          buffered.push(part);
          size += part.length;
        }
      }
      if (nl < 0) break;
      if (!skipping) handlers.onLine(Buffer.concat(buffered).toString('utf8'));
      buffered = [];
      size = 0;
      skipping = false;
      data = data.subarray(nl + 1);
    }
  }
  if (!skipping && size > 0) handlers.onLine(Buffer.concat(buffered).toString('utf8'));
}
