/**
 * git's option forms that run other commands or load configuration.
 * Global options (git(1) OPTIONS, parsed exactly as git.c handle_options does: no abbreviation)
 * come before the subcommand: `-c`, `-c<k=v>`, `--config-env`, `--exec-path`, `--bare` are
 * refused; `-C`, `--git-dir`, `--work-tree` name directories to judge like a cwd (relative ones
 * against the cwd as moved by earlier `-C`s), and `--git-dir` must lie in a `.git` directory (the
 * only kind whose files an agent cannot write).
 * Then per subcommand (each form from that subcommand's man page, git-<sub>(1)); an unknown
 * subcommand (an alias, an external git-foo) gets the union of all of them, since its expansion
 * is not visible here. Everywhere: `ext::` transport URLs (git-remote-ext(1)) and `--output` /
 * `-o` paths judged as writes. What runs (`runs`): configuration set on the command line whose key
 * is not known to be harmless (git-config.ts: `-c user.name=…` runs nothing, `-c alias.x=!…` does),
 * `--exec-path=`, a repository outside a `.git` directory, and the subcommand forms that name a
 * program — not creating a bare repository, `fetch -u` (`--update-head-ok`) or removing keys.
 * Owns: git's rules. Imports forms, the key lists and the guards' path resolution. Arguments are
 * attacker-controlled.
 */
import { posix } from 'node:path';
import { resolvedPath } from '../../paths.js';
import { formFindings, optionValues } from './forms.js';
import type { OptionFinding, OptionForm, Syntax } from './forms.js';
import { configWrite, gitSettingRuns } from './git-config.js';

const SYNTAX: Syntax = { abbreviates: true };
const RUNS = 'names a program git runs';

export interface SubRule {
  forms?: readonly OptionForm[];
  /** The first non-option word that makes the subcommand run a command. */
  words?: readonly string[];
  /** The whole subcommand runs code it is given. */
  all?: string;
}

export const GIT_SUBCOMMANDS: Record<string, SubRule> = {
  // git-clone(1)
  clone: {
    forms: [
      { short: 'u', why: `--upload-pack ${RUNS}` },
      { long: 'upload-pack', why: RUNS },
      { long: 'template', why: 'copies hooks from the template directory' },
      {
        short: 'c',
        why: 'sets configuration in the new repository (hooks path, fsmonitor, aliases…)',
        runs: gitSettingRuns,
      },
      { long: 'config', why: 'sets configuration in the new repository', runs: gitSettingRuns },
      { long: 'bare', why: 'creates a repository outside a .git directory', runs: false },
      { long: 'mirror', why: 'creates a bare repository', runs: false },
      { long: 'separate-git-dir', why: 'puts the repository outside a .git directory', runs: false },
    ],
  },
  // git-fetch(1), git-pull(1), git-ls-remote(1), git-fetch-pack(1): --upload-pack / -u (fetch's -u is
  // --update-head-ok, refused with the others).
  fetch: {
    forms: [
      { short: 'u', why: `-u/--upload-pack ${RUNS}`, runs: false },
      { long: 'upload-pack', why: RUNS },
    ],
  },
  pull: {
    forms: [
      { short: 'u', why: `-u/--upload-pack ${RUNS}` },
      { long: 'upload-pack', why: RUNS },
    ],
  },
  'ls-remote': {
    forms: [
      { short: 'u', why: `-u/--upload-pack ${RUNS}` },
      { long: 'upload-pack', why: RUNS },
    ],
  },
  'fetch-pack': {
    forms: [
      { long: 'upload-pack', why: RUNS },
      { long: 'exec', why: RUNS },
    ],
  },
  // git-archive(1): --exec (with --remote).
  archive: { forms: [{ long: 'exec', why: RUNS }] },
  // git-push(1), git-send-pack(1).
  push: {
    forms: [
      { long: 'receive-pack', why: RUNS },
      { long: 'exec', why: RUNS },
    ],
  },
  'send-pack': {
    forms: [
      { long: 'receive-pack', why: RUNS },
      { long: 'exec', why: RUNS },
    ],
  },
  // git-init(1).
  init: {
    forms: [
      { long: 'template', why: 'copies hooks from the template directory' },
      { long: 'bare', why: 'creates a repository outside a .git directory', runs: false },
      { long: 'separate-git-dir', why: 'puts the repository outside a .git directory', runs: false },
    ],
  },
  // git-difftool(1), git-rebase(1), git-grep(1), git-send-email(1), git-daemon(1).
  difftool: {
    forms: [
      { short: 'x', why: '-x/--extcmd runs the command given' },
      { long: 'extcmd', why: 'runs the command given' },
    ],
  },
  rebase: {
    forms: [
      { short: 'x', why: '-x/--exec runs the command given after each commit' },
      { long: 'exec', why: 'runs the command given after each commit' },
    ],
  },
  grep: {
    forms: [
      { short: 'O', why: '-O/--open-files-in-pager runs the pager given' },
      { long: 'open-files-in-pager', why: 'runs the pager given' },
    ],
  },
  'send-email': {
    forms: ['sendmail-cmd', 'smtp-server', 'to-cmd', 'cc-cmd', 'header-cmd'].map((long) => ({
      long,
      why: 'runs the command given',
    })),
  },
  daemon: { forms: [{ long: 'access-hook', why: 'runs the command given for each request' }] },
  // git-bisect(1) `run`, git-submodule(1) `foreach`.
  bisect: { words: ['run'] },
  submodule: { words: ['foreach'] },
  // git-filter-branch(1) (its filters are shell code), git-filter-repo (Python callbacks), git-instaweb(1) (starts a web server and a browser).
  'filter-branch': { all: 'its filters are shell commands' },
  'filter-repo': { all: 'its callbacks are Python code' },
  instaweb: { all: 'starts a web server and a browser it names' },
};

