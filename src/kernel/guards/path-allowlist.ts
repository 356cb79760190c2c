/**
 * path-allowlist: off by default. When on, file reads may touch only paths matching
 * `file_access_allow`, writes only `file_write_allow`, patches only `patch_allow` (falling back to
 * `file_write_allow`). When the symlink-resolved path differs from the lexical one, the resolved
 * path is what counts: a link inside the tree cannot reach outside it.
 * Owns: the allow lists. Imports guard helpers only.
 */
import { z } from 'zod';
import { firstMatch } from './glob.js';
import { lexicalPath, resolvedPath } from './paths.js';
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
    if (!this.config.enabled || (a.kind !== 'file_access' && a.kind !== 'file_write' && a.kind !== 'patch')) return null;
    const allow =
      a.kind === 'file_access' ? this.config.file_access_allow
      : a.kind === 'file_write' ? this.config.file_write_allow
      : this.config.patch_allow ?? this.config.file_write_allow;
    for (const path of a.paths) {
      const judged = resolvedPath(path);
      if (firstMatch(allow, judged) === undefined) {
        const via = judged === lexicalPath(path) ? '' : ` (resolved from ${path})`;
        return { verdict: 'deny', reason: `path ${judged}${via} is not on the ${a.kind.replace('_', ' ')} allowlist`, details: judged };
      }
    }
    return { verdict: 'allow' };
  }
}
