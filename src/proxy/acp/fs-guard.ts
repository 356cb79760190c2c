/**
 * FsGuard (issue 7, upstream chio-acp-proxy fs_guard): may the agent read or write this path, or
 * start a terminal in it? In order: empty path, relative path, any `..` segment (refused before
 * any prefix is consulted), no prefixes configured; then the path with its symlinks resolved —
 * so a link is judged by its target — must equal a prefix or continue it after a `/` (so
 * `/home/dev/project` never matches `/home/dev/project_evil`). Prefixes are resolved the same way.
 * Owns: the path rule and its messages. Imports kernel path resolution. Paths are attacker-controlled.
 */
import { guards } from '../../kernel/index.js';

export type FsOperation = 'read' | 'write' | 'cwd';
export type GuardVerdict = { ok: true } | { ok: false; message: string };

export class FsGuard {
  constructor(private readonly prefixes: readonly string[]) {}

  check(op: FsOperation, path: string): GuardVerdict {
    if (path === '') return { ok: false, message: `access denied: fs ${op} denied: empty path` };
    if (!path.startsWith('/')) return { ok: false, message: `access denied: fs ${op} denied: relative path not allowed: ${path}` };
    if (path.split('/').includes('..')) return { ok: false, message: `path traversal detected: ${path}` };
    if (path.includes('\0')) return { ok: false, message: `access denied: fs ${op} denied for path: ${path}` };
    if (this.prefixes.length === 0) return { ok: false, message: `access denied: fs ${op} denied: no allowed path prefixes configured` };
    const target = guards.resolvedPath(path);
    const allowed = this.prefixes.some((p) => {
      const prefix = guards.resolvedPath(p);
      return prefix !== '/' && (target === prefix || target.startsWith(`${prefix}/`));
    });
    return allowed ? { ok: true } : { ok: false, message: `access denied: fs ${op} denied for path: ${path}` };
  }
}
