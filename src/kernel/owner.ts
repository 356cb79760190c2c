/**
 * Who holds a reservation: a process incarnation, and whether it is provably gone.
 * Owns: the `pending_calls.owner` format and the liveness judgement recovery relies on. Imports
 * only node: modules; must not import the ledger, edges or cli.
 *
 * A pid alone is not an identity: pids are reused, so `host:pid` of a crashed producer can name a
 * live, unrelated process (or another producer). On Linux the owner adds the process start time
 * (/proc/<pid>/stat field 22, clock ticks since boot), the boot id and the pid namespace:
 *   `web-1:4242 start=123456 boot=8c1f…-… pidns=4026531836`
 * Elsewhere it is `host:pid`, as rows written before schema 5 are.
 *
 * The judgement is conservative: a row is settled only when its process is provably dead. Every
 * doubt (another host, another pid namespace, /proc hidden, no start time to compare) answers
 * "alive", and the row keeps waiting. The owner text is read from the ledger file:
 * attacker-controlled, parsed by a strict pattern, never passed to a shell.
 */
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

export interface OwnerId {
  host: string;
  pid: number;
  /** Linux: the process start time in clock ticks since boot (/proc/<pid>/stat field 22). */
  start?: string;
  /** Linux: /proc/sys/kernel/random/boot_id. */
  boot?: string;
  /** Linux: the inode of the pid namespace (/proc/self/ns/pid), in which `pid` is a number. */
  pidns?: string;
}

/** What a reservation's owner is, seen from this process. */
export type OwnerState =
  /** This very process incarnation. */
  | { state: 'self' }
  /** Provably gone: settle its rows. `why` is recorded in the recovery receipt. */
  | { state: 'dead'; why: string }
  /** Running, or cannot be proved otherwise: leave its rows alone. */
  | { state: 'alive'; why: string }
  /** Another machine (or an owner text this version cannot read): leave its rows alone. */
  | { state: 'foreign'; why: string };

const OWNER_PATTERN = /^([^\s:]{1,255}):([1-9][0-9]{0,9})((?: [a-z]{1,8}=[^\s=]{1,64})*)$/;

function readTrim(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/**
 * Fields of /proc/<pid>/stat: `comm` (field 2) is in parentheses and may itself contain spaces and
 * ')', so fields are counted after the last ')'. Returns [state (field 3), starttime (field 22)].
 */
function procStat(pid: number): { state: string; start: string } | undefined {
  const text = readTrim(`/proc/${pid}/stat`);
  if (text === undefined) return undefined;
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = rest[0];
  const start = rest[22 - 3];
  return state !== undefined && start !== undefined && /^[0-9]+$/.test(start) ? { state, start } : undefined;
}

function pidNamespace(): string | undefined {
  try {
    return /^pid:\[([0-9]+)\]$/.exec(readlinkSync('/proc/self/ns/pid'))?.[1];
  } catch {
    return undefined;
  }
}

/** This process incarnation. */
export function currentOwner(): OwnerId {
  const self: OwnerId = { host: hostname().replace(/[\s:]/g, '_').slice(0, 255) || 'localhost', pid: process.pid };
  if (process.platform !== 'linux') return self;
  const start = procStat(process.pid)?.start;
  const boot = readTrim('/proc/sys/kernel/random/boot_id');
  const pidns = pidNamespace();
  return {
    ...self,
    ...(start === undefined ? {} : { start }),
    ...(boot !== undefined && /^[0-9a-f-]{1,64}$/.test(boot) ? { boot } : {}),
    ...(pidns === undefined ? {} : { pidns }),
  };
}

export function formatOwner(o: OwnerId): string {
  const attrs = (['start', 'boot', 'pidns'] as const).filter((k) => o[k] !== undefined).map((k) => ` ${k}=${o[k]}`);
  return `${o.host}:${o.pid}${attrs.join('')}`;
}

/** undefined for a text that is not an owner this version wrote. */
export function parseOwner(text: string): OwnerId | undefined {
  const m = OWNER_PATTERN.exec(text);
  if (m === null) return undefined;
  const o: OwnerId = { host: m[1]!, pid: Number(m[2]) };
  for (const attr of m[3]!
    .trim()
    .split(' ')
    .filter((a) => a !== '')) {
    const [key, value] = attr.split('=') as [string, string];
    if (key === 'start' && /^[0-9]+$/.test(value)) o.start = value;
    else if (key === 'boot') o.boot = value;
    else if (key === 'pidns' && /^[0-9]+$/.test(value)) o.pidns = value;
    // An attribute a later version added is ignored: the judgement below stays conservative.
  }
  return o;
}

/** Whether `pid` names a process here: 'no' only when the kernel says so (ESRCH). */
function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== 'ESRCH'; // EPERM: it exists, owned by someone else
  }
}

/** Judges the owner text of a reservation from this process (`self`: `currentOwner()`). */
export function judgeOwner(text: string, self: OwnerId): OwnerState {
  const o = parseOwner(text);
  if (o === undefined) return { state: 'foreign', why: 'owner not in a format this version reads' };
  if (o.host !== self.host) return { state: 'foreign', why: `another host (${o.host})` };
  if (formatOwner(o) === formatOwner(self)) return { state: 'self' };
  // Same host name, another boot: every process of that boot is gone. (A ledger in WAL mode is
  // shared only through one machine's shared memory, so two machines with one host name cannot
  // both be writing it.)
  if (o.boot !== undefined && self.boot !== undefined && o.boot !== self.boot)
    return { state: 'dead', why: `host rebooted since (boot ${o.boot})` };
  // Another pid namespace (a container sharing the host's name): its pids mean nothing here.
  if (o.pidns !== undefined && o.pidns !== self.pidns)
    return { state: 'foreign', why: `another pid namespace (${o.pidns})` };
  if (o.pid === self.pid && o.start === undefined) {
    // This pid, written without a start time (before schema 5, or not Linux): this process cannot
    // tell an earlier incarnation with the same pid from itself, so it waits.
    return { state: 'alive', why: 'written by this pid without a start time' };
  }
  if (!pidExists(o.pid)) return { state: 'dead', why: `process ${o.pid} is not running` };
  if (o.start === undefined || o.pidns === undefined || self.pidns === undefined) {
    return { state: 'alive', why: `process ${o.pid} is running (no start time to tell a reused pid apart)` };
  }
  const now = procStat(o.pid);
  if (now === undefined)
    return { state: 'alive', why: `process ${o.pid} exists but /proc/${o.pid}/stat is unreadable` };
  if (now.start !== o.start)
    return {
      state: 'dead',
      why: `pid ${o.pid} now belongs to another process (started at ${now.start}, not ${o.start})`,
    };
  if (now.state === 'Z') return { state: 'dead', why: `process ${o.pid} has exited (zombie)` };
  return { state: 'alive', why: `process ${o.pid} is running` };
}
