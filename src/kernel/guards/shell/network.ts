/**
 * What a command does on the network: connections through bash's `/dev/tcp` and `/dev/udp`,
 * netcat/socat running a command on a connection (a remote shell), encoded data piped to a network
 * tool (exfiltration), and the hosts and URLs it would reach — which the internal-network guard
 * then judges like any URL argument.
 * Owns: these rules and host extraction. Imports the program tables. Arguments are attacker-controlled.
 */
import { posix } from 'node:path';
import type { SimpleCommand } from './parser.js';
import { EXEC_ON_CONNECT, NETWORK_PROGRAMS } from './programs.js';
import type { Field } from './words.js';

const DEV_NET = /\/dev\/(?:tcp|udp)\//;
const URL_SHAPE = /^[a-z][a-z0-9+.-]*:\/\/\S+$/i;
const ENCODERS = new Set(['base64', 'base32', 'xxd', 'od', 'hexdump', 'gzip', 'openssl']);

const nameOf = (f: Field | undefined) => (f?.value === undefined ? undefined : posix.basename(f.value).toLowerCase());

export function networkReason(cmd: SimpleCommand, argv: Field[]): string | undefined {
  const all = [...cmd.argv, ...cmd.redirects.flatMap((r) => r.target), ...cmd.assigns.flatMap((a) => a.value)];
  if (all.some((f) => DEV_NET.test(f.value ?? f.pattern))) return 'a connection through /dev/tcp or /dev/udp';
  const name = nameOf(argv[0]);
  if (name === undefined) return undefined;
  const exec = EXEC_ON_CONNECT[name];
  if (exec !== undefined && argv.some((f) => f.value !== undefined && exec.some((o) => f.value === o || f.value!.startsWith(`${o}=`) || (/^-[A-Za-z]+$/.test(f.value!) && o.length === 2 && f.value!.includes(o[1]!))))) {
    return `${name} runs a command on a network connection`;
  }
  if (name === 'socat' && argv.some((f) => /^(?:EXEC|SYSTEM):/i.test(f.value ?? ''))) return 'socat runs a command on a network connection';
  if (NETWORK_PROGRAMS.has(name) && cmd.pipedFrom.some((c) => ENCODERS.has(nameOf(c.argv[0]) ?? ''))) return `encoded data piped to ${name}`;
  return undefined;
}

/**
 * URLs and hosts in a command: every word shaped like a URL, and the host arguments of programs
 * that connect (`curl 10.0.0.1:8080`, `ssh user@host`, `nc host port`).
 */
export function commandTargets(argv: Field[]): string[] {
  const out: string[] = [];
  for (const f of argv) if (f.value !== undefined && URL_SHAPE.test(f.value) && !/^file:/i.test(f.value)) out.push(f.value);
  const name = nameOf(argv[0]);
  if (name === undefined || !NETWORK_PROGRAMS.has(name)) return out;
  const positionals = argv.slice(1).filter((f) => f.value !== undefined && !f.value.startsWith('-') && !URL_SHAPE.test(f.value));
  for (const f of positionals) {
    const v = f.value!;
    if (name === 'socat') {
      const m = /^(?:TCP|UDP|TCP4|TCP6|UDP4|UDP6|SSL|OPENSSL)[^:]*:([^:,]+|\[[^\]]+\])/i.exec(v);
      if (m !== null) out.push(m[1]!);
      continue;
    }
    // user@host:path (ssh, scp, rsync), host:port, a bare host or address.
    const m = /^(?:[^@/\s]+@)?(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::[^/\s]*)?(?:\/.*)?$/.exec(v);
    if (m === null || /^\d+$/.test(m[1]!) && name !== 'curl' && name !== 'wget') continue;
    if (m[1]!.includes('.') || m[1]!.includes(':') || m[1]!.startsWith('[') || m[1] === 'localhost' || v.includes('@')) out.push(v.replace(/^[^@/\s]+@/, '').replace(/:(?!\d+(?:\/|$))[^]*$/, ''));
  }
  return out;
}
