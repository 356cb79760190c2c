/**
 * Commands that run their arguments as another command (env, xargs, nice, nohup, timeout, sudo,
 * doas, stdbuf, setsid, watch, flock, strace, time, ionice, taskset): where the wrapped command
 * starts, what environment and directory it gets, so a guard can judge the wrapped command as if
 * it were asked for directly. Each wrapper's options are modelled from its man page (getopt
 * strings), because mistaking an option's value
 * for the command, or the command for a value, would let a command through unjudged. Forms that
 * run a shell string or a command the guard cannot see are refused: env -S, sudo -s/-i/-e/-R,
 * doas -s, flock -c, xargs -a (arguments from a file), strace -o '|cmd'; watch without -x joins
 * its words for `sh -c`, so each must then be free of shell syntax. Of these, sudo's and doas's
 * forms and strace's pipe run what the command line does not show (`runs`); env -S, flock -c and
 * xargs -a hand over text or words a guard that reads them can still judge.
 * Owns: wrapper syntax. Imports forms. Arguments are attacker-controlled.
 */
import { longMatches } from './forms.js';

export interface WrapperSpec {
  /** Short letters that take a value (joined or the next argument). */
  valued?: string;
  /** Short letters whose value may only be joined (`-e[eof]`). */
  optional?: string;
  /** Long names that take a value (`--name=v` or `--name v`). */
  valuedLong?: readonly string[];
  /** Forms refused outright, with why. */
  refuseShort?: string;
  refuseLong?: readonly string[];
  refuseWhy?: string;
  /** The refused forms run what the command line does not show as words of its own (a shell, an editor, a chroot's programs); without this, a guard that reads shell text or split strings can judge what they run. */
  refuseRuns?: true;
  /** Operands before the command (timeout's duration, flock's lock file, taskset's mask). */
  operands?: number;
  /** Words refused right after the operands (flock FILE -c COMMAND runs COMMAND with sh -c). */
  refuseAfterOperands?: readonly string[];
  /** NAME=VALUE words before the command set its environment. */
  assignments?: boolean;
  /** An option whose value is an environment variable for the command (strace -E, xargs --process-slot-var). */
  env?: { short?: string; long?: string };
  /** An option whose value is the directory the command runs in. */
  chdir?: { short?: string; long?: string };
  /** Options after which no command runs (taskset -p, ionice -p). */
  noCommand?: string;
  /** Without this option the command's words are run by `sh -c` (watch). */
  exec?: { short: string; long: string };
  /** An output option that pipes to a command when its value starts with | or ! (strace -o). */
  pipe?: { short: string; long: string };
  /** `-5` is an option (nice). */
  digits?: boolean;
  source: string;
}

export const WRAPPERS: Record<string, WrapperSpec> = {
  env: {
    valued: 'uCS',
    valuedLong: ['unset', 'chdir', 'split-string'],
    refuseShort: 'S',
    refuseLong: ['split-string'],
    refuseWhy: 'splits a string into a command line',
    assignments: true,
    chdir: { short: 'C', long: 'chdir' },
    source: 'env(1)',
  },
  xargs: {
    valued: 'adEILnPs',
    optional: 'eil',
    valuedLong: ['arg-file', 'delimiter', 'max-args', 'max-procs', 'max-chars', 'process-slot-var'],
    refuseShort: 'a',
    refuseLong: ['arg-file'],
    refuseWhy: 'reads arguments from a file',
    env: { long: 'process-slot-var' },
    source: 'xargs(1)',
  },
  nice: { valued: 'n', valuedLong: ['adjustment'], digits: true, source: 'nice(1)' },
  nohup: { source: 'nohup(1)' },
  timeout: { valued: 'ks', valuedLong: ['kill-after', 'signal'], operands: 1, source: 'timeout(1)' },
  sudo: {
    valued: 'aCcDgpRrTtUu',
    optional: 'h',
    valuedLong: [
      'auth-type',
      'close-from',
      'chdir',
      'group',
      'host',
      'prompt',
      'chroot',
      'role',
      'type',
      'command-timeout',
      'other-user',
      'user',
    ],
    refuseShort: 'sieR',
    refuseLong: ['shell', 'login', 'edit', 'chroot'],
    refuseWhy: 'runs a shell, an editor or another root',
    refuseRuns: true,
    assignments: true,
    chdir: { short: 'D', long: 'chdir' },
    source: 'sudo(8)',
  },
  doas: { valued: 'Cu', refuseShort: 's', refuseWhy: 'runs a shell', refuseRuns: true, source: 'doas(1)' },
  stdbuf: { valued: 'ioe', valuedLong: ['input', 'output', 'error'], source: 'stdbuf(1)' },
  setsid: { source: 'setsid(1)' },
  watch: {
    valued: 'nq',
    optional: 'd',
    valuedLong: ['interval', 'equexit'],
    exec: { short: 'x', long: 'exec' },
    source: 'watch(1)',
  },
  flock: {
    valued: 'wEc',
    valuedLong: ['timeout', 'conflict-exit-code', 'command'],
    refuseShort: 'c',
    refuseLong: ['command'],
    refuseWhy: 'runs a shell command string',
    operands: 1,
    refuseAfterOperands: ['-c', '--command'],
    source: 'flock(1)',
  },
  strace: {
    valued: 'abeEIoOpPsSuUX',
    valuedLong: [
      'columns',
      'trace',
      'trace-fds',
      'trace-path',
      'signal',
      'status',
      'decode-pids',
      'string-limit',
      'output',
      'summary-columns',
      'summary-sort-by',
      'attach',
      'user',
      'env',
      'inject',
      'fault',
      'argv0',
    ],
    env: { short: 'E', long: 'env' },
    pipe: { short: 'o', long: 'output' },
    source: 'strace(1)',
  },
  time: { valued: 'fo', valuedLong: ['format', 'output'], source: 'time(1) (GNU)' },
  ionice: { valued: 'cnpPu', noCommand: 'pPu', source: 'ionice(1)' },
  taskset: { noCommand: 'p', operands: 1, source: 'taskset(1)' },
};

