/**
 * secret-leak: denies writing content (or adding patch lines) that carries a credential: cloud
 * and API keys, tokens, private keys, generic `api_key=` / `password=` assignments (upstream
 * chio-guards secret_leak.rs). Paths that look like tests are skipped (fixtures hold fake keys).
 * The match is reported masked, first 4 + *** + last 4, never in full.
 * Owns: the secret patterns. Imports guard helpers only.
 */
import { z } from 'zod';
import { firstMatch } from './glob.js';
import type { Guard, GuardInput, GuardOutcome } from './types.js';

export const DEFAULT_SECRET_PATTERNS: Record<string, string> = {
  'aws-access-key': String.raw`\b(AKIA|ASIA)[0-9A-Z]{16}\b`,
  'github-token': String.raw`\bgh[pousr]_[A-Za-z0-9]{36,}\b`,
  'github-fine-grained-token': String.raw`\bgithub_pat_[A-Za-z0-9_]{22,}\b`,
  'anthropic-key': String.raw`\bsk-ant-(api03-)?[A-Za-z0-9_-]{20,}`,
  'openai-key': String.raw`\bsk-(proj-)?[A-Za-z0-9_-]{20,}`,
  'private-key': String.raw`-----BEGIN ((RSA|EC|DSA|OPENSSH|ENCRYPTED|PGP) )?PRIVATE KEY( BLOCK)?-----`,
  'npm-token': String.raw`\bnpm_[A-Za-z0-9]{36}\b`,
  'slack-token': String.raw`\bxox[abposr]-[A-Za-z0-9-]{10,}`,
  'stripe-key': String.raw`\b(sk|rk)_live_[A-Za-z0-9]{20,}`,
  'gcp-service-account': String.raw`"type"\s*:\s*"service_account"`,
  'azure-key-vault-secret': String.raw`\bhttps://[a-z0-9-]+\.vault\.azure\.net/secrets/`,
  'gitlab-token': String.raw`\bglpat-[A-Za-z0-9_-]{20,}`,
  'generic-api-key': String.raw`(?i)api[_-]?key\s*[:=]\s*['"]?[A-Za-z0-9_\-]{16,}`,
  'generic-secret': String.raw`(?i)(secret|password|passwd)\s*[:=]\s*['"]?[^\s'"]{8,}`,
};
export const DEFAULT_TEST_PATHS = ['**/test/**', '**/tests/**', '**/__tests__/**', '*_test.*', '*.test.*', '*.spec.*'];

export const SecretLeakConfigSchema = z.strictObject({
  enabled: z.boolean().default(true),
  patterns: z.record(z.string(), z.string().min(1)).default(DEFAULT_SECRET_PATTERNS),
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
  private readonly patterns: Array<[string, RegExp]> | null;

  constructor(private readonly config: SecretLeakConfig = SecretLeakConfigSchema.parse({})) {
    try {
      this.patterns = Object.entries(config.patterns).map(([name, source]) => [name, compile(source)]);
    } catch {
      this.patterns = null;
    }
  }

  evaluate(input: GuardInput): GuardOutcome {
    const a = input.action;
    if (!this.config.enabled || (a.kind !== 'file_write' && a.kind !== 'patch')) return null;
    if (this.patterns === null) return { verdict: 'deny', reason: 'secret-leak guard has an invalid pattern and denies everything' };
    if (a.paths.length > 0 && a.paths.every((p) => firstMatch(this.config.skip_paths, p) !== undefined)) return { verdict: 'allow', details: 'test path skipped' };
    const text = a.kind === 'file_write' ? a.content : a.diff.split('\n').filter((l) => l.startsWith('+') && !l.startsWith('+++')).join('\n');
    for (const [name, re] of this.patterns) {
      const m = re.exec(text);
      if (m !== null) return { verdict: 'deny', reason: `content contains a secret (${name}): ${mask(m[0])}`, details: name };
    }
    return { verdict: 'allow' };
  }
}
