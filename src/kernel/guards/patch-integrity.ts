/**
 * patch-integrity: bounds a patch's size and refuses added lines that switch security off or
 * smuggle code execution (upstream chio-guards patch_integrity.rs): at most `max_additions` added
 * and `max_deletions` removed lines (file headers not counted), optionally a bounded
 * additions/deletions ratio, and none of the forbidden patterns in an added line.
 * Owns: the limits and patterns. Imports guard helpers only.
 */
import { z } from 'zod';
import type { Guard, GuardInput, GuardOutcome } from './types.js';

export const DEFAULT_PATCH_FORBIDDEN = [
  '(?:disable|disabling|turn off)[_ -]?(?:security|auth|ssl|tls)',
  '(?:skip|bypass)[_ -]?(?:verify|verification|validation|check)',
  String.raw`rm\s+-rf\s+/(?:\s|$)`,
  String.raw`chmod\s+(?:-R\s+)?777`,
  String.raw`\beval\s*\(`,
  String.raw`\bexec\s*\(`,
  '(?:reverse|bind)[_ -]?shell',
  String.raw`base64_decode[^\n]*(?:eval|exec|system)`,
];

export const PatchIntegrityConfigSchema = z.strictObject({
  enabled: z.boolean().default(true),
  max_additions: z.number().int().nonnegative().default(1000),
  max_deletions: z.number().int().nonnegative().default(500),
  /** additions ÷ deletions (and back) may not exceed this, when set and both are non-zero. */
  max_imbalance_ratio: z.number().positive().optional(),
  forbidden_patterns: z.array(z.string().min(1)).default(DEFAULT_PATCH_FORBIDDEN),
});
export type PatchIntegrityConfig = z.infer<typeof PatchIntegrityConfigSchema>;

export class PatchIntegrityGuard implements Guard {
  readonly name = 'patch-integrity';
  private readonly forbidden: RegExp[] | null;

  constructor(private readonly config: PatchIntegrityConfig = PatchIntegrityConfigSchema.parse({})) {
    try {
      this.forbidden = config.forbidden_patterns.map((p) => new RegExp(p, 'i'));
    } catch {
      this.forbidden = null;
    }
  }

  evaluate(input: GuardInput): GuardOutcome {
    const a = input.action;
    if (!this.config.enabled || a.kind !== 'patch') return null;
    if (this.forbidden === null)
      return { verdict: 'deny', reason: 'patch-integrity guard has an invalid pattern and denies everything' };
    const lines = a.diff.split('\n');
    const added = lines.filter((l) => l.startsWith('+') && !l.startsWith('+++'));
    const removed = lines.filter((l) => l.startsWith('-') && !l.startsWith('---'));
    if (added.length > this.config.max_additions)
      return {
        verdict: 'deny',
        reason: `patch adds ${added.length} lines, more than ${this.config.max_additions}`,
        details: String(added.length),
      };
    if (removed.length > this.config.max_deletions)
      return {
        verdict: 'deny',
        reason: `patch removes ${removed.length} lines, more than ${this.config.max_deletions}`,
        details: String(removed.length),
      };
    const ratio = this.config.max_imbalance_ratio;
    if (
      ratio !== undefined &&
      added.length > 0 &&
      removed.length > 0 &&
      Math.max(added.length / removed.length, removed.length / added.length) > ratio
    ) {
      return { verdict: 'deny', reason: `patch is unbalanced (${added.length} added, ${removed.length} removed)` };
    }
    for (const line of added) {
      const re = this.forbidden.find((r) => r.test(line));
      if (re !== undefined)
        return {
          verdict: 'deny',
          reason: `added line matches a forbidden pattern: ${re.source}`,
          details: line.slice(1, 121),
        };
    }
    return { verdict: 'allow', details: `+${added.length} -${removed.length}` };
  }
}
