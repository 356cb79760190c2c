/**
 * The npm family's option forms and subcommands that run other code (npm-config(7), npm-exec(1),
 * npm-init(1), the pnpm and yarn CLIs): options naming a program, node options, configuration or
 * hook code to load; subcommands that run a package or code they are given (`exec`, `x`, `dlx`,
 * `explore`, `edit`, `node`, `create`, `init <initializer>`) or write configuration later runs read
 * (`set`, `config set`). npm's own options end at `--` (the rest goes to the script). `npx
 * <package>` is the command itself running a package — fetched from the registry and run without a
 * prompt when the project does not have it and no terminal is attached (libnpmexec) — unless
 * `--no` (`--no-yes`, `--yes=false`, npx's `--no-install`) says to run only what is installed
 * (`--no` is npm's shorthand for `--no-yes`, not an abbreviation of `--node-options`).
 * Owns: these forms and the subcommand reading. Imports forms. Arguments are attacker-controlled.
 */
import type { OptionFinding, OptionForm, Syntax } from './forms.js';

export interface NpmRules extends Syntax {
  source: string;
  forms: readonly OptionForm[];
  dirs: ReadonlyArray<{ long?: string; short?: string; file?: true }>;
  check: (args: readonly string[], name: string) => OptionFinding[];
}

const refused = (arg: string, why: string, runs = true): OptionFinding => ({ kind: 'refused', arg, why, runs });
const longs = (names: string, why: string): OptionForm[] => names.split(' ').map((long) => ({ long, why }));

/** Subcommands that run a package or code they are given: npm-exec(1) (exec, x), npm-explore(1), npm-edit(1), pnpm dlx/exec/create, yarn dlx/exec/node/create. */
const NPM_RUNS = new Set(['exec', 'x', 'dlx', 'explore', 'edit', 'node', 'create', 'set']);
const NPM_COMMANDS = new Set(
  'access add audit bugs cache ci completion config c dedupe deprecate diff dist-tag docs doctor fund help hook install i install-ci-test install-test it link ln list ls login logout org outdated owner pack ping pkg prefix profile prune publish query rebuild repo restart root run run-script rum start stop team test t tst token uninstall rm un unpublish unstar update up upgrade version view info show whoami why'.split(
    ' ',
  ),
);

/** The flags before the package (up to `--`) say to run only installed packages: the last of `--no`… and `--yes`/`-y` wins. */
function localOnly(flags: readonly string[]): boolean {
  let local = false;
  for (const f of flags) {
    if (f === '--') break;
    if (['--no', '--no-yes', '--yes=false', '--no-install'].includes(f)) local = true;
    else if (['--yes', '-y', '--yes=true'].includes(f)) local = false;
  }
  return local;
}

function npmCheck(args: readonly string[], name: string): OptionFinding[] {
  const at = args.findIndex((a) => !a.startsWith('-'));
  if (at < 0) return [];
  // `npm --prefix x exec`: the first word may be an option's value, so an unknown first word after a
  // `--name` without `=` makes the next word a candidate too.
  const candidates = [args[at]!];
  const prev = args[at - 1];
  if (prev?.startsWith('-') && !prev.includes('=') && !NPM_COMMANDS.has(args[at]!) && !NPM_RUNS.has(args[at]!)) {
    const next = args.slice(at + 1).find((a) => !a.startsWith('-'));
    if (next !== undefined) candidates.push(next);
  }
  for (const word of candidates) {
    const after = args.slice(args.indexOf(word) + 1);
    const rest = after.filter((a) => !a.startsWith('-'));
    if (NPM_RUNS.has(word)) {
      // npm exec --no: only packages the project (or the global prefix) has, nothing fetched.
      const pkgAt = after.findIndex((a) => !a.startsWith('-'));
      const local =
        name === 'npm' &&
        (word === 'exec' || word === 'x') &&
        localOnly([...args.slice(0, args.indexOf(word)), ...(pkgAt < 0 ? after : after.slice(0, pkgAt))]);
      return [
        refused(
          word,
          word === 'set'
            ? 'writes npm configuration that later runs read (script-shell, node-options…)'
            : 'runs a package or code it is given',
          !local,
        ),
      ];
    }
    if ((word === 'init' || word === 'innit') && rest.length > 0)
      return [refused(`${word} ${rest[0]}`, 'runs the create-<initializer> package (npm-init(1))')];
    if ((word === 'config' || word === 'c') && rest.length > 0 && !['get', 'list', 'ls'].includes(rest[0]!))
      return [
        refused(`${word} ${rest[0]}`, 'writes npm configuration that later runs read (script-shell, node-options…)'),
      ];
  }
  return [];
}

/** npx's options that take the next word (npx-cli.js). */
const NPX_VALUED = new Set([
  '-p',
  '--package',
  '-c',
  '--call',
  '--cache',
  '--userconfig',
  '--shell',
  '--npm',
  '-n',
  '--node-arg',
]);

/** `npx <package>`: the command itself runs the package, unless `--no` keeps it to installed ones. */
function npxCheck(args: readonly string[]): OptionFinding[] {
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      i++;
      break;
    }
    if (!a.startsWith('-')) break;
    if (NPX_VALUED.has(a)) i++;
  }
  const pkg = args[i];
  if (pkg === undefined || localOnly(args.slice(0, i))) return [];
  return [
    {
      kind: 'refused',
      arg: pkg,
      why: 'runs the package it is given, fetched from the registry when it is not installed (npm-exec(1)); npx --no runs only installed ones',
      runs: true,
      commandItself: true,
    },
  ];
}

export const NPM_FORMS: OptionForm[] = [
  ...longs(
    'node-options script-shell shell git node-gyp',
    'names a program or node options that npm runs (npm-config(7))',
  ),
  ...longs(
    'userconfig globalconfig init-module onload-script editor browser',
    'loads configuration or code, or runs an editor/browser (npm-config(7))',
  ),
  ...longs('call', 'runs the command given (npm-exec(1))'),
  { short: 'c', why: '-c/--call runs the command given (npm-exec(1), pnpm exec -c)' },
  ...longs('pnpmfile global-pnpmfile', 'loads hook code (pnpm)'),
  ...longs('use-yarnrc yarn-path', 'loads a yarnrc or a yarn release to run (yarn)'),
  { match: /^--config\./, why: 'sets any config key (pnpm --config.<key>)' },
];

export const NPM: NpmRules = {
  source: 'npm-config(7), npm-exec(1), npm-init(1), pnpm CLI, yarn CLI',
  abbreviates: true,
  underscores: true,
  known: ['global', 'no'],
  optionsEnd: 'dash-dash',
  forms: NPM_FORMS,
  dirs: [{ long: 'prefix' }, { long: 'dir' }, { long: 'cwd' }, { short: 'C' }],
  check: npmCheck,
};

/** npx: npm's forms up to the package (its arguments are the package's), and the package itself. */
export const NPX: NpmRules = { ...NPM, optionsEnd: 'first-operand', check: npxCheck };
