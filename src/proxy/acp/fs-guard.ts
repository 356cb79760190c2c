/**
 * FsGuard (upstream chio-acp-proxy fs_guard): may the agent read or write this path, or
 * start a terminal in it? In order: empty path, relative path, any `..` segment (refused before
 * any prefix is consulted), NUL, no prefixes configured; then the path with its symlinks resolved
 * — so a link is judged by its target — must equal a prefix or continue it after a `/` (so
 * `/home/dev/project` never matches `/home/dev/project_evil`). Prefixes are resolved the same way.
 * Inside the prefixes, a write must pass the git-directory rule (git-dir.ts), and the kernel's
 * forbidden-path patterns still apply (`.env`, `.ssh`, `.aws`…, judged in the lexical and the
 * resolved form, so `notes -> .env` is refused).
 * Owns: the path rule and its messages. Imports kernel path resolution. Paths are attacker-controlled.
 */
import { guards } from '../../kernel/index.js';
import { gitWriteRefusal } from './git-dir.js';
import { allow, FORBIDDEN_PATH_GUARD, FS_GUARD, refuse } from './verdict.js';
import type { GuardVerdict } from './verdict.js';

export type { GuardVerdict } from './verdict.js';
export type FsOperation = 'read' | 'write' | 'cwd';

/** What FsGuard needs of the kernel's ForbiddenPathGuard: its verdict on one path. */
export interface ForbiddenPaths {
  forbids(path: string, cwd?: string): { pattern: string; form: string } | undefined;
}

export class FsGuard {
  /** `forbidden`: the kernel's forbidden-path guard (from the policy); absent, only prefixes and the git rule apply. */
  constructor(
    private readonly prefixes: readonly string[],
    private readonly forbidden?: ForbiddenPaths,
  ) {}

  check(op: FsOperation, path: string): GuardVerdict {
    const deny = (message: string) => refuse(FS_GUARD, message);
    if (path === '') return deny(`access denied: fs ${op} denied: empty path`);
    if (!path.startsWith('/')) return deny(`access denied: fs ${op} denied: relative path not allowed: ${path}`);
    if (path.split('/').includes('..')) return deny(`path traversal detected: ${path}`);
    if (path.includes('\0')) return deny(`access denied: fs ${op} denied for path: ${path}`);
    if (this.prefixes.length === 0) return deny(`access denied: fs ${op} denied: no allowed path prefixes configured`);
    const target = guards.resolvedPath(path);
    const inside = this.prefixes.some((p) => {
      const prefix = guards.resolvedPath(p);
      return prefix !== '/' && (target === prefix || target.startsWith(`${prefix}/`));
    });
    if (!inside) return deny(`access denied: fs ${op} denied for path: ${path}`);
    // The proxy's own write rule first, so it names the same guard whatever the policy's list holds.
    if (op === 'write') {
      const why = gitWriteRefusal(path);
      if (why !== undefined) return deny(`access denied: fs write denied for path: ${path}: ${why}`);
    }
    const hit = this.forbidden?.forbids(path);
    if (hit !== undefined) {
      const via = hit.form === path ? '' : ` (as ${hit.form})`;
      return refuse(
        FORBIDDEN_PATH_GUARD,
        `access denied: fs ${op} denied for path: ${path}${via}: matches forbidden pattern ${hit.pattern}`,
      );
    }
    return allow();
  }
}
