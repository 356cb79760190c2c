/**
 * Reading a file the user named (a certificate, a policy, a seed, a public key, receipts) whole
 * into memory, safely: only a regular file, and only up to a cap for its kind. Every such read in
 * the CLI and in src/ goes through here.
 * Owns: the per-kind size caps and the refusal of FIFOs, devices, sockets and directories.
 * Imports node:fs and src/errors.ts only (every area may import it).
 *
 * The path is user input and may name anything: `/dev/zero` never ends, a FIFO without a writer
 * blocks `open` forever, `/dev/stdin` may be a terminal. So the file is opened with O_NONBLOCK
 * (which makes opening a FIFO return at once and changes nothing for a regular file), checked with
 * fstat on that same descriptor (no window between the check and the read), and read only up to
 * its cap plus one byte, so a file that grows while it is read is still refused.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { ChioError } from './errors.js';

const KiB = 1024;
const MiB = 1024 * KiB;

/**
 * The most bytes read for each kind. Far above anything Chio writes (a seed or key file is 65
 * bytes, a certificate a few KiB, a policy a few KiB), far below what could exhaust memory.
 * Receipts files (`chio receipt verify`), anchor files and evidence bundles hold many records, so
 * their caps are the largest.
 */
export const INPUT_LIMITS = {
  certificate: 1 * MiB,
  policy: 1 * MiB,
  seed: 4 * KiB,
  'public key': 4 * KiB,
  /** The audit API's bearer token (`chio serve --service-token-file`). */
  'service token': 4 * KiB,
  receipts: 256 * MiB,
  /** A signed checkpoint note (C2SP signed-note caps a note at far less). */
  checkpoint: 128 * KiB,
  /** An anchor file: one note per checkpoint, a few hundred bytes each. */
  anchor: 256 * MiB,
  proof: 1 * MiB,
  /** An evidence bundle: a session's receipts with a proof each (a 10,000-receipt session is ~30 MiB). */
  evidence: 512 * MiB,
} as const;

export type InputKind = keyof typeof INPUT_LIMITS;

function fileType(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

function tooLarge(source: string, kind: InputKind): ChioError {
  return new ChioError(
    'CHIO-CLI-INPUT-TOO-LARGE',
    `${source} is larger than ${INPUT_LIMITS[kind]} bytes, the most chio reads for a ${kind} file`,
    {
      details: { kind, limit: INPUT_LIMITS[kind] },
      help:
        kind === 'receipts'
          ? `split the receipts into files of at most ${INPUT_LIMITS[kind]} bytes and verify each`
          : `check that the path names the ${kind} file you meant; chio's own ${kind} files are far smaller`,
    },
  );
}

function sleepMs(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Reads `fd` to its end, refusing more than `limit` bytes. */
function readCapped(fd: number, limit: number, onTooLarge: () => ChioError, sizeHint: number): Buffer {
  let buffer = Buffer.allocUnsafe(Math.min(limit + 1, Math.max(sizeHint + 1, 64 * KiB)));
  let total = 0;
  for (;;) {
    if (total === buffer.length) {
      if (total > limit) throw onTooLarge();
      const bigger = Buffer.allocUnsafe(Math.min(limit + 1, buffer.length * 2));
      buffer.copy(bigger, 0, 0, total);
      buffer = bigger;
    }
    let n: number;
    try {
      n = readSync(fd, buffer, total, buffer.length - total, null);
    } catch (e) {
      // A non-blocking pipe on stdin with nothing in it yet: wait for the writer.
      if ((e as NodeJS.ErrnoException).code === 'EAGAIN') {
        sleepMs(5);
        continue;
      }
      throw e;
    }
    if (n === 0) break;
    total += n;
    if (total > limit) throw onTooLarge();
  }
  return buffer.subarray(0, total);
}

function ioError(what: string, source: string, e: unknown): ChioError {
  return new ChioError('CHIO-CLI-IO', `cannot read ${what} ${source}: ${(e as Error).message}`, { cause: e });
}

/**
 * The bytes of the regular file at `path`, at most `INPUT_LIMITS[kind]` of them.
 * Throws CHIO-CLI-IO (cannot open or read), CHIO-CLI-INPUT-NOT-FILE, CHIO-CLI-INPUT-TOO-LARGE.
 * `what` names the file in messages (default: the kind).
 */
export function readInputFile(path: string, kind: InputKind, what: string = `${kind} file`): Buffer {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (e) {
    throw ioError(what, path, e);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) {
      throw new ChioError(
        'CHIO-CLI-INPUT-NOT-FILE',
        `${what} ${path} is ${fileType(st)}; chio reads a ${kind} only from a regular file`,
      );
    }
    if (st.size > INPUT_LIMITS[kind]) throw tooLarge(`${what} ${path}`, kind);
    try {
      return readCapped(fd, INPUT_LIMITS[kind], () => tooLarge(`${what} ${path}`, kind), st.size);
    } catch (e) {
      if (e instanceof ChioError) throw e;
      throw ioError(what, path, e);
    }
  } finally {
    closeSync(fd);
  }
}

/** `readInputFile` as UTF-8 text (no BOM stripping, as readFileSync). */
export function readInputText(path: string, kind: InputKind, what?: string): string {
  return readInputFile(path, kind, what).toString('utf8');
}

/** Standard input (any kind of stream: a pipe is the normal case), to its end, at most `INPUT_LIMITS[kind]` bytes. */
export function readInputStdin(kind: InputKind): Buffer {
  try {
    return readCapped(0, INPUT_LIMITS[kind], () => tooLarge('stdin', kind), 0);
  } catch (e) {
    if (e instanceof ChioError) throw e;
    throw ioError(`${kind} from`, 'stdin', e);
  }
}
