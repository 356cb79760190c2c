/**
 * Option forms of commands that run other commands or load configuration, per command (looked up
 * by the command's base name), for guards that judge a command line (the ACP proxy's terminal
 * table, the kernel's shell-command guard). Each entry cites the man page its forms come from. git
 * and sed have their own readers (git.ts, sed.ts). Options that name a directory a command works
 * in, or a project file it builds (`-C`, `--prefix`, `--manifest-path`, `make -f`), are reported
 * as paths to judge like a working directory. A command not in the table: no findings. The table
 * can only refuse; it never allows anything another rule refuses. What runs (forms.ts `runs`):
 * every form here except find's actions (the command -exec runs is on the command line, judged as a
 * command of its own; -delete and -fprint write), and by value: `ssh -o` only with a keyword that
 * runs a program or loads a library or more configuration, `-F` unless `none`, tar `-I` unless a
 * known compressor (`-I zstd`), rsync `-e` unless `ssh` with options that run nothing.
 * Owns: the table and its matcher. Imports forms, the npm, git and sed readers.
 * Arguments are attacker-controlled.
 */
import { posix } from 'node:path';
import { formFindings, optionValues } from './forms.js';
import type { OptionFinding, OptionForm, RefusedFinding, Syntax } from './forms.js';
import { gitFindings } from './git.js';
import { NPM, NPX } from './npm.js';
import { sedFindings, STDIN_FILE } from './sed.js';

export interface CommandRules extends Syntax {
  source: string;
  /** Forms refused wherever they appear among the arguments. */
  forms: readonly OptionForm[];
  /** Options naming a directory the command works in (`-C`: it changes into it), or a project file whose scripts it runs (`file`): judged like a cwd. */
  dirs?: ReadonlyArray<{ long?: string; short?: string; file?: true }>;
  check?: (args: readonly string[], name: string) => OptionFinding[];
}

const refused = (arg: string, why: string, runs = true): OptionFinding => ({ kind: 'refused', arg, why, runs });
const longs = (names: string, why: string, runs?: OptionForm['runs']): OptionForm[] =>
  names.split(' ').map((long) => ({ long, why, ...(runs === undefined ? {} : { runs }) }));
const shorts = (letters: string, why: string, runs?: OptionForm['runs']): OptionForm[] =>
  [...letters].map((short) => ({ short, why, ...(runs === undefined ? {} : { runs }) }));

const MAKE_SYNTAX: Syntax = { abbreviates: true };

/** make(1) command-line variables: SHELL and .SHELLFLAGS run every recipe, MAKEFLAGS/MAKEFILES add options and makefiles, `!=` runs a shell command. */
const MAKE_VARIABLES = new Set([
  'SHELL',
  '.SHELLFLAGS',
  'MAKEFLAGS',
  'MFLAGS',
  'GNUMAKEFLAGS',
  'MAKEFILES',
  'MAKESHELL',
  'MAKE',
  '.RECIPEPREFIX',
]);

function makeCheck(args: readonly string[]): OptionFinding[] {
  // A makefile from standard input (`make -f - <<EOF`): its recipes are inline code.
  const stdin = [{ long: 'file' }, { long: 'makefile' }, { short: 'f' }]
    .flatMap((spec) => optionValues(args, spec, MAKE_SYNTAX))
    .find((v) => STDIN_FILE.test(v));
  const out: OptionFinding[] =
    stdin === undefined ? [] : [refused(`-f ${stdin}`, 'reads the makefile, whose recipes run, from standard input')];
  for (const a of args) {
    if (a.startsWith('-')) continue;
    const m = /^([^=]*?)\s*(:::|::|:|\?|\+|!)?=/.exec(a);
    if (m === null) continue;
    const name = m[1]!.trim();
    if (m[2] === '!') out.push(refused(a, 'a != assignment runs a shell command'));
    else if (MAKE_VARIABLES.has(name))
      out.push(refused(a, 'sets the shell, flags or makefiles every recipe uses (make(1))'));
    else out.push({ kind: 'env', arg: a, name, why: 'make passes it to recipes as the environment variable it names' });
  }
  return out;
}