const EVERYWHERE: readonly OptionForm[] = [
  { match: /^ext::/, why: 'the ext:: transport runs the command in the URL (git-remote-ext(1))' },
];

const refused = (arg: string, why: string, runs: false | string | true = true): OptionFinding => ({
  kind: 'refused',
  arg,
  why,
  runs: runs !== false,
  ...(typeof runs === 'string' ? { detail: runs } : {}),
});

function firstWord(args: readonly string[]): string | undefined {
  return args.find((a) => !a.startsWith('-'));
}

/** What this git argv refuses or names, in order (the global options as git reads them, then the subcommand's). */
export function gitFindings(args: readonly string[], cwd: string | undefined): OptionFinding[] {
  const out: OptionFinding[] = [];
  let base = cwd;
  let i = 0;
  // Global options, exactly as git.c handle_options reads them.
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith('-')) break;
    if (a === '-c' || /^-c./.test(a)) {
      out.push(
        refused(
          a,
          'sets configuration: aliases, hooks paths, fsmonitor, pagers and helpers in it run commands',
          gitSettingRuns(a === '-c' ? args[++i] : a.slice(2)),
        ),
      );
      continue;
    }
    if (a === '--config-env' || a.startsWith('--config-env=')) {
      out.push(
        refused(
          a,
          'sets configuration from the environment',
          gitSettingRuns(a === '--config-env' ? args[++i] : a.slice('--config-env='.length)),
        ),
      );
      continue;
    }
    // A bare `--exec-path` prints where the sub-programs are.
    if (a === '--exec-path' || a.startsWith('--exec-path='))
      out.push(refused(a, 'moves where git finds its sub-programs', a !== '--exec-path'));
    if (a === '--bare') out.push(refused(a, 'uses a repository outside a .git directory'));
    const valued = [
      '-C',
      '--git-dir',
      '--work-tree',
      '--namespace',
      '--super-prefix',
      '--list-cmds',
      '--attr-source',
    ].find((o) => a === o || a.startsWith(`${o}=`));
    if (valued === undefined) continue;
    const value = a === valued ? args[++i] : a.slice(valued.length + 1);
    if (value === undefined || !['-C', '--git-dir', '--work-tree'].includes(valued) || value === '') continue;
    out.push({ kind: 'path', op: 'cwd', value, base, chdir: valued === '-C' });
    // Against a base not known the directory stays relative (a reader with several bases resolves it against each).
    const target =
      value.startsWith('/') || base?.startsWith('/') === true
        ? posix.resolve(base ?? '/', value)
        : base === undefined
          ? value
          : posix.join(base, value);
    const forms = target.startsWith('/') ? [target, resolvedPath(target)] : [target];
    if (valued === '--git-dir' && !forms.every((p) => p.split('/').includes('.git')))
      out.push(
        refused(
          a,
          'names a repository outside a .git directory, whose hooks and configuration the agent could have written',
          `a repository at ${value}`,
        ),
      );
    if (valued === '-C') base = target;
  }
  const sub = args[i];
  const rest = args.slice(i + 1);
  if (sub === undefined) return out;
  out.push(...formFindings(EVERYWHERE, args, SYNTAX));
  for (const spec of [
    { long: 'output' },
    ...(sub === 'archive' ? [{ short: 'o' }] : []),
    ...(sub === 'format-patch' ? [{ short: 'o', long: 'output-directory' }] : []),
  ]) {
    for (const value of optionValues(rest, spec, SYNTAX))
      out.push({ kind: 'path', op: 'write', value, base, chdir: false });
  }
  if (sub === 'config') {
    const write = configWrite(rest);
    if (write !== undefined) out.push(refused(`config ${rest.join(' ')}`.trim(), write.why, write.runs));
    return out;
  }
  const known = Object.hasOwn(GIT_SUBCOMMANDS, sub) ? GIT_SUBCOMMANDS[sub]! : undefined;
  const rules: SubRule[] =
    known !== undefined
      ? [known]
      : BUILTINS.has(sub)
        ? []
        : Object.values(GIT_SUBCOMMANDS).filter((r) => r.all === undefined);
  for (const rule of rules) {
    if (rule.all !== undefined) out.push(refused(sub, rule.all));
    out.push(...formFindings(rule.forms ?? [], rest, SYNTAX).map((f) => ({ ...f, arg: `${sub} ${f.arg}` })));
    const w = firstWord(rest);
    if (w !== undefined && (rule.words ?? []).includes(w)) out.push(refused(`${sub} ${w}`, 'runs the command given'));
  }
  return out;
}

/** Subcommands with no refused form: judged by their own (empty) rule, not the union. git help -a. */
const BUILTINS = new Set(
  (
    'add am annotate apply blame branch bundle cat-file check-attr check-ignore checkout cherry cherry-pick clean commit ' +
    'commit-tree count-objects describe diff diff-files diff-index diff-tree fsck gc hash-object help log ls-files ls-tree merge merge-base mv notes ' +
    'range-diff reflog remote repack replace reset restore rev-list rev-parse revert rm shortlog show show-ref sparse-checkout stash status switch ' +
    'tag update-index update-ref var verify-commit verify-tag version whatchanged worktree write-tree format-patch maintenance'
  ).split(' '),
);
