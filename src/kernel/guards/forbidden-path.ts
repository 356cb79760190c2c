/**
 * forbidden-path: denies reading, writing or patching a path that names a credential or secret
 * file (SSH and GPG keys, cloud and registry credentials, `.env` files, system password files,
 * process environments), judged in its lexical and its symlink-resolved form, for every base a
 * relative path may be resolved against. A relative path argument with no known base is denied.
 * Exceptions are checked first. Patterns name credential files, not common words: a folder called
 * `pass` or `keys` is ordinary work. Matching ignores case (a case-insensitive file system opens
 * `.ENV` as `.env`).
 * Owns: the list and its defaults, and judging one path. Imports guard helpers only.
 */
import { z } from 'zod';
import { firstMatch } from './glob.js';
import { isAnchored, lexicalPath, pathForms, pathResolutions } from './paths.js';
import type { Guard, GuardInput, GuardOutcome } from './types.js';

export const DEFAULT_FORBIDDEN_PATHS = [
  // SSH, GPG and other private keys
  '**/.ssh',
  '**/.ssh/**',
  'id_rsa*',
  'id_dsa*',
  'id_ecdsa*',
  'id_ed25519*',
  '**/.gnupg',
  '**/.gnupg/**',
  '/etc/ssh/ssh_host_*_key',
  // cloud, cluster and registry credentials
  '**/.aws',
  '**/.aws/**',
  '**/.azure/**',
  '**/.config/gcloud/**',
  '**/.kube',
  '**/.kube/**',
  '**/.docker/config.json',
  '**/.npmrc',
  '**/.yarnrc.yml',
  '**/.pypirc',
  '**/.netrc',
  '**/.git-credentials',
  '**/.gitconfig',
  '**/.config/gh/hosts.yml',
  '**/.terraform.d/credentials.tfrc.json',
  '**/.vault-token',
  '**/.pgpass',
  '**/.my.cnf',
  // environment files, and git configuration and hooks (remote URLs carry tokens; hooks and config run code)
  '**/.env',
  '**/.env.*',
  '**/.git/config',
  '**/.git/hooks/**',
  // password stores
  '**/.password-store/**',
  '**/.1password/**',
  // system secrets and other processes' environments
  '/etc/shadow*',
  '/etc/gshadow*',
  '/etc/passwd*',
  '/etc/sudoers',
  '/etc/sudoers.d/**',
  '/proc/**/environ',
  '/proc/**/mem',
  '/run/secrets/**',
  '/var/run/secrets/**',
  // Windows credential stores and hives
  '**/AppData/Roaming/Microsoft/Credentials/**',
  '**/AppData/Local/Microsoft/Credentials/**',
  '**/Windows/System32/config/SAM',
  '**/Windows/System32/config/SYSTEM',
  '**/Windows/System32/config/SECURITY',
];
/** Templates that hold no secrets, and public keys (`*.pub`: the half of a key pair meant to be shared). */
export const DEFAULT_FORBIDDEN_PATH_EXCEPTIONS = [
  '**/.env*.example',
  '**/.env*.sample',
  '**/.env*.template',
  '**/.env*.dist',
  '**/.env*.defaults',
  '**/*.pub',
];

export const ForbiddenPathConfigSchema = z.strictObject({
  enabled: z.boolean().default(true),
  patterns: z.array(z.string().min(1)).default(DEFAULT_FORBIDDEN_PATHS),
  /** Added to the defaults rather than replacing them. */
  additional_patterns: z.array(z.string().min(1)).default([]),
  exceptions: z.array(z.string().min(1)).default(DEFAULT_FORBIDDEN_PATH_EXCEPTIONS),
});
export type ForbiddenPathConfig = z.infer<typeof ForbiddenPathConfigSchema>;

export type PathVerdict = { ok: true } | { ok: false; reason: string; details: string };

const NOCASE = { nocase: true };

/** Words that explain where relative paths go, for the denial of one that has nowhere to go. */
export const NO_BASE_HELP = 'declare MCP roots, pass the upstream its directories, or set path_base in the policy';

export class ForbiddenPathGuard implements Guard {
  readonly name = 'forbidden-path';
  readonly patterns: readonly string[];

  constructor(private readonly config: ForbiddenPathConfig = ForbiddenPathConfigSchema.parse({})) {
    this.patterns = [...config.patterns, ...config.additional_patterns];
  }

  get enabled(): boolean {
    return this.config.enabled;
  }

  /** The pattern a path text matches, exceptions first; the text is matched as it is. */
  matches(text: string): string | undefined {
    if (firstMatch(this.config.exceptions, text, NOCASE) !== undefined) return undefined;
    return firstMatch(this.patterns, text, NOCASE);
  }

  /** The pattern an absolute path (or one under `cwd`) is forbidden by, in either form, or undefined. */
  forbids(path: string, cwd?: string): { pattern: string; form: string } | undefined {
    for (const form of pathForms(path, cwd)) {
      const pattern = this.matches(form);
      if (pattern !== undefined) return { pattern, form };
    }
    return undefined;
  }

  /**
   * One path argument: every resolution (one per base) in both forms must pass. `strictRelative`:
   * a relative path with no base is denied (path arguments); otherwise it is matched as written
   * (words of a shell command, which may not be paths at all).
   */
  judge(path: string, bases: readonly string[], strictRelative = true): PathVerdict {
    if (path.includes('\0')) return { ok: false, reason: 'path contains a NUL character', details: 'nul' };
    const resolutions = pathResolutions(path, bases);
    if (resolutions === undefined) {
      if (strictRelative)
        return {
          ok: false,
          reason: `relative path ${path} has no known base to be judged against (${NO_BASE_HELP})`,
          details: 'relative path without a base',
        };
      // Where it lands is unknown: judge it as written and as if it started at the root
      // (`../../etc/shadow` from anywhere deep enough is /etc/shadow).
      const rooted = lexicalPath(path, '/');
      const pattern = this.matches(path) ?? this.matches(rooted) ?? this.matches(rooted.slice(1));
      return pattern === undefined
        ? { ok: true }
        : { ok: false, reason: `path matches a forbidden pattern: ${pattern}`, details: pattern };
    }
    for (const r of resolutions) {
      const hit = this.forbids(r);
      if (hit !== undefined) {
        const via = hit.form === r && (isAnchored(path) || r.endsWith(path)) ? '' : ` (${hit.form})`;
        return { ok: false, reason: `path matches a forbidden pattern: ${hit.pattern}${via}`, details: hit.pattern };
      }
    }
    return { ok: true };
  }

  evaluate(input: GuardInput): GuardOutcome {
    const a = input.action;
    if (!this.config.enabled || a.paths.length + a.softPaths.length === 0) return null;
    for (const path of a.paths) {
      const v = this.judge(path, input.context.pathBases);
      if (!v.ok) return { verdict: 'deny', reason: v.reason, details: v.details };
    }
    for (const path of a.softPaths) {
      const v = this.judge(path, input.context.pathBases, false);
      if (!v.ok) return { verdict: 'deny', reason: v.reason, details: v.details };
    }
    return { verdict: 'allow' };
  }
}