/** ssh_config(5) keywords that run a program, load a library, or read more configuration (which may hold those). */
const SSH_RUNS = new Set([
  'proxycommand',
  'localcommand',
  'permitlocalcommand',
  'knownhostscommand',
  'include',
  'match',
  'pkcs11provider',
  'securitykeyprovider',
  'xauthlocation',
]);

/** `-o Keyword=value` / `-o "Keyword value"`: what runs, or false for any other keyword. */
function sshOption(value: string | undefined): string | false {
  const keyword = /^\s*([A-Za-z][A-Za-z0-9]*)(?:\s*=|\s|$)/.exec(value ?? '')?.[1];
  if (keyword === undefined)
    return `${value === undefined ? 'no value' : 'a value'} the guard cannot read as an ssh option`;
  return SSH_RUNS.has(keyword.toLowerCase()) ? `${keyword}=…` : false;
}

/** `-F none` and `-F /dev/null` read no configuration at all. */
const sshConfig = (value: string | undefined): string | false =>
  value === 'none' || value === '/dev/null' ? false : 'a configuration file (ProxyCommand, LocalCommand, Match exec …)';

/** tar -I/--use-compress-program: a known compressor, with flags only (no output file), runs nothing else. */
const COMPRESSOR =
  /^(?:gzip|pigz|bzip2|pbzip2|lbzip2|xz|pixz|zstd|pzstd|lz4|lzip|plzip|lzma|lzop|brotli|compress)(?: -[A-Za-np-z0-9]+| --(?!output)[a-z-]+(?:=[0-9]+)?)*$/;
const compressor = (value: string | undefined): boolean => value === undefined || !COMPRESSOR.test(value);

/**
 * rsync -e/--rsh: rsync splits the value into words itself (no shell) and runs them; `ssh` with
 * options is the ordinary transport, judged by ssh's own forms (`-e 'ssh -p 2222'` runs nothing
 * else, `-e 'ssh -o ProxyCommand=…'` does). Anything else, or quoting, runs a program.
 */
