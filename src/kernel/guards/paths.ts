/**
 * The two forms of a path a guard judges (DESIGN §7 / upstream forbidden-path): the lexical form
 * (`.` and `..` folded, so `/a/../etc/shadow` is `/etc/shadow`), and the form after resolving
 * symlinks on the longest existing prefix, so a link inside an allowed tree that points outside
 * it is judged by its target. Both must pass.
 * A relative path is judged against every base the tool may resolve it against (`pathResolutions`).
 * Owns: path normalisation. Imports node:fs/node:path/node:os only. Paths are attacker-controlled.
 */
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { homedir } from 'node:os';
import { posix } from 'node:path';

/**
 * `~` expanded, a relative path resolved against `cwd`, `..` folded. Never against this process's
 * own working directory: the tool resolves relative paths against its own, so a relative path
 * without a `cwd` is a fault (and a guard that faults denies).
 */
export function lexicalPath(path: string, cwd?: string): string {
  const expanded = path === '~' ? homedir() : path.startsWith('~/') ? posix.join(homedir(), path.slice(2)) : path;
  if (!posix.isAbsolute(expanded) && cwd === undefined) throw new Error(`relative path ${path} judged without a base`);
  return posix.resolve(cwd ?? '/', expanded);
}

const MAX_LINK_HOPS = 40; // as Linux's ELOOP limit

/**
 * The directory entry at `path`, or undefined when there is none to resolve: missing, or a path
 * that cannot name one (ENOTDIR through a file, ENAMETOOLONG, ELOOP, EACCES). Such a path is
 * judged by its longest prefix that does exist, never by an exception.
 */
function entryAt(path: string): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/**
 * The lexical path with every symlink in its longest existing prefix resolved. A dangling link is
 * followed to where it points (writing through it would create its target there).
 */
export function resolvedPath(path: string, cwd?: string, hops = 0): string {
  const lexical = lexicalPath(path, cwd);
  // Find the longest prefix that exists as a directory entry (lstat, no exception on the common
  // path), then resolve it once with libc realpath(3).
  let head = lexical;
  const tail: string[] = [];
  let entry = entryAt(head);
  while (entry === undefined) {
    const parent = posix.dirname(head);
    if (parent === head) return lexical;
    tail.unshift(posix.basename(head));
    head = parent;
    entry = entryAt(head);
  }
  try {
    const real = realpathSync.native(head);
    return tail.length === 0 ? real : posix.join(real, ...tail);
  } catch {
    if (!entry.isSymbolicLink() || hops >= MAX_LINK_HOPS) return lexical;
    const target = posix.resolve(posix.dirname(head), readlinkSync(head, 'utf8'));
    return resolvedPath(tail.length === 0 ? target : posix.join(target, ...tail), undefined, hops + 1);
  }
}

/** Both forms, deduplicated: the lexical one first. */
export function pathForms(path: string, cwd?: string): string[] {
  const lexical = lexicalPath(path, cwd);
  const resolved = resolvedPath(path, cwd);
  return resolved === lexical ? [lexical] : [lexical, resolved];
}

/** Absolute, or starting at the home directory: judged the same wherever the tool runs. */
export function isAnchored(path: string): boolean {
  return posix.isAbsolute(path) || path === '~' || path.startsWith('~/');
}

/**
 * Where a path argument may point (item 1 of DESIGN §7a's path rule): an absolute or `~` path
 * once; a relative one against every base the tool may resolve it against. `undefined` for a
 * relative path when no base is known (the caller denies it: fail closed).
 */
export function pathResolutions(path: string, bases: readonly string[]): string[] | undefined {
  if (isAnchored(path)) return [lexicalPath(path)];
  if (bases.length === 0) return undefined;
  return [...new Set(bases.map((b) => lexicalPath(path, b)))];
}
