/**
 * egress-allowlist: a URL or host argument (under a key such as `url` or `host`, or any argument
 * of a fetching tool) may name only hosts on the allowlist (globs, `*` for any run of
 * characters); the blocklist wins over it; an unlisted host is denied. URLs merely mentioned —
 * inside a shell command, or a value that happens to be a URL — are left to internal-network:
 * `git clone https://github.com/…` is not a request this list was written for. Defaults after
 * upstream (chio-guards egress_allowlist.rs).
 * Owns: the host lists. Imports guard helpers only. Hosts are attacker-controlled.
 */
import { z } from 'zod';
import type { Guard, GuardInput, GuardOutcome } from './types.js';

export const DEFAULT_EGRESS_ALLOW = [
  '*.openai.com',
  '*.anthropic.com',
  'api.github.com',
  '*.npmjs.org',
  'registry.npmjs.org',
  'pypi.org',
  'files.pythonhosted.org',
  'crates.io',
  'static.crates.io',
];

export const EgressAllowlistConfigSchema = z.strictObject({
  enabled: z.boolean().default(true),
  allow: z.array(z.string().min(1)).default(DEFAULT_EGRESS_ALLOW),
  block: z.array(z.string().min(1)).default([]),
});
export type EgressAllowlistConfig = z.infer<typeof EgressAllowlistConfigSchema>;

function hostGlob(pattern: string): RegExp {
  const body = pattern
    .toLowerCase()
    .split('*')
    .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^/]*');
  return new RegExp(`^${body}$`);
}

export class EgressAllowlistGuard implements Guard {
  readonly name = 'egress-allowlist';
  private readonly allow: Array<[string, RegExp]>;
  private readonly block: Array<[string, RegExp]>;

  constructor(private readonly config: EgressAllowlistConfig = EgressAllowlistConfigSchema.parse({})) {
    this.allow = config.allow.map((p) => [p, hostGlob(p)]);
    this.block = config.block.map((p) => [p, hostGlob(p)]);
  }

  evaluate(input: GuardInput): GuardOutcome {
    const a = input.action;
    const targets = a.targets.filter((t) => t.source === 'argument');
    if (!this.config.enabled || targets.length === 0) return null;
    for (const t of targets) {
      const blocked = this.block.find(([, re]) => re.test(t.host));
      if (blocked !== undefined)
        return {
          verdict: 'deny',
          reason: `host ${t.host} is on the egress blocklist (${blocked[0]})`,
          details: blocked[0],
        };
      if (!this.allow.some(([, re]) => re.test(t.host)))
        return { verdict: 'deny', reason: `host ${t.host} is not on the egress allowlist`, details: t.host };
    }
    return { verdict: 'allow' };
  }
}
