/**
 * What the shell guard knows about programs: which ones run other commands (wrappers, and how
 * their options take values), which ones interpret code (and which options hand them code inline),
 * which environment variables make a program load code, and which paths a recursive delete must
 * never reach. Option forms are from each program's manual (sudo(8), env(1), timeout(1), nice(1),
 * xargs(1), watch(1), flock(1), su(1), bash(1), python(1), node(1), perl(1), …).
 * Owns: these tables. Imports only node:path. Data, no decisions.
 */
import { posix } from 'node:path';

export interface WrapperSpec {
  /** Options that take the next word as their value (`-u root`). `--opt=value` forms are recognised anyway. */
  valueOptions: readonly string[];
  /** Positional words before the wrapped command (timeout's duration, chroot's root, flock's file). */
  positionals?: number;
  /** Options whose value is shell text the wrapper runs with `sh -c` (`su -c`, `flock -c`). */
  shellTextOptions?: readonly string[];
  /** The rest of the words are joined and run by `sh -c` (watch without -x). */
  joinsIntoShell?: boolean;
  /** The wrapper appends words it reads at run time to the wrapped command (xargs). */
  appendsUnknownArguments?: boolean;
  /** Options after which nothing runs (`command -v`). */
  lookupOnly?: readonly string[];
  /** Options whose value is split into words and run (`env -S`). */
  splitStringOptions?: readonly string[];
}

