/**
 * CPU time spent by a process and by its descendants, from Linux's /proc (utime + stime of every
 * thread, in clock ticks of 1/100 s: USER_HZ is 100 on Linux for every architecture's /proc ABI).
 * For the bench rows that ask where a call's CPU goes when every core is busy: the client (this
 * process), the edge (the child the client started) and the upstream (the edge's children).
 * Owns: reading /proc. Imports node: only.
 */
import { readdirSync, readFileSync } from 'node:fs';

const TICK_US = 10_000;

interface Stat {
  ppid: number;
  /** utime + stime, µs. */
  cpuUs: number;
}

/** Fields after the command name, which may itself hold spaces and parentheses (proc(5): "(comm)"). */
function stat(pid: number): Stat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // exited meanwhile
  }
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // proc(5): field 4 is ppid, 14 utime, 15 stime; `fields` starts at field 3 (state).
  return { ppid: Number(fields[1]), cpuUs: (Number(fields[11]) + Number(fields[12])) * TICK_US };
}

export interface TreeCpu {
  /** The process itself, µs. */
  ownUs: number;
  /** Every live descendant, µs. */
  descendantsUs: number;
}

/** CPU time so far of `pid` and of its live descendants (a child that has exited is not counted). */
export function treeCpu(pid: number): TreeCpu {
  const parents = new Map<number, number[]>();
  const cpu = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    const child = Number(name);
    if (!Number.isInteger(child)) continue;
    const s = stat(child);
    if (s === undefined) continue;
    cpu.set(child, s.cpuUs);
    const siblings = parents.get(s.ppid);
    if (siblings === undefined) parents.set(s.ppid, [child]);
    else siblings.push(child);
  }
  let descendantsUs = 0;
  const queue = [...(parents.get(pid) ?? [])];
  while (queue.length > 0) {
    const next = queue.pop()!;
    descendantsUs += cpu.get(next) ?? 0;
    queue.push(...(parents.get(next) ?? []));
  }
  return { ownUs: cpu.get(pid) ?? 0, descendantsUs };
}

/** CPU per call, µs, of the three parties to a call: this process, the child it talks to, that child's children. */
export interface CallCpu {
  clientUs: number;
  edgeUs: number;
  upstreamUs: number;
}

/** Runs `work` (which makes `calls` calls) and divides the CPU each party spent meanwhile by `calls`. */
export async function cpuPerCall<T>(
  pid: number,
  calls: number,
  work: () => Promise<T>,
): Promise<{ result: T; cpu: CallCpu }> {
  const before = treeCpu(pid);
  const client = process.cpuUsage();
  const result = await work();
  const spent = process.cpuUsage(client);
  const after = treeCpu(pid);
  return {
    result,
    cpu: {
      clientUs: (spent.user + spent.system) / calls,
      edgeUs: (after.ownUs - before.ownUs) / calls,
      upstreamUs: (after.descendantsUs - before.descendantsUs) / calls,
    },
  };
}

export function totalUs(cpu: CallCpu): number {
  return cpu.clientUs + cpu.edgeUs + cpu.upstreamUs;
}
