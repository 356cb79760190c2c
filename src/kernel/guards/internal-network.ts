/**
 * internal-network: network calls may not reach this machine, private networks, link-local and
 * cloud metadata addresses, cluster-internal names, or DNS names that resolve to any of those by
 * design (nip.io-style rebinding services). IPv4 in decimal, hex, octal or short form is
 * normalised by the WHATWG URL parser before it gets here (`http://2130706433/` is 127.0.0.1),
 * and IPv4-mapped IPv6 is unwrapped. Names are judged as written: resolving them is the
 * transport's job, and a guard that resolved DNS would race the connection it guards.
 * Owns: the address ranges and names. Imports node:net and guard helpers.
 */
import { BlockList, isIP } from 'node:net';
import { z } from 'zod';
import type { Guard, GuardInput, GuardOutcome } from './types.js';

export const InternalNetworkConfigSchema = z.strictObject({
  enabled: z.boolean().default(true),
  /** Extra host names or suffixes (".corp.example") to treat as internal. */
  additional_hosts: z.array(z.string().min(1)).default([]),
});
export type InternalNetworkConfig = z.infer<typeof InternalNetworkConfigSchema>;

const ranges = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) ranges.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b::', 96]] as const) ranges.addSubnet(net, prefix, 'ipv6');

const INTERNAL_NAMES = ['localhost', 'metadata.google.internal', 'metadata', 'instance-data', 'kubernetes', 'kubernetes.default'];
const INTERNAL_SUFFIXES = ['.localhost', '.local', '.internal', '.intranet', '.lan', '.home.arpa', '.svc', '.cluster.local', '.svc.cluster.local', '.kubernetes.default'];
const REBINDING_SUFFIXES = ['nip.io', 'sslip.io', 'xip.io', 'localtest.me', 'lvh.me', 'vcap.me', 'traefik.me', 'localhost.run'];

/** The address inside an IPv4-mapped IPv6 literal (::ffff:a.b.c.d or ::ffff:7f00:1), or the input. */
function unmap(ip: string): string {
  const m = /^::ffff:(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(ip);
  if (m === null) return ip;
  if (m[1] !== undefined) return m[1];
  const hi = parseInt(m[2]!, 16);
  const lo = parseInt(m[3]!, 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

export function internalReason(host: string, extra: readonly string[] = []): string | null {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  const ip = unmap(h);
  const family = isIP(ip);
  if (family !== 0) return ranges.check(ip, family === 4 ? 'ipv4' : 'ipv6') ? `${host} is a loopback, private, link-local or reserved address` : null;
  if (INTERNAL_NAMES.includes(h) || INTERNAL_SUFFIXES.some((s) => h.endsWith(s))) return `${host} is an internal host name`;
  if (REBINDING_SUFFIXES.some((s) => h === s || h.endsWith(`.${s}`))) return `${host} uses a DNS rebinding service`;
  if (extra.some((e) => (e.startsWith('.') ? h.endsWith(e) : h === e.toLowerCase()))) return `${host} is configured as internal`;
  return null;
}

export class InternalNetworkGuard implements Guard {
  readonly name = 'internal-network';

  constructor(private readonly config: InternalNetworkConfig = InternalNetworkConfigSchema.parse({})) {}

  evaluate(input: GuardInput): GuardOutcome {
    const a = input.action;
    if (!this.config.enabled || a.kind !== 'egress') return null;
    for (const t of a.targets) {
      const reason = internalReason(t.host, this.config.additional_hosts);
      if (reason !== null) return { verdict: 'deny', reason, details: t.host };
    }
    return { verdict: 'allow' };
  }
}