/** Programs that run the command given in their arguments. */
export const WRAPPERS: Readonly<Record<string, WrapperSpec>> = {
  sudo: {
    valueOptions: [
      '-u',
      '-g',
      '-h',
      '-p',
      '-C',
      '-D',
      '-r',
      '-t',
      '-T',
      '-U',
      '--user',
      '--group',
      '--host',
      '--prompt',
      '--chdir',
      '--role',
      '--type',
    ],
  },
  doas: { valueOptions: ['-u', '-C'] },
  pkexec: { valueOptions: ['--user'] },
  env: { valueOptions: ['-u', '-C', '--unset', '--chdir'], splitStringOptions: ['-S', '--split-string'] },
  command: { valueOptions: [], lookupOnly: ['-v', '-V'] },
  builtin: { valueOptions: [] },
  exec: { valueOptions: ['-a'] },
  nice: { valueOptions: ['-n', '--adjustment'] },
  nohup: { valueOptions: [] },
  setsid: { valueOptions: [] },
  time: { valueOptions: ['-f', '-o', '--format', '--output'] },
  timeout: { valueOptions: ['-s', '-k', '--signal', '--kill-after'], positionals: 1 },
  stdbuf: { valueOptions: ['-i', '-o', '-e', '--input', '--output', '--error'] },
  ionice: { valueOptions: ['-c', '-n', '-p', '-P', '-u', '--class', '--classdata'] },
  taskset: { valueOptions: ['-c', '--cpu-list'], positionals: 0 },
  chrt: { valueOptions: ['-T', '-P', '-D'], positionals: 1 },
  chroot: { valueOptions: ['--userspec', '--groups'], positionals: 1 },
  flock: {
    valueOptions: ['-w', '-E', '--timeout', '--conflict-exit-code'],
    positionals: 1,
    shellTextOptions: ['-c', '--command'],
  },
  su: {
    valueOptions: ['-s', '-g', '-G', '--shell', '--group', '--supp-group', '-w', '--whitelist-environment'],
    shellTextOptions: ['-c', '--command'],
  },
  runuser: {
    valueOptions: ['-u', '-s', '-g', '-G', '--user', '--shell', '--group'],
    shellTextOptions: ['-c', '--command'],
  },
  sg: { valueOptions: [], positionals: 1, shellTextOptions: ['-c'] },
  watch: { valueOptions: ['-n', '--interval', '-q', '--equexit'], joinsIntoShell: true },
  xargs: {
    valueOptions: [
      '-a',
      '-d',
      '-E',
      '-I',
      '-L',
      '-n',
      '-P',
      '-s',
      '--arg-file',
      '--delimiter',
      '--eof',
      '--replace',
      '--max-lines',
      '--max-args',
      '--max-procs',
      '--max-chars',
      '--process-slot-var',
    ],
    appendsUnknownArguments: true,
  },
  strace: { valueOptions: ['-o', '-e', '-p', '-s', '-u', '-E', '-a', '-b', '-O', '-S', '-X', '-P', '-I'] },
  ltrace: { valueOptions: ['-o', '-e', '-p', '-s', '-u', '-a', '-n', '-l'] },
  valgrind: { valueOptions: [] },
  unbuffer: { valueOptions: [] },
  busybox: { valueOptions: [] },
  toybox: { valueOptions: [] },
  catchsegv: { valueOptions: [] },
  firejail: { valueOptions: [] },
  nsenter: { valueOptions: ['-t', '-S', '-G', '--target', '--setuid', '--setgid'] },
  unshare: { valueOptions: [] },
  caffeinate: { valueOptions: ['-w', '-t'] },
  fakeroot: { valueOptions: ['-l', '--lib', '--faked', '-s', '-i', '-b'] },
  setpriv: {
    valueOptions: [
      '--reuid',
      '--regid',
      '--groups',
      '--inh-caps',
      '--ambient-caps',
      '--bounding-set',
      '--securebits',
      '--pdeathsig',
      '--selinux-label',
      '--apparmor-profile',
      '--landlock-access',
      '--landlock-rule',
    ],
  },
  prlimit: { valueOptions: ['-p', '--pid', '-o', '--output'] },
  chpst: { valueOptions: ['-u', '-U', '-e', '-/', '-n', '-l', '-L', '-m', '-d', '-o', '-p', '-f', '-c'] },
  'systemd-run': {
    valueOptions: [
      '-p',
      '--property',
      '--unit',
      '-u',
      '--slice',
      '-E',
      '--setenv',
      '--uid',
      '--gid',
      '--working-directory',
      '-M',
      '--machine',
      '-H',
      '--host',
      '--description',
      '--on-active',
      '--on-boot',
      '--on-calendar',
      '--on-unit-active',
      '--on-unit-inactive',
      '--timer-property',
      '--path-property',
      '--socket-property',
      '--service-type',
      '--nice',
    ],
  },
  perf: {
    valueOptions: [
      '-e',
      '--event',
      '-o',
      '--output',
      '-p',
      '--pid',
      '-t',
      '--tid',
      '-C',
      '--cpu',
      '-r',
      '--repeat',
      '-G',
      '--cgroup',
      '-x',
      '--field-separator',
      '-I',
      '--interval-print',
      '-F',
      '--freq',
      '-c',
      '--count',
    ],
    positionals: 1,
  },
  script: {
    valueOptions: [
      '-E',
      '--echo',
      '-t',
      '--timing',
      '-T',
      '--log-timing',
      '-I',
      '--log-in',
      '-O',
      '--log-out',
      '-B',
      '--log-io',
      '-m',
      '--logging-format',
    ],
    shellTextOptions: ['-c', '--command'],
  },
  parallel: {
    valueOptions: [
      '-j',
      '--jobs',
      '-a',
      '--arg-file',
      '-d',
      '--delimiter',
      '-S',
      '--sshlogin',
      '--joblog',
      '--results',
      '--tmpdir',
      '-I',
      '--replace',
      '--colsep',
      '--timeout',
    ],
    joinsIntoShell: true,
  },
  runcon: { valueOptions: ['-u', '-r', '-t', '-l'] },
};

export type InlineCodeForm = 'option' | 'stdin' | 'first-positional';

