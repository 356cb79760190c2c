/**
 * The git-directory write rule: an agent must not write git's own files, because an allowed `git`
 * later runs what they name — hooks (`.git/hooks/*`), and configuration (`.git/config`:
 * core.fsmonitor, core.hooksPath, core.pager, aliases, filter and diff drivers, sshCommand…),
 * likewise `.git/modules/<m>/…` for submodules and `.git/worktrees/<w>/…`, and a `.git` file
 * (`gitdir: <elsewhere>`) that points git at a directory the agent wrote. So an fs write is refused
 * when, in its lexical or its symlink-resolved form:
 *  - any segment is `.git` (any case);
 *  - its name is `HEAD` (any case; git takes a directory with a HEAD file, objects/ and refs/ for a bare
 *    repository and reads its `config`, so without this an agent could assemble one);
 *  - an existing ancestor directory is a git directory (holds `HEAD` and `objects`), which covers
 *    bare repositories and `--separate-git-dir` ones whatever their names.
 * Sources: gitrepository-layout(5), githooks(5), git-config(1), setup.c is_git_directory().
 * Owns: the rule. Imports kernel path resolution. Paths are attacker-controlled.
 */
import { lstatSync } from 'node:fs';
import { posix } from 'node:path';
import { guards } from '../../kernel/index.js';

function exists(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

/** A directory git would take for a repository directory (setup.c is_git_directory, loosened: HEAD and objects). */
export function isGitDirectory(dir: string): boolean {
  return exists(posix.join(dir, 'HEAD')) && exists(posix.join(dir, 'objects'));
}

/** Why writing `path` (absolute, no `..`) is refused, or undefined. */
export function gitWriteRefusal(path: string): string | undefined {
  const forms = [...new Set([posix.normalize(path), guards.resolvedPath(path)])];
  for (const form of forms) {
    // Lower-cased: a case-insensitive file system (macOS, Windows) opens `.GIT/config` as `.git/config`.
    const segments = form.toLowerCase().split('/').filter(Boolean);
    if (segments.includes('.git'))
      return 'inside a .git directory or a .git file: git runs the hooks and configuration there';
    if (segments.at(-1) === 'head')
      return 'a HEAD file makes its directory a git repository whose configuration git would run';
    for (let dir = posix.dirname(form); ; dir = posix.dirname(dir)) {
      if (isGitDirectory(dir)) return `inside the git directory ${dir}: git runs the hooks and configuration there`;
      if (dir === '/') break;
    }
  }
  return undefined;
}
