/**
 * path-allowlist: off by default. When on, every path argument of a call may touch only paths
 * matching `file_access_allow` (writes: `file_write_allow`, patches: `patch_allow`, falling back
 * to `file_write_allow`), each relative path against every base. When the symlink-resolved path
 * differs from the lexical one, the resolved path is what counts: a link inside the tree cannot
 * reach outside it.
 * Owns: the allow lists. Imports guard helpers only.
 */
import { z } from 'zod';
import { firstMatch } from './glob.js';
import { NO_BASE_HELP } from './forbidden-path.js';
import { pathResolutions, resolvedPath } from './paths.js';
import type { Guard, GuardInput, GuardOutcome } from './types.js';

export const PathAllowlistConfigSchema = z.strictObject({
  enabled: z.boolean().default(false),
  file_access_allow: z.array(z.string().min(1)).default([]),
  file_write_allow: z.array(z.string().min(1)).default([]),
  patch_allow: z.array(z.string().min(1)).optional(),
});
export type PathAllowlistConfig = z.infer<typeof PathAllowlistConfigSchema>;

export class PathAllowlistGuard implements Guard {
  readonly name = 'path-allowlist';

  constructor(private readonly config: PathAllowlistConfig = PathAllowlistConfigSchema.parse({})) {}

  evaluate(input: GuardInput): GuardOutcome {
    const a = input.action;
    if (!this.config.enabled || a.paths.length === 0) return null;
    const allow =
      a.kind === 'file_write'
        ? this.config.file_write_allow
        : a.kind === 'patch'
          ? (this.config.patch_allow ?? this.config.file_write_allow)
          : this.config.file_access_allow;
    const what = a.kind === 'file_write' ? 'file write' : a.kind === 'patch' ? 'patch' : 'file access';
    for (const path of a.paths) {
      const resolutions = pathResolutions(path, input.context.pathBases);
      if (resolutions === undefined)
        return {
          verdict: 'deny',
          reason: `relative path ${path} has no known base to be judged against (${NO_BASE_HELP})`,
          details: path,
        };
      for (const lexical of resolutions) {
        const judged = resolvedPath(lexical);
        if (firstMatch(allow, judged) === undefined) {
          const via = judged === lexical ? '' : ` (resolved from ${path})`;
          return { verdict: 'deny', reason: `path ${judged}${via} is not on the ${what} allowlist`, details: judged };
        }
      }
    }
    return { verdict: 'allow' };
  }
}