export interface InterpreterSpec {
  /** Options whose value (or the next word) is code: `-c`, `-e`. Short ones may be bundled (`-lc`, `-ec`). */
  codeOptions: readonly string[];
  /** Long options with the code as their value (`--eval`, `--eval=…`). */
  longCodeOptions?: readonly string[];
  /** Options that take a value which is not code (so the next word is not the script). */
  valueOptions?: readonly string[];
  /** The first positional word is the program text (awk, sed). */
  programIsFirstPositional?: boolean;
  /** Options that make the program come from a file instead (awk -f, sed -f). */
  programFileOptions?: readonly string[];
  /** A shell: its inline code can be parsed and judged like any command. */
  shell?: boolean;
  /** Reads its program from standard input when given no script (`curl … | python3`). */
  readsStdin?: boolean;
}

const SHELL: InterpreterSpec = {
  codeOptions: ['-c'],
  valueOptions: ['-o', '-O', '+o', '+O', '--rcfile', '--init-file'],
  shell: true,
  readsStdin: true,
};

/** Programs that run code they are given. Matched by basename; versioned names (`python3.12`) by prefix rules below. */
export const INTERPRETERS: Readonly<Record<string, InterpreterSpec>> = {
  sh: SHELL,
  bash: SHELL,
  zsh: SHELL,
  dash: SHELL,
  ksh: SHELL,
  mksh: SHELL,
  ash: SHELL,
  rbash: SHELL,
  yash: SHELL,
  posh: SHELL,
  fish: { codeOptions: ['-c'], longCodeOptions: ['--command', '--init-command'], readsStdin: true },
  csh: { codeOptions: ['-c'], readsStdin: true },
  tcsh: { codeOptions: ['-c'], readsStdin: true },
  python: { codeOptions: ['-c'], valueOptions: ['-m', '-W', '-X', '-Q'], readsStdin: true },
  pypy: { codeOptions: ['-c'], valueOptions: ['-m', '-W', '-X'], readsStdin: true },
  node: {
    codeOptions: ['-e', '-p'],
    longCodeOptions: ['--eval', '--print'],
    valueOptions: [
      '-r',
      '--require',
      '--import',
      '--loader',
      '--experimental-loader',
      '--input-type',
      '-C',
      '--conditions',
    ],
    readsStdin: true,
  },
  nodejs: {
    codeOptions: ['-e', '-p'],
    longCodeOptions: ['--eval', '--print'],
    valueOptions: ['-r', '--require', '--import'],
    readsStdin: true,
  },
  bun: { codeOptions: ['-e', '-p'], longCodeOptions: ['--eval', '--print'] },
  deno: { codeOptions: [], longCodeOptions: ['eval'] },
  perl: { codeOptions: ['-e', '-E'], valueOptions: ['-I', '-M', '-m', '-x'], readsStdin: true },
  ruby: { codeOptions: ['-e'], valueOptions: ['-I', '-r', '-C'], readsStdin: true },
  php: { codeOptions: ['-r', '-B', '-R', '-E'], valueOptions: ['-c', '-d', '-z'], readsStdin: true },
  lua: { codeOptions: ['-e'], valueOptions: ['-l'], readsStdin: true },
  luajit: { codeOptions: ['-e'], valueOptions: ['-l'], readsStdin: true },
  tclsh: { codeOptions: [], readsStdin: true },
  wish: { codeOptions: [], readsStdin: true },
  rscript: { codeOptions: ['-e'] },
  r: { codeOptions: ['-e'], readsStdin: true },
  osascript: { codeOptions: ['-e'], readsStdin: true },
  pwsh: { codeOptions: ['-c', '-Command', '-command', '-e', '-EncodedCommand', '-enc'], readsStdin: true },
  powershell: { codeOptions: ['-c', '-Command', '-command', '-e', '-EncodedCommand', '-enc'], readsStdin: true },
  jshell: { codeOptions: [], readsStdin: true },
  expect: { codeOptions: ['-c'], valueOptions: ['-f'], readsStdin: true },
  groovy: { codeOptions: ['-e'] },
  scala: { codeOptions: ['-e'] },
  php8: { codeOptions: ['-r'], readsStdin: true },
  eval: { codeOptions: [], programIsFirstPositional: true },
};