function rsyncShell(value: string | undefined): boolean | string {
  const words = value?.trim().split(/\s+/);
  if (words === undefined || words[0] !== 'ssh' || /['"\\]/.test(value!)) return true;
  const f = optionFindings('ssh', words.slice(1), undefined).find(
    (x): x is RefusedFinding => x.kind === 'refused' && x.runs,
  );
  return f === undefined ? false : `ssh ${f.detail ?? f.arg}`;
}

const SSH_WHY = '-o/-F set options such as ProxyCommand, LocalCommand, KnownHostsCommand';
const SCP_WHY = '-o/-F set ssh options such as ProxyCommand';

const VIM: CommandRules = {
  source: 'vim(1), nvim(1)',
  abbreviates: false,
  forms: [
    ...shorts('cS', 'runs an Ex command or sources a script'),
    ...shorts('uUs', 'loads a vimrc or a script of commands'),
    ...shorts('l', 'runs a Lua script (nvim -l)'),
    { long: 'cmd', why: 'runs an Ex command before any vimrc' },
    { match: /^--(remote|servername|listen)/, why: 'sends commands to, or opens, a server' },
    { match: /^\+(?!\d*$)/, why: '+{command} runs an Ex command' },
  ],
};

export const COMMAND_RULES: Record<string, CommandRules> = {
  npm: NPM,
  pnpm: NPM,
  yarn: NPM,
  npx: NPX,
  cargo: {
    source: 'cargo(1) (--config, -Z, +toolchain), rustc(1) (-C linker)',
    abbreviates: false,
    valued: 'FjpZ',
    forms: [
      { long: 'config', why: 'sets any config key: rustc wrappers, runners, linkers (cargo-config(5))' },
      ...shorts('Z', 'enables unstable flags, some of which run programs'),
      { match: /^\+.*\//, why: 'a +toolchain path runs the toolchain found there' },
      { match: /^(?:-C|--codegen=?)?(?:linker|link-args?)=/, why: 'names the linker rustc runs' },
    ],
    dirs: [{ long: 'manifest-path', file: true }],
  },
  make: {
    source: 'make(1)',
    abbreviates: true,
    valued: 'CEfIoW',
    forms: [
      { long: 'eval', why: 'evaluates makefile text, which may run commands' },
      { short: 'E', why: '-E/--eval evaluates makefile text' },
    ],
    dirs: [
      { long: 'directory' },
      { short: 'C' },
      { long: 'file', file: true },
      { long: 'makefile', file: true },
      { short: 'f', file: true },
    ],
    check: makeCheck,
  },
  find: {
    source: 'find(1) ACTIONS',
    abbreviates: false,
    forms: [
      // The command -exec runs is on the command line: a guard of shell commands judges it as a command of its own.
      ...['-exec', '-execdir', '-ok', '-okdir'].map((word) => ({ word, why: 'runs the command given', runs: false })),
      { word: '-delete', why: 'deletes what it finds', runs: false },
      ...['-fprint', '-fprint0', '-fprintf', '-fls'].map((word) => ({
        word,
        why: 'writes the file given',
        runs: false,
      })),
    ],
  },
  rg: {
    source: 'rg(1)',
    abbreviates: false,
    forms: [
      { long: 'pre', why: 'runs the preprocessor command given on every file' },
      { long: 'hostname-bin', why: 'runs the program given' },
    ],
  },
  tar: {
    source: 'tar(1) (GNU)',
    abbreviates: true,
    known: ['checkpoint'],
    valued: 'bCfFgHIKLNTVX',
    forms: [
      ...longs('to-command', 'runs the command given'),
      ...longs('use-compress-program', 'runs the command given', compressor),
      ...longs('checkpoint-action rsh-command info-script new-volume-script', 'runs the command given'),
      { short: 'I', why: '-I (--use-compress-program) / -F (--info-script) run the command given', runs: compressor },
      { short: 'F', why: '-I (--use-compress-program) / -F (--info-script) run the command given' },
    ],
    dirs: [{ long: 'directory' }, { short: 'C' }],
    // Old-style `tar xIf prog …`: the first word is a cluster of option letters without a dash.
    check: (args) =>
      args[0] !== undefined && !args[0].startsWith('-') && /[IF]/.test(args[0])
        ? [refused(args[0], 'an old-style option cluster with I or F runs the command given')]
        : [],
  },
  ssh: {
    source: 'ssh(1), ssh_config(5)',
    abbreviates: false,
    valued: 'bceilmopBDEFIJLOPQRSWw',
    optionsEnd: 'second-operand',
    forms: [
      { short: 'o', why: SSH_WHY, runs: sshOption },
      { short: 'F', why: SSH_WHY, runs: sshConfig },
      ...shorts('I', 'loads a PKCS#11 library'),
    ],
  },
  scp: {
    source: 'scp(1)',
    abbreviates: false,
    valued: 'DFJPSciloX',
    forms: [
      { short: 'o', why: SCP_WHY, runs: sshOption },
      { short: 'F', why: SCP_WHY, runs: sshConfig },
      ...shorts('SD', 'runs the program given for the connection'),
    ],
  },
  sftp: {
    source: 'sftp(1)',
    abbreviates: false,
    valued: 'bBcDFiJloPRsSX',
    forms: [
      { short: 'o', why: SCP_WHY, runs: sshOption },
      { short: 'F', why: SCP_WHY, runs: sshConfig },
      ...shorts('SD', 'runs the program given for the connection'),
    ],
  },
  rsync: {
    source: 'rsync(1)',
    abbreviates: true,
    valued: 'eBfMT',
    forms: [
      ...longs('rsh', 'runs the program given', rsyncShell),
      ...longs('rsync-path', 'runs the program given'),
      ...shorts('e', '-e/--rsh runs the program given', rsyncShell),
      ...longs('daemon config', 'runs a daemon whose config runs commands'),
    ],
  },
  zip: {
    source: 'zip(1)',
    abbreviates: true,
    forms: [
      { long: 'unzip-command', why: 'runs the command given to test the archive' },
      { match: /^-[^-]*TT/, why: '-TT runs the command given to test the archive' },
    ],
  },
  vim: VIM,
  vi: VIM,
  nvim: VIM,
  view: VIM,
  vimdiff: VIM,
  ex: VIM,
  gvim: VIM,
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
  const paths = (rules.dirs ?? []).flatMap((spec) =>
    optionValues(args, spec, rules).map(
      (value): OptionFinding => ({ kind: 'path', op: 'cwd', value, base: cwd, chdir: spec.file !== true }),
    ),
  );
  return [...formFindings(rules.forms, args, rules), ...paths, ...(rules.check?.(args, name) ?? [])];
}
