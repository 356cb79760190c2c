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
  if (
    exec !== undefined &&
    argv.some(
      (f) =>
        f.value !== undefined &&
        exec.some(
          (o) =>
            f.value === o ||
            f.value!.startsWith(`${o}=`) ||
            (/^-[A-Za-z]+$/.test(f.value!) && o.length === 2 && f.value!.includes(o[1]!)),
        ),
    )
  ) {
    return `${name} runs a command on a network connection`;
  }
  if (name === 'socat' && argv.some((f) => /^(?:EXEC|SYSTEM):/i.test(f.value ?? '')))
    return 'socat runs a command on a network connection';
  if (NETWORK_PROGRAMS.has(name) && cmd.pipedFrom.some((c) => ENCODERS.has(nameOf(c.argv[0]) ?? '')))
    return `encoded data piped to ${name}`;
  return undefined;
}

/** Programs that take URLs as arguments and fetch them (their URL-shaped words are targets). */
const URL_TAKERS = new Set([
  ...NETWORK_PROGRAMS,
  'git',
  'npm',
  'pnpm',
  'yarn',
  'pip',
  'pip3',
  'pipx',
  'uv',
  'cargo',
  'go',
  'docker',
  'podman',
  'helm',
  'kubectl',
  'gh',
  'aws',
  'gcloud',
  'az',
  'openssl',
  'psql',
  'mysql',
  'redis-cli',
  'mongosh',
  'mongo',
  'ftp',
  'lftp',
  'svn',
  'hg',
  'ab',
  'hey',
  'k6',
  'nmap',
  'dig',
  'nslookup',
  'host',
  'ping',
]);
/** Options whose value names a host or URL to connect to, per program (curl(1), ssh(1), psql(1), …). */
const HOST_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  curl: [
    '-x',
    '--proxy',
    '--preproxy',
    '--socks4',
    '--socks4a',
    '--socks5',
    '--socks5-hostname',
    '--url',
    '--doh-url',
    '--dns-servers',
  ],
  wget: ['-e', '--execute'],
  ssh: ['-J'],
  scp: ['-J'],
  psql: ['-h', '--host'],
  mysql: ['-h', '--host'],
  'redis-cli': ['-h', '-u'],
  mongosh: ['--host'],
  openssl: ['-connect', '-host', '-proxy'],
  nmap: [],
};
/** Programs whose first positional word is the host to connect to, with their options that take a value. */
const FIRST_POSITIONAL_HOST: Readonly<Record<string, string>> = {
  ssh: 'bcDEeFIiJLlmOopQRSWwB',
  sftp: 'BbcDFiJloPRSs',
  nc: 'pswiqxXOIT',
  ncat: 'pswiqxXO',
  netcat: 'pswiqxXOIT',
  telnet: 'lben',
  ping: 'cisWwItQlm',
  nmap: 'pioS',
  host: 'tcNRW',
  nslookup: '',
  ftp: 'PsD',
  lftp: 'puUef',
  mongosh: '',
  mongo: '',
};

const GIT_REMOTE_COMMANDS = new Set(['clone', 'fetch', 'pull', 'push', 'ls-remote', 'remote', 'submodule', 'archive']);

const hostOfRemote = (v: string): string => v.replace(/^[^@/\s]+@/, '').replace(/:(?!\d+(?:\/|$))[\s\S]*$/, '');

/**
 * Why a network command's arguments cannot be judged: curl's own URL globbing (`{a,b}`, `[1-9]`)
 * and options read from a file (`-K`) or resolved by hand (`--resolve`, `--connect-to` go to
 * where their last part says, judged too).
 */
