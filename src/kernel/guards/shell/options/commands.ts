/**
 * Option forms of commands that run other commands or load configuration, per command (looked up
 * by the command's base name), for guards that judge a command line (the ACP proxy's terminal
 * table, the kernel's shell-command guard). Each entry cites the man page its forms come from. git
 * and sed have their own readers (git.ts, sed.ts). Options that name a directory a command works
 * in, or a project file it builds (`-C`, `--prefix`, `--manifest-path`, `make -f`), are reported
 * as paths to judge like a working directory. A command not in the table: no findings. The table
 * can only refuse; it never allows anything another rule refuses.
 * Owns: the table and its matcher. Imports forms, the git and sed readers.
 * Arguments are attacker-controlled.
 */
import { posix } from 'node:path';
import { formFindings, optionValues } from './forms.js';
import type { OptionFinding, OptionForm, Syntax } from './forms.js';
import { gitFindings } from './git.js';
import { sedFindings } from './sed.js';

export interface CommandRules extends Syntax {
  source: string;
  /** Forms refused wherever they appear among the arguments. */
  forms: readonly OptionForm[];
  /** Options naming a directory the command works in (`-C`: it changes into it), or a project file whose scripts it runs (`file`): judged like a cwd. */
  dirs?: ReadonlyArray<{ long?: string; short?: string; file?: true }>;
  check?: (args: readonly string[]) => OptionFinding[];
}

const refused = (arg: string, why: string): OptionFinding => ({ kind: 'refused', arg, why });
const longs = (names: string, why: string): OptionForm[] => names.split(' ').map((long) => ({ long, why }));
const shorts = (letters: string, why: string): OptionForm[] => [...letters].map((short) => ({ short, why }));

/** Subcommands that run a package or code they are given: npm-exec(1) (exec, x), npm-explore(1), npm-edit(1), pnpm dlx/exec/create, yarn dlx/exec/node/create. */
const NPM_RUNS = new Set(['exec', 'x', 'dlx', 'explore', 'edit', 'node', 'create', 'set']);
const NPM_COMMANDS = new Set('access add audit bugs cache ci completion config c dedupe deprecate diff dist-tag docs doctor fund help hook install i install-ci-test install-test it link ln list ls login logout org outdated owner pack ping pkg prefix profile prune publish query rebuild repo restart root run run-script rum start stop team test t tst token uninstall rm un unpublish unstar update up upgrade version view info show whoami why'.split(' '));

function npmCheck(args: readonly string[]): OptionFinding[] {
  const at = args.findIndex((a) => !a.startsWith('-'));
  if (at < 0) return [];
  // `npm --prefix x exec`: the first word may be an option's value, so an unknown first word after a
  // `--name` without `=` makes the next word a candidate too.
  const candidates = [args[at]!];
  const prev = args[at - 1];
  if (prev !== undefined && prev.startsWith('-') && !prev.includes('=') && !NPM_COMMANDS.has(args[at]!) && !NPM_RUNS.has(args[at]!)) {
    const next = args.slice(at + 1).find((a) => !a.startsWith('-'));
    if (next !== undefined) candidates.push(next);
  }
  for (const word of candidates) {
    const rest = args.slice(args.indexOf(word) + 1).filter((a) => !a.startsWith('-'));
    if (NPM_RUNS.has(word)) return [refused(word, word === 'set' ? 'writes npm configuration that later runs read (script-shell, node-options…)' : 'runs a package or code it is given')];
    if ((word === 'init' || word === 'innit') && rest.length > 0) return [refused(`${word} ${rest[0]}`, 'runs the create-<initializer> package (npm-init(1))')];
    if ((word === 'config' || word === 'c') && rest.length > 0 && !['get', 'list', 'ls'].includes(rest[0]!)) return [refused(`${word} ${rest[0]}`, 'writes npm configuration that later runs read (script-shell, node-options…)')];
  }
  return [];
}