/** awk and sed run the program text they are given; it is code only when it reaches out (system(), pipes, `e`). */
export const TEXT_PROGRAMS: Readonly<Record<string, InterpreterSpec>> = {
  awk: {
    codeOptions: [],
    programIsFirstPositional: true,
    programFileOptions: ['-f', '--file'],
    valueOptions: ['-F', '-v', '--assign', '--field-separator'],
  },
  gawk: {
    codeOptions: [],
    programIsFirstPositional: true,
    programFileOptions: ['-f', '--file'],
    valueOptions: ['-F', '-v', '--assign', '--field-separator'],
  },
  mawk: { codeOptions: [], programIsFirstPositional: true, programFileOptions: ['-f'], valueOptions: ['-F', '-v'] },
  nawk: { codeOptions: [], programIsFirstPositional: true, programFileOptions: ['-f'], valueOptions: ['-F', '-v'] },
  sed: {
    codeOptions: ['-e', '--expression'],
    programIsFirstPositional: true,
    programFileOptions: ['-f', '--file'],
    valueOptions: ['-l', '--line-length'],
  },
};

/** The interpreter a program name stands for: `/usr/bin/python3.12` → python, `bash` → bash. */
export function interpreterName(program: string): string | undefined {
  const base = posix.basename(program).toLowerCase();
  if (INTERPRETERS[base] !== undefined) return base;
  const m = /^(python|pypy|perl|ruby|php|lua|node|pwsh)[0-9.]*(?:-[a-z0-9]+)?$/.exec(base);
  if (m !== null) return m[1] === 'pwsh' ? 'pwsh' : m[1];
  if (base === 'rscript') return 'rscript';
  return undefined;
}

/** Environment variables that make a program load or run other code (ld.so(8), bash(1), node(1), git-config(1), python(1), perl(1), …). */
export const CODE_LOADING_ENV: readonly string[] = [
  'LD_PRELOAD',
  'LD_LIBRARY_PATH',
  'LD_AUDIT',
  'BASH_ENV',
  'ENV',
  'PROMPT_COMMAND',
  'SHELLOPTS',
  'BASHOPTS',
  'PS4',
  'NODE_OPTIONS',
  'NODE_PATH',
  'PYTHONSTARTUP',
  'PYTHONPATH',
  'PYTHONHOME',
  'PERL5OPT',
  'PERL5LIB',
  'PERLLIB',
  'RUBYOPT',
  'RUBYLIB',
  'JAVA_TOOL_OPTIONS',
  '_JAVA_OPTIONS',
  'JDK_JAVA_OPTIONS',
  'GIT_SSH',
  'GIT_SSH_COMMAND',
  'GIT_EXEC_PATH',
  'GIT_ASKPASS',
  'SSH_ASKPASS',
  'GIT_EDITOR',
  'GIT_PAGER',
  'GIT_EXTERNAL_DIFF',
  'GIT_PROXY_COMMAND',
  'GIT_TEMPLATE_DIR',
  'GIT_CONFIG',
  'GIT_CONFIG_GLOBAL',
  'GIT_CONFIG_SYSTEM',
  'GIT_CONFIG_PARAMETERS',
  'GIT_CONFIG_COUNT',
  'GIT_DIR',
  'GIT_COMMON_DIR',
  'EDITOR',
  'VISUAL',
  'PAGER',
  'LESSOPEN',
  'LESSCLOSE',
  'PATH',
  'IFS',
  'RUSTC_WRAPPER',
  'GOFLAGS',
  'MAKEFLAGS',
  'MFLAGS',
  'GNUMAKEFLAGS',
  'TAR_OPTIONS',
  'RSYNC_RSH',
  'RIPGREP_CONFIG_PATH',
  'PYTHONWARNINGS',
  'GCONV_PATH',
  'OPENSSL_CONF',
  'GIT_SEQUENCE_EDITOR',
  'SEQUENCE_EDITOR',
  'MANPAGER',
  'BROWSER',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_INDEX_FILE',
];
const CODE_LOADING_ENV_PREFIXES = [
  'LD_',
  'DYLD_',
  'GIT_CONFIG_KEY_',
  'GIT_CONFIG_VALUE_',
  'CARGO_TARGET_',
  'BASH_FUNC_',
];

