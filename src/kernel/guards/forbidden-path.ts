/**
 * forbidden-path: denies reading, writing or patching a path that matches a forbidden glob
 * (credentials, keys, system secrets), judged in its lexical and its symlink-resolved form.
 * Exceptions are checked first. Defaults after upstream's list (chio-guards forbidden_path.rs).
 * Owns: the list and its defaults. Imports guard helpers only.
 */
import { z } from 'zod';
import { firstMatch } from './glob.js';
import { pathForms } from './paths.js';
import type { Guard, GuardInput, GuardOutcome } from './types.js';

export const DEFAULT_FORBIDDEN_PATHS = [
  '**/.ssh', '**/.ssh/**', 'id_rsa*', 'id_dsa*', 'id_ecdsa*', 'id_ed25519*',
  '**/.aws', '**/.aws/**', '**/.env', '**/.env.*', '**/.git-credentials', '**/.gitconfig',
  '**/.gnupg', '**/.gnupg/**', '**/.kube', '**/.kube/**', '**/.docker/config.json', '**/.npmrc', '**/.netrc', '**/.pypirc',
  '**/.password-store/**', '**/pass/**', '**/.1password/**',
  '/etc/shadow', '/etc/gshadow', '/etc/passwd', '/etc/sudoers', '/etc/sudoers.d/**',
  '**/AppData/Roaming/Microsoft/Credentials/**', '**/AppData/Local/Microsoft/Credentials/**',
  '**/Windows/System32/config/SAM', '**/Windows/System32/config/SYSTEM', '**/Windows/System32/config/SECURITY',
];
export const DEFAULT_FORBIDDEN_PATH_EXCEPTIONS = ['**/.env.example', '**/.env.sample', '**/.env.template'];

export const ForbiddenPathConfigSchema = z.strictObject({
  enabled: z.boolean().default(true),
  patterns: z.array(z.string().min(1)).default(DEFAULT_FORBIDDEN_PATHS),
  /** Added to the defaults rather than replacing them. */
  additional_patterns: z.array(z.string().min(1)).default([]),
  exceptions: z.array(z.string().min(1)).default(DEFAULT_FORBIDDEN_PATH_EXCEPTIONS),
});
export type ForbiddenPathConfig = z.infer<typeof ForbiddenPathConfigSchema>;

export class ForbiddenPathGuard implements Guard {
  readonly name = 'forbidden-path';
  private readonly patterns: string[];

  constructor(private readonly config: ForbiddenPathConfig = ForbiddenPathConfigSchema.parse({})) {
    this.patterns = [...config.patterns, ...config.additional_patterns];
  }

  /** The pattern `path` (in either form) is forbidden by, or undefined. Shared with shell-command. */
  forbids(path: string, cwd?: string): { pattern: string; form: string } | undefined {
    for (const form of pathForms(path, cwd)) {
      if (firstMatch(this.config.exceptions, form) !== undefined) continue;
      const pattern = firstMatch(this.patterns, form);
      if (pattern !== undefined) return { pattern, form };
    }
    return undefined;
  }

  evaluate(input: GuardInput): GuardOutcome {
    const a = input.action;
    if (!this.config.enabled || (a.kind !== 'file_access' && a.kind !== 'file_write' && a.kind !== 'patch')) return null;
    for (const path of a.paths) {
      const hit = this.forbids(path);
      if (hit !== undefined) {
        return { verdict: 'deny', reason: `path matches a forbidden pattern: ${hit.pattern}`, details: hit.pattern };
      }
    }
    return { verdict: 'allow' };
  }
}
