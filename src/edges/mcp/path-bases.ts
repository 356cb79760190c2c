/**
 * The directories a wrapped MCP server may resolve a relative path against, read off how the
 * operator starts it: every argument of the upstream command that names an existing directory
 * (server-filesystem's allowed directories, `--root /srv`, …), and the working directory it is
 * started in (a server with no directories of its own resolves against that). The kernel judges
 * every relative path argument against each of them. A server reached over HTTP runs elsewhere:
 * it contributes none, and relative paths are judged against the MCP roots and the policy's
 * `path_base` only.
 * Owns: deriving bases from an upstream target. Imports node:fs/node:path. The target is operator input.
 */
import { realpathSync, statSync } from 'node:fs';
import { posix } from 'node:path';
import type { UpstreamTarget } from './upstream.js';

function directory(candidate: string, cwd: string): string | undefined {
  const value =
    candidate.includes('=') && candidate.startsWith('-') ? candidate.slice(candidate.indexOf('=') + 1) : candidate;
  if (value === '' || value.startsWith('-')) return undefined;
  const path = posix.resolve(cwd, value);
  try {
    return statSync(path).isDirectory() ? realpathSync.native(path) : undefined;
  } catch {
    return undefined;
  }
}

export function upstreamPathBases(target: UpstreamTarget, cwd: string = process.cwd()): string[] {
  if ('url' in target) return [];
  const workdir = target.cwd === undefined ? cwd : posix.resolve(cwd, target.cwd);
  const dirs = target.args.flatMap((a) => directory(a, workdir) ?? []);
  return [...new Set([...dirs, directory(workdir, '/') ?? workdir])];
}