const NPM_FORMS: OptionForm[] = [
  ...longs('node-options script-shell shell git node-gyp', 'names a program or node options that npm runs (npm-config(7))'),
  ...longs('userconfig globalconfig init-module onload-script editor browser', 'loads configuration or code, or runs an editor/browser (npm-config(7))'),
  ...longs('call', 'runs the command given (npm-exec(1))'),
  ...shorts('c', '-c/--call runs the command given (npm-exec(1), pnpm exec -c)'),
  ...longs('pnpmfile global-pnpmfile', 'loads hook code (pnpm)'),
  ...longs('use-yarnrc yarn-path', 'loads a yarnrc or a yarn release to run (yarn)'),
  { match: /^--config\./, why: 'sets any config key (pnpm --config.<key>)' },
];
const NPM: CommandRules = {
  source: 'npm-config(7), npm-exec(1), npm-init(1), pnpm CLI, yarn CLI', abbreviates: true, underscores: true, known: ['global'],
  forms: NPM_FORMS, dirs: [{ long: 'prefix' }, { long: 'dir' }, { long: 'cwd' }, { short: 'C' }], check: npmCheck,
};

/** make(1) command-line variables: SHELL and .SHELLFLAGS run every recipe, MAKEFLAGS/MAKEFILES add options and makefiles, `!=` runs a shell command. */
const MAKE_VARIABLES = new Set(['SHELL', '.SHELLFLAGS', 'MAKEFLAGS', 'MFLAGS', 'GNUMAKEFLAGS', 'MAKEFILES', 'MAKESHELL', 'MAKE', '.RECIPEPREFIX']);

function makeCheck(args: readonly string[]): OptionFinding[] {
  const out: OptionFinding[] = [];
  for (const a of args) {
    if (a.startsWith('-')) continue;
    const m = /^([^=]*?)\s*(:::|::|:|\?|\+|!)?=/.exec(a);
    if (m === null) continue;
    const name = m[1]!.trim();
    if (m[2] === '!') out.push(refused(a, 'a != assignment runs a shell command'));
    else if (MAKE_VARIABLES.has(name)) out.push(refused(a, 'sets the shell, flags or makefiles every recipe uses (make(1))'));
    else out.push({ kind: 'env', arg: a, name, why: 'make passes it to recipes as the environment variable it names' });
  }
  return out;
}

const VIM: CommandRules = {
  source: 'vim(1), nvim(1)', abbreviates: false,
  forms: [
    ...shorts('cS', 'runs an Ex command or sources a script'), ...shorts('uUs', 'loads a vimrc or a script of commands'), ...shorts('l', 'runs a Lua script (nvim -l)'),
    { long: 'cmd', why: 'runs an Ex command before any vimrc' },
    { match: /^--(remote|servername|listen)/, why: 'sends commands to, or opens, a server' },
    { match: /^\+(?!\d*$)/, why: '+{command} runs an Ex command' },
  ],
};

