/**
 * Builtins and programs that run code in ways the word-level rules do not see: `trap` and `alias`
 * hold shell code (judged like the command itself), `hash -p`, `enable -f`, `fc` and `bind -x`
 * rebind or run commands; debuggers (`gdb -ex`, `gdb --args cmd`), terminal multiplexers
 * (`tmux new …`, `screen -dm …`), container runtimes (`docker run|exec`, `kubectl exec`),
 * `sqlite3 .shell`, `man -P`. Where the code can be judged it is handed back; where it cannot, the
 * command is refused unless the policy allows that program in `allowed_interpreters` (as with an
 * interpreter handed inline code: allowing it allows arbitrary code).
 * Owns: these rules. Imports the word type and node:path. Arguments are attacker-controlled.
 */
import { posix } from 'node:path';
import type { StdinSource } from './parser.js';
import type { Field } from './words.js';

export type RunnerOutcome =
  | { kind: 'none' }
  | { kind: 'deny'; reason: string; program: string }
  | { kind: 'shell'; texts: string[] }
  | { kind: 'argv'; argv: Field[] };

const NONE: RunnerOutcome = { kind: 'none' };
const values = (argv: Field[]) => argv.slice(1).map((f) => f.value);
const positionals = (argv: Field[]) => argv.slice(1).filter((f) => f.value === undefined || !f.value.startsWith('-'));

const TMUX_READ_ONLY = new Set([
  'ls',
  'list-sessions',
  'list-windows',
  'list-panes',
  'list-clients',
  'has-session',
  'has',
  'kill-session',
  'kill-server',
  'kill-window',
  'kill-pane',
  'show-options',
  'show',
  'capture-pane',
  'capturep',
]);
const CONTAINER_RUNS: Readonly<Record<string, ReadonlySet<string>>> = {
  docker: new Set(['run', 'exec', 'create', 'start', 'compose', 'container']),
  podman: new Set(['run', 'exec', 'create', 'start', 'compose', 'container']),
  nerdctl: new Set(['run', 'exec', 'create', 'start', 'compose']),
  kubectl: new Set(['exec', 'run', 'debug', 'attach', 'cp', 'port-forward', 'proxy']),
};

const deny = (program: string, reason: string): RunnerOutcome => ({ kind: 'deny', program, reason });

export function runnerOutcome(name: string, argv: Field[], stdin: StdinSource): RunnerOutcome {
  const v = values(argv);
  switch (name) {
    case 'trap': {
      // trap [-lp] [action signal…]: the action is shell code the shell runs later.
      const action = argv.slice(1).find((f) => f.value === undefined || !f.value.startsWith('-'));
      if (action === undefined) return NONE;
      return action.value === undefined
        ? deny(name, 'trap sets an action computed at run time')
        : { kind: 'shell', texts: [action.value] };
    }
    case 'alias': {
      const texts: string[] = [];
      for (const f of argv.slice(1)) {
        if (f.value === undefined) return deny(name, 'alias defines a command computed at run time');
        const eq = f.value.indexOf('=');
        if (eq > 0) texts.push(f.value.slice(eq + 1));
      }
      return { kind: 'shell', texts };
    }
    case 'hash':
      return v.some((x) => x === undefined || /^-[A-Za-z]*p/.test(x))
        ? deny(name, 'hash -p makes a command name run another program')
        : NONE;
    case 'enable':
      return v.some((x) => x === undefined || /^-[A-Za-z]*f/.test(x))
        ? deny(name, 'enable -f loads a builtin from a shared object')
        : NONE;
    case 'fc':
      return deny(name, 'fc runs commands from the history through an editor');
    case 'bind':
      return v.some((x) => x === undefined || /^-[A-Za-z]*x/.test(x))
        ? deny(name, 'bind -x runs a command on a key')
        : NONE;
    case 'gdb':
    case 'lldb': {
      const at = v.indexOf(name === 'gdb' ? '--args' : '--');
      if (
        v.some(
          (x) =>
            x === undefined ||
            /^-(?:ex|iex|x|ix|batch|eval-command|init-eval-command|command|init-command|o|one-line|s|source)\b|^--(?:eval-command|command|init-command|init-eval-command|one-line|source)/.test(
              x,
            ),
        )
      ) {
        return deny(name, `${name} runs debugger commands (which run shell commands)`);
      }
      return at < 0 ? NONE : { kind: 'argv', argv: argv.slice(at + 2) };
    }
    case 'tmux': {
      const sub = positionals(argv)[0];
      if (sub === undefined) return deny(name, 'tmux starts a shell the guard cannot see into');
      return sub.value !== undefined && TMUX_READ_ONLY.has(sub.value)
        ? NONE
        : deny(name, `tmux ${sub.value ?? '…'} runs commands the guard cannot see into`);
    }
    case 'screen':
      return v.every((x) => x !== undefined && /^-(?:ls|list|wipe|v|version|help)$/.test(x))
        ? NONE
        : deny(name, 'screen runs commands the guard cannot see into');
    case 'sqlite3':
      if (
        v.some(
          (x) =>
            x === undefined || /(?:^|\n|;)\s*\.(?:shell|system|load|output\s*\||once\s*\||import\s+['"]?\|)/.test(x),
        )
      )
        return deny(name, 'sqlite3 runs a shell command or loads code');
      return stdin === 'pipe' || stdin === 'heredoc' || stdin === 'herestring'
        ? deny(name, 'sqlite3 reads commands (.shell among them) from standard input')
        : NONE;
    case 'man':
      return v.some(
        (x) => x === undefined || /^(?:-P|--pager|-H|--html|-p|--preprocessor)/.test(x) || /^-[A-Za-z]*[PH]/.test(x),
      )
        ? deny(name, 'man runs the pager or browser it is given')
        : NONE;
    default: {
      const runs = CONTAINER_RUNS[name];
      if (runs === undefined) return NONE;
      const sub = positionals(argv)[0];
      if (sub === undefined || sub.value === undefined || runs.has(sub.value))
        return deny(name, `${name} ${sub?.value ?? '…'} runs commands in a container the guard cannot see into`);
      return NONE;
    }
  }
}

export const RUNNER_PROGRAMS = new Set([
  'trap',
  'alias',
  'hash',
  'enable',
  'fc',
  'bind',
  'gdb',
  'lldb',
  'tmux',
  'screen',
  'sqlite3',
  'man',
  ...Object.keys(CONTAINER_RUNS),
]);

/** The basename a runner rule is keyed by. */
export const runnerName = (program: string): string => posix.basename(program).toLowerCase();
