/**
 * A repository an agent can have planted: git finds its repository by walking up from its working
 * directory, taking a `.git` there or, failing that, the directory itself when it holds `HEAD`,
 * `objects/` and `refs/` (a bare repository, gitrepository-layout(5)). A bare repository is just
 * files, so an agent with a file tool can write one — `config` with `core.fsmonitor`,
 * `core.pager` or an alias included — and an allowed `git log` there runs it. forbidden-path keeps
 * `.git/config` and `.git/hooks` out of reach; this keeps git out of bare repositories that are
 * not a `.git` directory.
 * Owns: the discovery walk. Imports node:fs/node:path.
 */
import { existsSync, statSync } from 'node:fs';
import { posix } from 'node:path';

const isDir = (p: string) => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

/** The bare repository (not named `.git`) git would use when started in one of `dirs`, if any. */
export function plantedRepository(dirs: readonly string[]): string | undefined {
  for (const start of dirs) {
    for (let d = posix.normalize(start); ; d = posix.dirname(d)) {
      if (existsSync(posix.join(d, '.git'))) break;
      if (
        posix.basename(d) !== '.git' &&
        existsSync(posix.join(d, 'HEAD')) &&
        isDir(posix.join(d, 'objects')) &&
        isDir(posix.join(d, 'refs'))
      )
        return d;
      if (posix.dirname(d) === d) break;
    }
  }
  return undefined;
}
