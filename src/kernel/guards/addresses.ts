/**
 * Is a host this machine, a private network, or somewhere a cloud keeps its metadata? Addresses
 * are classified with ipaddr.js's special-purpose ranges (RFC 6890 and successors) and, as a
 * second opinion, node:net's BlockList over the classic private ranges; an address passes only if
 * both call it ordinary unicast. Every IPv6 form that carries an IPv4 address — mapped
 * (`::ffff:127.0.0.1`), compatible (`::127.0.0.1`), translated (`::ffff:0:127.0.0.1`, RFC 6145),
 * NAT64 (`64:ff9b::/96`, RFC 6052), 6to4 (`2002::/16`, RFC 3056), Teredo (RFC 4380) and ISATAP
 * (RFC 5214) — is also judged by that IPv4 address. Names are judged as written: `localhost` and
 * its aliases, single-label names (they resolve through the local search domains), internal
 * suffixes, metadata and cluster names, and DNS-rebinding services. Resolving names is the
 * transport's job; a guard that resolved DNS would race the connection it guards.
 * Owns: the ranges and names. Imports ipaddr.js and node:net. Hosts are attacker-controlled.
 */
import { createRequire } from 'node:module';
import { BlockList, isIP } from 'node:net';
import type * as IpAddr from 'ipaddr.js';

// ipaddr.js is CommonJS with `export =` typings: load it with require so the types and the
// runtime object agree.
const ipaddr = createRequire(import.meta.url)('ipaddr.js') as typeof IpAddr;

const classic = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  classic.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['::', 96],
  ['::ffff:0:0', 96],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  classic.addSubnet(net, prefix, 'ipv6');
}

const LOCAL_NAMES = new Set([
  'localhost',
  'localhost.localdomain',
  'localhost4',
  'localhost4.localdomain4',
  'localhost6',
  'localhost6.localdomain6',
  'ip6-localhost',
  'ip6-loopback',
  'ip6-localnet',
  'ip6-allnodes',
  'ip6-allrouters',
  'broadcasthost',
  'metadata.google.internal',
  'metadata',
  'instance-data',
  'kubernetes',
  'kubernetes.default',
  'kubernetes.default.svc',
]);
const INTERNAL_SUFFIXES = [
  '.localhost',
  '.localdomain',
  '.local',
  '.internal',
  '.intranet',
  '.lan',
  '.home',
  '.corp',
  '.home.arpa',
  '.svc',
  '.cluster.local',
  '.kubernetes.default',
];
const REBINDING_SUFFIXES = [
  'nip.io',
  'sslip.io',
  'xip.io',
  'localtest.me',
  'lvh.me',
  'vcap.me',
  'traefik.me',
  'localhost.run',
  'fuf.me',
  'lacolhost.com',
];

/** The IPv4 address an IPv6 address carries, if it is of a form that carries one. */
export function embeddedIPv4(bytes: readonly number[]): string | undefined {
  const v4 = (at: number, xor = 0) =>
    bytes
      .slice(at, at + 4)
      .map((b) => b ^ xor)
      .join('.');
  const zero = (from: number, to: number) => bytes.slice(from, to).every((b) => b === 0);
  if (zero(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return v4(12); // ::ffff:a.b.c.d mapped
  if (zero(0, 8) && bytes[8] === 0xff && bytes[9] === 0xff && zero(10, 12)) return v4(12); // ::ffff:0:a.b.c.d (RFC 6145)
  if (zero(0, 12)) return v4(12); // ::a.b.c.d compatible (deprecated, RFC 4291 §2.5.5.1)
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b) return v4(12); // 64:ff9b::/96 NAT64
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return v4(2); // 2002:AABB:CCDD::/16 6to4
  if (bytes[0] === 0x20 && bytes[1] === 0x01 && bytes[2] === 0 && bytes[3] === 0) return v4(12, 0xff); // Teredo client, obfuscated
  if ((bytes[8] === 0x00 || bytes[8] === 0x02) && bytes[9] === 0x00 && bytes[10] === 0x5e && bytes[11] === 0xfe)
    return v4(12); // ISATAP interface id
  return undefined;
}

const RANGE_NAMES: Readonly<Record<string, string>> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local (cloud metadata lives here)',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT',
  private: 'private',
  reserved: 'reserved',
  uniqueLocal: 'unique-local (private)',
  deprecatedSiteLocal: 'site-local',
  ipv4Mapped: 'IPv4-mapped',
  rfc6145: 'IPv4-translated (RFC 6145)',
  rfc6052: 'NAT64 (RFC 6052)',
  '6to4': '6to4',
  teredo: 'Teredo',
  benchmarking: 'benchmarking',
};

function addressReason(ip: string, host: string): string | null {
  let addr: IpAddr.IPv4 | IpAddr.IPv6;
  try {
    addr = ipaddr.parse(ip);
  } catch {
    return `${host} is an address that cannot be classified`;
  }
  const family = addr.kind();
  if (family === 'ipv6') {
    // The IPv4 address inside says more than the transition range around it.
    const v4 = embeddedIPv4((addr as IpAddr.IPv6).toByteArray());
    const inner = v4 === undefined ? null : addressReason(v4, v4);
    if (inner !== null) return `${host} carries ${v4}: ${inner}`;
  }
  const range = addr.range();
  if (range !== 'unicast') return `${host} is a ${RANGE_NAMES[range] ?? range} address`;
  if (classic.check(addr.toNormalizedString(), family)) return `${host} is a reserved address`;
  return null;
}

/** Why `host` (as the URL parser gives it: lower case, IPv6 in brackets) is internal, or null. */
export function internalReason(host: string, extraNames: readonly string[] = []): string | null {
  const h = host
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/\.+$/, '');
  const bare = h.replace(/%.*$/, ''); // an IPv6 zone id (fe80::1%eth0) names a local interface
  if (isIP(bare) !== 0) return h !== bare ? `${host} names a local interface (zone id)` : addressReason(bare, host);
  if (LOCAL_NAMES.has(h) || INTERNAL_SUFFIXES.some((s) => h.endsWith(s))) return `${host} is an internal host name`;
  if (REBINDING_SUFFIXES.some((s) => h === s || h.endsWith(`.${s}`))) return `${host} uses a DNS rebinding service`;
  if (!h.includes('.')) return `${host} is a single-label name, resolved through the local search domains`;
  if (extraNames.some((e) => (e.startsWith('.') ? h.endsWith(e.toLowerCase()) : h === e.toLowerCase())))
    return `${host} is configured as internal`;
  return null;
}
