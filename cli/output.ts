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
  process.stderr.write(renderError(error));
  if (error.code === 'CHIO-INTERNAL' && process.env.CHIO_DEBUG !== undefined && e instanceof Error) {
    process.stderr.write(`${e.stack ?? ''}\n`);
  }
  process.exitCode = error.exitCode;
}

let stdoutWatched = false;
let stdoutClosed = false;

/**
 * Writes data to stdout. A reader that goes away early (`chio receipt list | head`) closes the
 * pipe: Node ignores SIGPIPE and reports EPIPE as an 'error' event, which would end the command
 * with a stack trace. The rest of the output is dropped instead and the command finishes, so its
 * exit code is still its verdict (what `set -o pipefail` shows). Any other stdout fault is thrown.
 */
export function writeOut(text: string): void {
  if (!stdoutWatched) {
    stdoutWatched = true;
    process.stdout.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE') throw e;
      stdoutClosed = true;
    });
  }
  if (!stdoutClosed) process.stdout.write(text);
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