/**
 * Does setting `variable` make a program load or run other code? In a shell command (`shell`),
 * PATH is not counted: the command may run any program by its path anyway, and build commands
 * routinely extend PATH. For a process started from an allow-list of programs (`process`), PATH
 * decides which program a name runs, so it counts.
 */
export function loadsCode(variable: string, context: 'shell' | 'process'): boolean {
  if (variable === 'PATH') return context === 'process';
  if (CODE_LOADING_ENV.includes(variable)) return true;
  if (/^npm_config_/i.test(variable)) return true;
  return CODE_LOADING_ENV_PREFIXES.some((p) => variable.startsWith(p));
}

/** Programs that open network connections (their URL arguments are judged by internal-network). */
export const NETWORK_PROGRAMS = new Set([
  'curl',
  'wget',
  'nc',
  'ncat',
  'netcat',
  'socat',
  'telnet',
  'ssh',
  'scp',
  'sftp',
  'ftp',
  'rsync',
  'http',
  'https',
  'xh',
  'aria2c',
  'lynx',
  'w3m',
]);
/** Programs whose `-e`/`-c` options run a command on connection. */
export const EXEC_ON_CONNECT: Readonly<Record<string, readonly string[]>> = {
  nc: ['-e', '-c'],
  ncat: ['-e', '-c', '--exec', '--sh-exec', '--lua-exec'],
  netcat: ['-e', '-c'],
};

/** Programs a value's first word may name for the value to be read as a command (arguments.ts). */
const KNOWN_PROGRAMS = new Set([
  ...Object.keys(WRAPPERS),
  ...Object.keys(INTERPRETERS),
  ...Object.keys(TEXT_PROGRAMS),
  ...NETWORK_PROGRAMS,
  'rm',
  'rmdir',
  'mv',
  'cp',
  'ln',
  'dd',
  'shred',
  'wipefs',
  'mkfs',
  'mount',
  'umount',
  'chmod',
  'chown',
  'chgrp',
  'kill',
  'killall',
  'pkill',
  'cat',
  'less',
  'more',
  'head',
  'tail',
  'tac',
  'nl',
  'od',
  'xxd',
  'hexdump',
  'strings',
  'base64',
  'grep',
  'egrep',
  'fgrep',
  'rg',
  'find',
  'ls',
  'tar',
  'zip',
  'unzip',
  'gzip',
  'gunzip',
  'git',
  'npm',
  'npx',
  'pnpm',
  'yarn',
  'pip',
  'pip3',
  'cargo',
  'make',
  'docker',
  'kubectl',
  'crontab',
  'systemctl',
  'service',
  'shutdown',
  'reboot',
  'halt',
  'poweroff',
  'iptables',
  'useradd',
  'usermod',
  'passwd',
  'visudo',
  'source',
  '.',
  'alias',
  'export',
  'declare',
  'set',
  'truncate',
  'tee',
  'install',
  'cd',
]);

export function isKnownProgram(word: string): boolean {
  const base = posix.basename(word.replace(/^\\/, '')).toLowerCase();
  return KNOWN_PROGRAMS.has(base) || interpreterName(base) !== undefined || /^mkfs(\.\w+)?$/.test(base);
}

/** Top-level directories whose recursive removal (or that of `/` itself) destroys the system. */
export const SYSTEM_DIRECTORIES = new Set([
  '/',
  '/bin',
  '/boot',
  '/dev',
  '/etc',
  '/home',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/media',
  '/mnt',
  '/opt',
  '/proc',
  '/root',
  '/run',
  '/sbin',
  '/snap',
  '/srv',
  '/sys',
  '/tmp',
  '/usr',
  '/var',
  '/Users',
  '/System',
  '/Library',
  '/Applications',
  '/private',
]);
