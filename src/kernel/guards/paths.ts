/**
 * The two forms of a path a guard judges (DESIGN §7 / upstream forbidden-path): the lexical form
 * (`.` and `..` folded, so `/a/../etc/shadow` is `/etc/shadow`), and the form after resolving
 * symlinks on the longest existing prefix, so a link inside an allowed tree that points outside
 * it is judged by its target. Both must pass.
 * Owns: path normalisation. Imports node:fs/node:path/node:os only. Paths are attacker-controlled.
 */
import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { posix } from 'node:path';

/** `~` expanded, relative paths resolved against `cwd` (default the process's), `..` folded. */
export function lexicalPath(path: string, cwd: string = process.cwd()): string {
  const expanded = path === '~' ? homedir() : path.startsWith('~/') ? posix.join(homedir(), path.slice(2)) : path;
  return posix.resolve(cwd, expanded);
}

/** The lexical path with every symlink in its longest existing prefix resolved. */
export function resolvedPath(path: string, cwd?: string): string {
  const lexical = lexicalPath(path, cwd);
  let head = lexical;
  const tail: string[] = [];
  for (;;) {
    try {
      const real = realpathSync(head);
      return tail.length === 0 ? real : posix.join(real, ...tail.reverse());
    } catch {
      const parent = posix.dirname(head);
      if (parent === head) return lexical;
      tail.push(posix.basename(head));
      head = parent;
    }
  }
}

/** Both forms, deduplicated: the lexical one first. */
export function pathForms(path: string, cwd?: string): string[] {
  const lexical = lexicalPath(path, cwd);
  const resolved = resolvedPath(path, cwd);
  return resolved === lexical ? [lexical] : [lexical, resolved];
}