export type Unwrapped =
  | { kind: 'refused'; arg: string; why: string; runs: boolean }
  | { kind: 'none' }
  | {
      kind: 'wrapped';
      command: string;
      args: string[];
      env: Array<{ name: string; value: string }>;
      chdir?: string;
      shell: boolean;
    };

const SYNTAX = { abbreviates: true };
const has = (list: readonly string[] | undefined, given: string) =>
  (list ?? []).some((n) => longMatches(given, n, SYNTAX));
const assignment = (word: string) => {
  const eq = word.indexOf('=');
  return eq < 0 ? undefined : { name: word.slice(0, eq), value: word.slice(eq + 1) };
};

export function unwrap(spec: WrapperSpec, args: readonly string[]): Unwrapped {
  const env: Array<{ name: string; value: string }> = [];
  let chdir: string | undefined;
  let noCommand = false;
  let exec = false;
  let i = 0;
  const take = (letterOrName: string, value: string | undefined, arg: string): Unwrapped | undefined => {
    if (value === undefined) return undefined;
    const isLong = letterOrName.length > 1;
    const is = (o?: { short?: string; long?: string }) =>
      o !== undefined &&
      (isLong ? o.long !== undefined && longMatches(letterOrName, o.long, SYNTAX) : o.short === letterOrName);
    if (is(spec.chdir)) chdir = value;
    if (is(spec.env)) env.push(assignment(value) ?? { name: value, value: '' });
    if (is(spec.pipe) && /^[|!]/.test(value))
      return { kind: 'refused', arg, why: 'pipes its output to a shell command', runs: true };
    return undefined;
  };
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      i++;
      break;
    }
    if (a.startsWith('--') && a.length > 2) {
      const eq = a.indexOf('=');
      const name = a.slice(2, eq < 0 ? undefined : eq);
      if (has(spec.refuseLong, name))
        return { kind: 'refused', arg: a, why: spec.refuseWhy ?? 'not allowed', runs: spec.refuseRuns === true };
      if (spec.exec !== undefined && longMatches(name, spec.exec.long, SYNTAX)) exec = true;
      const value = eq >= 0 ? a.slice(eq + 1) : has(spec.valuedLong, name) ? args[++i] : undefined;
      const r = take(name, value, a);
      if (r !== undefined) return r;
      continue;
    }
    if (a === '-') continue; // env: the same as -i
    if (!a.startsWith('-') || a.length === 1) break;
    if (spec.digits && /^-\d+$/.test(a)) continue;
    for (let j = 1; j < a.length; j++) {
      const c = a[j]!;
      if ((spec.refuseShort ?? '').includes(c))
        return { kind: 'refused', arg: a, why: spec.refuseWhy ?? 'not allowed', runs: spec.refuseRuns === true };
      if ((spec.noCommand ?? '').includes(c)) noCommand = true;
      if (spec.exec?.short === c) exec = true;
      const joined = a.slice(j + 1);
      if ((spec.valued ?? '').includes(c) || ((spec.optional ?? '').includes(c) && joined !== '')) {
        const r = take(c, joined !== '' ? joined : args[++i], a);
        if (r !== undefined) return r;
        break;
      }
    }
  }
  // env(1), sudo(8): every word with a `=` before the command is an assignment.
  for (; spec.assignments && i < args.length; i++) {
    const v = assignment(args[i]!);
    if (v === undefined) break;
    env.push(v);
  }
  i += spec.operands ?? 0;
  const command = args[i];
  if (
    command !== undefined &&
    (spec.refuseAfterOperands ?? []).some((w) => command === w || command.startsWith(`${w}=`))
  )
    return { kind: 'refused', arg: command, why: spec.refuseWhy ?? 'not allowed', runs: spec.refuseRuns === true };
  if (noCommand || command === undefined) return { kind: 'none' };
  return {
    kind: 'wrapped',
    command,
    args: args.slice(i + 1),
    env,
    ...(chdir === undefined ? {} : { chdir }),
    shell: spec.exec !== undefined && !exec,
  };
}