export function unjudgeableNetwork(argv: Field[]): string | undefined {
  const name = nameOf(argv[0]);
  if (name !== 'curl') return undefined;
  const words = argv.slice(1).map((f) => f.value ?? '');
  if (words.some((w) => w === '-K' || w.startsWith('--config'))) return 'curl reads its options from a file';
  if (!words.some((w) => w === '-g' || w === '--globoff') && words.some((w) => URL_SHAPE.test(w) && /[{[]/.test(w)))
    return 'curl expands a URL pattern the guard does not';
  return undefined;
}

/**
 * URLs and hosts a command reaches: URL-shaped words of programs that fetch, the host arguments
 * of programs that connect (`curl 10.0.0.1:8080`, `ssh user@host`, `nc host port`, `scp host:x`),
 * hosts named by options (`psql -h`, `curl -x`), and curl's `--resolve`/`--connect-to` addresses.
 * A URL merely printed (`echo http://localhost:3000`) is not a connection.
 */
export function commandTargets(argv: Field[]): string[] {
  const name = nameOf(argv[0]);
  if (name === undefined || !URL_TAKERS.has(name)) return [];
  const out: string[] = [];
  const args = argv.slice(1);
  for (const f of args)
    if (f.value !== undefined && URL_SHAPE.test(f.value) && !/^file:/i.test(f.value)) out.push(f.value);
  const options = HOST_OPTIONS[name] ?? [];
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    if (v === undefined) continue;
    const eq = v.indexOf('=');
    const opt = eq > 0 && v.startsWith('--') ? v.slice(0, eq) : v;
    const value = eq > 0 && v.startsWith('--') ? v.slice(eq + 1) : args[i + 1]?.value;
    if (options.includes(opt) && value !== undefined) out.push(value);
    else if (options.some((o) => o.length === 2 && v.startsWith(o) && v.length > 2)) out.push(v.slice(2));
    if (name === 'curl' && (opt === '--resolve' || opt === '--connect-to') && value !== undefined) {
      // host:port:addr (--resolve) and host:port:addr:port (--connect-to): the connection goes to addr.
      const parts = value.split(':');
      const addr = opt === '--resolve' ? parts.slice(2).join(':') : parts.slice(2, -1).join(':');
      if (addr !== '') out.push(addr.startsWith('[') ? addr : addr.includes(':') ? `[${addr}]` : addr);
    }
    if (name === 'dig' && v.startsWith('@')) out.push(v.slice(1));
  }
  const positional = args
    .filter((f) => f.value !== undefined && !f.value.startsWith('-') && !URL_SHAPE.test(f.value))
    .map((f) => f.value!);
  if (name === 'curl' || name === 'wget' || name === 'http' || name === 'https' || name === 'xh' || name === 'aria2c')
    out.push(...positional);
  else if (FIRST_POSITIONAL_HOST[name] !== undefined) {
    const takesValue = FIRST_POSITIONAL_HOST[name]!;
    for (let i = 0; i < args.length; i++) {
      const v = args[i]!.value;
      if (v === undefined) break;
      if (v.startsWith('-') && v.length > 1) {
        // `-p 2222` takes the next word; `-p2222`, `-oX=Y` and flag bundles do not.
        if (/^-[A-Za-z]$/.test(v) && takesValue.includes(v[1]!)) i++;
        continue;
      }
      out.push(hostOfRemote(v));
      break;
    }
  } else if (name === 'scp' || name === 'rsync' || (name === 'git' && GIT_REMOTE_COMMANDS.has(positional[0] ?? ''))) {
    // scp-like `[user@]host:path` (one word; `C:\x` is a Windows path)
    out.push(...positional.filter((p) => /^[^/\s]*[^/\s:]:\S*$/.test(p) && !/^[A-Za-z]:\\/.test(p)).map(hostOfRemote));
  } else if (name === 'socat') {
    for (const p of positional) {
      const m = /^(?:TCP|UDP|TCP4|TCP6|UDP4|UDP6|SSL|OPENSSL)[^:]*:([^:,]+|\[[^\]]+\])/i.exec(p);
      if (m !== null) out.push(m[1]!);
    }
  }
  return out;
}
