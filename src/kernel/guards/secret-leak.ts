/**
 * secret-leak: denies writing content (or adding patch lines) that carries a credential (the rules
 * are in secrets.ts: known key formats, and secret-named literals that are not placeholders,
 * references or calls). Paths that look like tests are skipped (fixtures hold fake keys). The
 * match is reported masked, first 4 + *** + last 4, never in full. Operator formats may be added
 * (`patterns`, name → regex); one that does not compile makes the guard deny everything.
 * Owns: the guard and its config. Imports guard helpers only.
 */
import { z } from 'zod';
import { firstMatch } from './glob.js';
import { DEFAULT_SECRET_FORMATS, findSecret } from './secrets.js';
import type { Guard, GuardInput, GuardOutcome } from './types.js';

export { DEFAULT_SECRET_FORMATS as DEFAULT_SECRET_PATTERNS } from './secrets.js';
export const DEFAULT_TEST_PATHS = ['**/test/**', '**/tests/**', '**/__tests__/**', '*_test.*', '*.test.*', '*.spec.*'];

export const SecretLeakConfigSchema = z.strictObject({
  enabled: z.boolean().default(true),
  patterns: z.record(z.string(), z.string().min(1)).default(DEFAULT_SECRET_FORMATS),
  /** Also find literals assigned to secret-named keys (`password = "…"`, `API_KEY=…`). */
  detect_assignments: z.boolean().default(true),
  skip_paths: z.array(z.string().min(1)).default(DEFAULT_TEST_PATHS),
});
export type SecretLeakConfig = z.infer<typeof SecretLeakConfigSchema>;

export function mask(secret: string): string {
  return secret.length <= 8 ? '***' : `${secret.slice(0, 4)}***${secret.slice(-4)}`;
}

/** A leading `(?i)` (the RE2/Rust spelling upstream's lists use) makes the pattern case-insensitive. */
function compile(source: string): RegExp {
  return source.startsWith('(?i)') ? new RegExp(source.slice(4), 'i') : new RegExp(source);
}

export class SecretLeakGuard implements Guard {
  readonly name = 'secret-leak';
  private readonly formats: Array<[string, RegExp]> | null;

  constructor(private readonly config: SecretLeakConfig = SecretLeakConfigSchema.parse({})) {
    try {
      this.formats = Object.entries(config.patterns).map(([name, source]) => [name, compile(source)]);
    } catch {
      this.formats = null;
    }
  }

  evaluate(input: GuardInput): GuardOutcome {
    const a = input.action;
    if (!this.config.enabled || (a.kind !== 'file_write' && a.kind !== 'patch')) return null;
    if (this.formats === null)
      return { verdict: 'deny', reason: 'secret-leak guard has an invalid pattern and denies everything' };
    if (a.paths.length > 0 && a.paths.every((p) => firstMatch(this.config.skip_paths, p) !== undefined))
      return { verdict: 'allow', details: 'test path skipped' };
    const text =
      a.kind === 'file_write'
        ? a.content
        : a.diff
            .split('\n')
            .filter((l) => l.startsWith('+') && !l.startsWith('+++'))
            .map((l) => l.slice(1))
            .join('\n');
    const hit = findSecret(text, this.formats, a.paths[0], this.config.detect_assignments);
    if (hit !== undefined)
      return {
        verdict: 'deny',
        reason: `content contains a secret (${hit.kind}): ${mask(hit.text)}`,
        details: hit.kind,
      };
    return { verdict: 'allow' };
  }
}
