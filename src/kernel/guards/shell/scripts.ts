/**
 * Shell scripts a command runs from a file — `bash x.sh`, `sh -e x.sh`, `source x.sh`, `. x.sh`,
 * `sh < x.sh`, and `./x.sh` when its first line names a shell (or names nothing, which a shell
 * runs as a script) — are read and judged like the command itself: writing a script and then
 * running it is not a way around the rules. A script that does not exist when the command is
 * judged (created by the same command, or not at all) is refused, as is one too large to judge or
 * named at run time. Scripts for other interpreters (python, node, …) are not read: running a file
 * with them is allowed, and docs/kernel.md says what that allows.
 * Owns: finding and reading such scripts. Imports node:fs/node:path and the program tables.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { posix } from 'node:path';
import type { Places } from './destructive.js';
import type { SimpleCommand } from './parser.js';
import { INTERPRETERS, interpreterName } from './programs.js';
import type { Field } from './words.js';

export const MAX_SCRIPT_BYTES = 64 * 1024;
const SHELL_SHEBANG =
  /^#!\s*(?:\S*\/)?(?:env\s+(?:-\S+\s+)*)?(?:(?:busybox|toybox)\s+)?(?:sh|bash|dash|zsh|ksh|mksh|ash|yash|posh)\b/;

export type ScriptVerdict = { ok: true; texts: string[] } | { ok: false; reason: string };

function firstPositional(argv: Field[], valueOptions: readonly string[]): Field | undefined {
  for (let i = 1; i < argv.length; i++) {
    const v = argv[i]!.value;
    if (v === undefined) return argv[i];
    if (v === '--') return argv[i + 1];
    if (v.startsWith('-') || v.startsWith('+')) {
      if (valueOptions.includes(v)) i++;
      continue;
    }
    return argv[i];
  }
  return undefined;
}

function readHead(path: string, bytes: number): Buffer | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const buf = Buffer.alloc(bytes);
    return buf.subarray(0, readSync(fd, buf, 0, bytes, 0));
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function resolutions(path: string, places: Places): string[] {
  if (path === '~' || path.startsWith('~/')) return [posix.join(places.home, path.slice(1))];
  if (posix.isAbsolute(path)) return [posix.normalize(path)];
  return places.bases.map((b) => posix.resolve(b, path));
}

const isFile = (p: string) => {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
};

/** The script field a command runs with a shell, if it runs one. */
export function shellScriptOf(argv: Field[], cmd: SimpleCommand, places: Places): Field | undefined {
  const program = argv[0]?.value;
  if (program === undefined) return undefined;
  const name = posix.basename(program).toLowerCase();
  if (name === 'source' || name === '.') return argv[1];
  const interpreter = interpreterName(program);
  if (interpreter !== undefined && INTERPRETERS[interpreter]!.shell === true) {
    const script = firstPositional(argv, INTERPRETERS[interpreter]!.valueOptions ?? []);
    if (script !== undefined) return script;
    if (cmd.stdin === 'file') return cmd.redirects.find((r) => r.op === '<' || r.op === '<>')?.target[0];
    return undefined;
  }
  // ./x.sh, /tmp/x.sh: a file run directly is a shell script if its first line says so, or says nothing.
  if (!program.includes('/') || interpreter !== undefined) return undefined;
  const file = resolutions(program, places).find(isFile);
  if (file === undefined) return undefined;
  const bytes = readHead(file, 256) ?? Buffer.alloc(0);
  // A binary (an ELF, or anything with NUL bytes) is executed, not read by a shell.
  if (bytes.includes(0) || bytes.subarray(0, 4).toString('latin1') === '\x7fELF') return undefined;
  const head = bytes.toString('utf8');
  return !head.startsWith('#!') || SHELL_SHEBANG.test(head) ? argv[0] : undefined;
}

/** The text of each file the script field may name (one per base for a relative path). */
export function readShellScript(f: Field, places: Places): ScriptVerdict {
  if (f.value === undefined || f.glob)
    return {
      ok: false,
      reason: `runs a shell script named at run time (${f.procSubst ? '<(…)' : (f.unknown ?? f.pattern)})`,
    };
  const found = resolutions(f.value, places).filter(isFile);
  if (found.length === 0)
    return { ok: false, reason: `runs the shell script ${f.value}, which does not exist when the command is judged` };
  const texts: string[] = [];
  for (const path of found) {
    if (statSync(path).size > MAX_SCRIPT_BYTES)
      return { ok: false, reason: `runs the shell script ${f.value}, larger than ${MAX_SCRIPT_BYTES} bytes to judge` };
    texts.push(readHead(path, MAX_SCRIPT_BYTES)?.toString('utf8') ?? '');
  }
  return { ok: true, texts };
}
