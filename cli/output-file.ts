/**
 * Writing a file the user named with an output flag (`chio cert generate --output`).
 * Owns: the no-overwrite rule. Without --force an existing path (a file, a directory, a symlink,
 * even a dangling one) is refused and left byte-for-byte unchanged; with --force a regular file
 * or a symlink is replaced, and never one of the command's own inputs (the receipt database and
 * its -wal/-shm/-journal companions, a seed or key file it reads). Imports src/errors only.
 *
 * The path is user input. Without --force the file is created with O_CREAT|O_EXCL ('wx'), which
 * fails on any existing entry and never follows a symlink, so a link planted at the path cannot
 * redirect the write. With --force the contents go to a temporary file in the same directory,
 * which is then renamed over the path: the directory entry is replaced (a symlink itself, not
 * what it points to), and a reader never sees a half-written file.
 */
import {
  closeSync,
  fsyncSync,
  lstatSync,
  openSync,
  realpathSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import type { Stats } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join, resolve } from 'node:path';
import { ChioError } from '../src/errors.js';

export interface OutputTarget {
  path: string;
  force: boolean;
  /** Files the command reads: never written, even with --force. `ledger: true` adds SQLite's companion files. */
  inputs: ReadonlyArray<{ path: string; what: string; ledger?: boolean }>;
}

function tryLstat(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

function tryStat(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/** The absolute path with every symlink in its directory resolved (the last component as given). */
function canonicalParent(path: string): string {
  const abs = resolve(path);
  try {
    return join(realpathSync(dirname(abs)), basename(abs));
  } catch {
    return abs;
  }
}

/** True when `output` names (or resolves to) the same file as `input`. */
function sameFile(output: string, input: string): boolean {
  if (canonicalParent(output) === canonicalParent(input)) return true;
  try {
    if (realpathSync(output) === realpathSync(input)) return true;
  } catch {
    // one of them does not exist (yet): compared by name above
  }
  const a = tryStat(output);
  const b = tryStat(input);
  return a !== undefined && b !== undefined && a.dev === b.dev && a.ino === b.ino;
}

/**
 * Refuses, before any work is done, an output the command may not write. Call it again (through
 * `writeOutputFile`) when writing: the check is repeated there.
 */
export function checkOutputPath(target: OutputTarget): void {
  const { path, force } = target;
  for (const input of target.inputs) {
    const names =
      input.ledger === true ? ['', '-wal', '-shm', '-journal'].map((s) => `${input.path}${s}`) : [input.path];
    if (names.some((n) => sameFile(path, n))) {
      throw new ChioError(
        'CHIO-CLI-FILE-EXISTS',
        `${path} is the ${input.what} (${input.path}) this command reads; chio never writes over its own input, even with --force`,
        {
          help: 'choose another output path; the file was left unchanged',
        },
      );
    }
  }
  const entry = tryLstat(path);
  if (entry === undefined) return;
  const followed = tryStat(path);
  if (entry.isDirectory() || followed?.isDirectory() === true) {
    throw new ChioError('CHIO-CLI-IO', `cannot write ${path}: it is a directory; name the output file itself`);
  }
  if (!force) {
    const kind = entry.isSymbolicLink() ? 'a symlink' : entry.isFile() ? 'a file' : 'a special file';
    throw new ChioError(
      'CHIO-CLI-FILE-EXISTS',
      `${path} already exists (${kind}); chio does not overwrite it without --force`,
    );
  }
  if (!entry.isFile() && !entry.isSymbolicLink()) {
    throw new ChioError(
      'CHIO-CLI-FILE-EXISTS',
      `${path} exists and is not a regular file or a symlink; chio replaces only those, even with --force`,
    );
  }
}

function writeAll(fd: number, contents: string): void {
  const bytes = Buffer.from(contents, 'utf8');
  let done = 0;
  while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
  fsyncSync(fd);
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

/** Writes `contents` to `target.path` under the rules of `checkOutputPath`. */
export function writeOutputFile(target: OutputTarget, contents: string): void {
  checkOutputPath(target);
  const { path } = target;
  if (!target.force) {
    let fd: number;
    try {
      fd = openSync(path, 'wx', 0o644);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') {
        throw new ChioError(
          'CHIO-CLI-FILE-EXISTS',
          `${path} already exists; chio does not overwrite it without --force`,
        );
      }
      throw new ChioError('CHIO-CLI-IO', `cannot create ${path}: ${(e as Error).message}`, { cause: e });
    }
    try {
      writeAll(fd, contents);
    } catch (e) {
      closeSync(fd);
      removeQuietly(path); // this run created it: leave no half-written file
      throw new ChioError('CHIO-CLI-IO', `cannot write ${path}: ${(e as Error).message}`, { cause: e });
    }
    closeSync(fd);
    return;
  }
  const tmp = join(
    dirname(resolve(path)),
    `.${basename(path)}.chio-${process.pid}-${randomBytes(6).toString('hex')}.tmp`,
  );
  let fd: number;
  try {
    fd = openSync(tmp, 'wx', 0o644);
  } catch (e) {
    throw new ChioError('CHIO-CLI-IO', `cannot write next to ${path}: ${(e as Error).message}`, { cause: e });
  }
  try {
    try {
      writeAll(fd, contents);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (e) {
    removeQuietly(tmp);
    throw new ChioError('CHIO-CLI-IO', `cannot write ${path}: ${(e as Error).message}`, { cause: e });
  }
}
