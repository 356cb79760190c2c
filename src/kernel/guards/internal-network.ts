/**
 * internal-network: no call may reach this machine, a private network, a link-local or cloud
 * metadata address, a cluster-internal name, or a DNS name that resolves to one by design — for
 * every URL or host in the arguments and every one a command would connect to (addresses.ts says
 * which hosts are internal). IPv4 in decimal, hex, octal or short form is normalised by the
 * WHATWG URL parser before it gets here (`http://2130706433/` is 127.0.0.1). Hosts an operator
 * must reach on purpose (a local dev server) are listed in `allow`.
 * Owns: the guard and its config. Imports guard helpers. Hosts are attacker-controlled.
 */
import { z } from 'zod';
import { internalReason } from './addresses.js';
import type { Guard, GuardInput, GuardOutcome } from './types.js';

export { internalReason } from './addresses.js';

export const InternalNetworkConfigSchema = z.strictObject({
  enabled: z.boolean().default(true),
  /** Extra host names or suffixes (".corp.example") to treat as internal. */
  additional_hosts: z.array(z.string().min(1)).default([]),
  /** Hosts (exact names or addresses, as the URL parser writes them: `localhost`, `[::1]`) the agent may reach anyway. */
  allow: z.array(z.string().min(1)).default([]),
});
export type InternalNetworkConfig = z.infer<typeof InternalNetworkConfigSchema>;

export class InternalNetworkGuard implements Guard {
  readonly name = 'internal-network';
  private readonly allowed: ReadonlySet<string>;

  constructor(private readonly config: InternalNetworkConfig = InternalNetworkConfigSchema.parse({})) {
    this.allowed = new Set(config.allow.map((h) => h.toLowerCase()));
  }

  evaluate(input: GuardInput): GuardOutcome {
    const a = input.action;
    if (!this.config.enabled || a.targets.length === 0) return null;
    for (const t of a.targets) {
      if (this.allowed.has(t.host)) continue;
      const reason = internalReason(t.host, this.config.additional_hosts);
      if (reason !== null) return { verdict: 'deny', reason, details: t.host };
    }
    return { verdict: 'allow' };
  }
}
