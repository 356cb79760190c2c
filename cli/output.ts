/**
 * How the CLI speaks: the DESIGN §8 error shape on stderr, exit codes, and data on stdout.
 * Owns: rendering. Must not import ledger internals (only src/errors.ts).
 */
import { ChioError, type EXIT, isChioError } from '../src/errors.js';

/**
 * error[CODE]: message
 *   help: …
 *   code: urn:chio:error:…
 *   docs: https://chio.computer/docs/reference/errors#error-…
 */
export function renderError(e: ChioError): string {
  // One line per field, whatever the message carries (yargs messages span lines).
  const message = e.message.trim().replace(/\s*\n\s*/g, '; ');
  return `error[${e.code}]: ${message}\n  help: ${e.help}\n  code: ${e.urn}\n  docs: ${e.docs}\n`;
}

export function toChioError(e: unknown): ChioError {
  if (isChioError(e)) return e;
  return new ChioError('CHIO-INTERNAL', e instanceof Error ? e.message : String(e), { cause: e });
}

/** Prints the error and sets the exit code; the process then ends once stdout has drained. */
export function reportError(e: unknown): void {
  const error = toChioError(e);
  writeErr(renderError(error));
  if (error.code === 'CHIO-INTERNAL' && process.env.CHIO_DEBUG !== undefined && e instanceof Error) {
    writeErr(`${e.stack ?? ''}\n`);
  }
  process.exitCode = error.exitCode;
}

/** The standard streams a reader has closed (EPIPE); see `writeOut`. */
const closedStreams = new Set<NodeJS.WriteStream>();
const watchedStreams = new Set<NodeJS.WriteStream>();

function writeTo(stream: NodeJS.WriteStream, text: string): void {
  if (!watchedStreams.has(stream)) {
    watchedStreams.add(stream);
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE') throw e;
      closedStreams.add(stream);
    });
  }
  if (!closedStreams.has(stream)) stream.write(text);
}

/**
 * Writes data to stdout. A reader that goes away early (`chio receipt list | head`) closes the
 * pipe: Node ignores SIGPIPE and reports EPIPE as an 'error' event, which would end the command
 * with a stack trace and exit code 1. The rest of the output is dropped instead and the command
 * finishes, so its exit code is still its verdict (what `set -o pipefail` shows). Any other fault
 * of the stream is thrown.
 */
export function writeOut(text: string): void {
  writeTo(process.stdout, text);
}

/** Writes to stderr (errors, counts), dropping what a closed pipe cannot take, as `writeOut`. */
export function writeErr(text: string): void {
  writeTo(process.stderr, text);
}

export function out(line: string): void {
  writeOut(line.endsWith('\n') ? line : `${line}\n`);
}

export function outJson(value: unknown): void {
  out(JSON.stringify(value));
}

export function setExit(code: (typeof EXIT)[keyof typeof EXIT]): void {
  process.exitCode = code;
}

/** Aligned `label  value` lines. */
export function table(rows: Array<[string, string]>): string {
  const width = Math.max(...rows.map(([k]) => k.length)) + 2;
  return rows.map(([k, v]) => `${k.padEnd(width)}${v}`).join('\n');
}

export function isoTime(unixSeconds: number | null | undefined): string {
  if (unixSeconds === null || unixSeconds === undefined) return '—';
  return `${new Date(unixSeconds * 1000).toISOString().replace('.000Z', 'Z')} (${unixSeconds})`;
}