export const COMMAND_RULES: Record<string, CommandRules> = {
  npm: NPM, pnpm: NPM, yarn: NPM,
  npx: { ...NPM, check: undefined },
  cargo: {
    source: 'cargo(1) (--config, -Z, +toolchain), rustc(1) (-C linker)', abbreviates: false,
    forms: [
      { long: 'config', why: 'sets any config key: rustc wrappers, runners, linkers (cargo-config(5))' },
      ...shorts('Z', 'enables unstable flags, some of which run programs'),
      { match: /^\+.*\//, why: 'a +toolchain path runs the toolchain found there' },
      { match: /^(?:-C|--codegen=?)?(?:linker|link-args?)=/, why: 'names the linker rustc runs' },
    ],
    dirs: [{ long: 'manifest-path', file: true }],
  },
  make: {
    source: 'make(1)', abbreviates: true,
    forms: [{ long: 'eval', why: 'evaluates makefile text, which may run commands' }, { short: 'E', why: '-E/--eval evaluates makefile text' }],
    dirs: [{ long: 'directory' }, { short: 'C' }, { long: 'file', file: true }, { long: 'makefile', file: true }, { short: 'f', file: true }], check: makeCheck,
  },
  find: {
    source: 'find(1) ACTIONS', abbreviates: false,
    forms: [
      ...['-exec', '-execdir', '-ok', '-okdir'].map((word) => ({ word, why: 'runs the command given' })),
      { word: '-delete', why: 'deletes what it finds' },
      ...['-fprint', '-fprint0', '-fprintf', '-fls'].map((word) => ({ word, why: 'writes the file given' })),
    ],
  },
  rg: { source: 'rg(1)', abbreviates: false, forms: [{ long: 'pre', why: 'runs the preprocessor command given on every file' }, { long: 'hostname-bin', why: 'runs the program given' }] },
  tar: {
    source: 'tar(1) (GNU)', abbreviates: true, known: ['checkpoint'],
    forms: [
      ...longs('to-command use-compress-program checkpoint-action rsh-command info-script new-volume-script', 'runs the command given'),
      ...shorts('IF', '-I (--use-compress-program) / -F (--info-script) run the command given'),
    ],
    dirs: [{ long: 'directory' }, { short: 'C' }],
    // Old-style `tar xIf prog …`: the first word is a cluster of option letters without a dash.
    check: (args) => (args[0] !== undefined && !args[0].startsWith('-') && /[IF]/.test(args[0]) ? [refused(args[0], 'an old-style option cluster with I or F runs the command given')] : []),
  },
  ssh: { source: 'ssh(1), ssh_config(5)', abbreviates: false, forms: [...shorts('oF', '-o/-F set options such as ProxyCommand, LocalCommand, KnownHostsCommand'), ...shorts('I', 'loads a PKCS#11 library')] },
  scp: { source: 'scp(1)', abbreviates: false, forms: [...shorts('oF', '-o/-F set ssh options such as ProxyCommand'), ...shorts('SD', 'runs the program given for the connection')] },
  sftp: { source: 'sftp(1)', abbreviates: false, forms: [...shorts('oF', '-o/-F set ssh options such as ProxyCommand'), ...shorts('SD', 'runs the program given for the connection')] },
  rsync: {
    source: 'rsync(1)', abbreviates: true,
    forms: [...longs('rsh rsync-path', 'runs the program given'), ...shorts('e', '-e/--rsh runs the program given'), ...longs('daemon config', 'runs a daemon whose config runs commands')],
  },
  zip: { source: 'zip(1)', abbreviates: true, forms: [{ long: 'unzip-command', why: 'runs the command given to test the archive' }, { match: /^-[^-]*TT/, why: '-TT runs the command given to test the archive' }] },
  vim: VIM, vi: VIM, nvim: VIM, view: VIM, vimdiff: VIM, ex: VIM, gvim: VIM,
};

/**
 * What this command's options refuse or name, in order: the table's forms, then the directories and
 * files options name (relative to `cwd`), then the command's own check. git and sed have readers of
 * their own. A command not in the table: nothing.
 */
export function optionFindings(command: string, args: readonly string[], cwd: string | undefined): OptionFinding[] {
  const name = posix.basename(command);
  if (name === 'git') return gitFindings(args, cwd);
  if (name === 'sed') return sedFindings(args, cwd);
  const rules = Object.hasOwn(COMMAND_RULES, name) ? COMMAND_RULES[name]! : undefined;
  if (rules === undefined) return [];
  const paths = (rules.dirs ?? []).flatMap((spec) => optionValues(args, spec, rules).map((value): OptionFinding => ({ kind: 'path', op: 'cwd', value, base: cwd, chdir: spec.file !== true })));
  return [...formFindings(rules.forms, args, rules), ...paths, ...(rules.check?.(args) ?? [])];
}
