/**
 * Which git configuration keys may be set from a command line (`git -c key=value`, `git
 * --config-env key=VAR`, `git clone -c`, `git config key value`) without running anything: a
 * short list of keys known to be harmless (identity, colours, line endings, diff and log display,
 * pull/push/fetch/rebase/merge behaviour, …). Every other key counts as running code, since many
 * do (git-config(1): aliases, `core.pager`, `core.editor`, `core.sshCommand`, `core.fsmonitor`,
 * `core.hooksPath`, credential helpers, diff/merge/filter drivers, `gpg.program`, `include.path`,
 * `protocol.*.allow`, `safe.directory`, `submodule.*.update`, `trailer.*.command`,
 * `gc.recentObjectsHook`, …) and new ones appear with new git versions: a list of the dangerous
 * ones would fall behind, a list of harmless ones only refuses too much. Also git-config(1)'s
 * argument reading: which invocations write (any `key value`, `set`, `--add`, …).
 * Owns: the key lists and the config-subcommand reading. Imports nothing. Keys and values are
 * attacker-controlled.
 */

/** Whole sections whose keys set colours, advice, identity or pretty formats (any depth: `color.diff.meta`). */
const HARMLESS_SECTIONS = new Set(['color', 'advice', 'pretty']);

/** Keys (lower case) that set identity, display, line endings, transfer and history behaviour: none names a program, a file of code or more configuration. */
const HARMLESS_KEYS = new Set(
  `
user.name user.email user.signingkey user.useconfigonly author.name author.email committer.name committer.email
init.defaultbranch
core.autocrlf core.safecrlf core.eol core.quotepath core.filemode core.ignorecase core.abbrev core.longpaths core.symlinks
core.precomposeunicode core.whitespace core.compression core.bigfilethreshold core.logallrefupdates core.commentchar
core.commentstring core.untrackedcache core.preloadindex core.checkstat core.trustctime core.splitindex core.multipackindex
core.warnambiguousrefs core.sparsecheckout core.sparsecheckoutcone core.fscache
log.date log.decorate log.abbrevcommit log.follow log.mailmap log.showroot log.showsignature log.graphcolors log.excludedecoration log.initialdecorationset
format.pretty column.ui status.short status.branch status.showuntrackedfiles status.relativepaths status.submodulesummary status.aheadbehind status.renames
diff.noprefix diff.mnemonicprefix diff.renames diff.renamelimit diff.algorithm diff.colormoved diff.colormovedws diff.context diff.interhunkcontext
diff.indentheuristic diff.statgraphwidth diff.submodule diff.ignoresubmodules diff.relative diff.dirstat diff.suppressblankempty diff.wserrorhighlight
merge.ff merge.log merge.conflictstyle merge.renamelimit merge.renames merge.directoryrenames merge.stat merge.verbosity merge.autostash
pull.rebase pull.ff push.default push.autosetupremote push.followtags push.recursesubmodules push.usebitmaps
fetch.prune fetch.prunetags fetch.parallel fetch.recursesubmodules fetch.writecommitgraph fetch.fsckobjects fetch.showforcedupdates
rebase.autostash rebase.autosquash rebase.updaterefs rebase.stat rebase.abbreviatecommands rebase.missingcommitscheck rebase.instructionformat
branch.autosetupmerge branch.autosetuprebase branch.sort tag.sort versionsort.suffix
commit.gpgsign commit.verbose commit.cleanup commit.status tag.gpgsign tag.forcesignannotated push.gpgsign
checkout.defaultremote checkout.workers clone.defaultremotename clone.rejectshallow submodule.recurse submodule.fetchjobs
gc.auto gc.autodetach gc.autopacklimit maintenance.auto pack.threads index.threads index.version feature.manyfiles feature.experimental
protocol.version http.postbuffer http.version http.lowspeedlimit http.lowspeedtime http.maxrequests transfer.fsckobjects
i18n.commitencoding i18n.logoutputencoding rerere.enabled rerere.autoupdate stash.showpatch stash.showstat am.threeway apply.whitespace
blame.date blame.coloring grep.linenumber grep.patterntype grep.extendedregexp grep.column grep.fullname reset.quiet help.autocorrect
`
    .split(/\s+/)
    .filter(Boolean),
);

/** Keys that name a program, shell text or more configuration outright, for a reason that says so. */
const RUNS =
  /^(?:alias\.|pager\.|core\.(?:pager|editor|sshcommand|gitproxy|fsmonitor|hookspath|askpass|alternaterefscommand)$|sequence\.editor$|include\.|includeif\.|credential\.|diff\.external$|diff\..+\.(?:command|textconv)$|(?:diff|merge)tool\.|merge\..+\.driver$|filter\.|gpg\.|(?:web|browser|man|instaweb|guitool)\.|sendemail\.|interactive\.difffilter$|protocol\.(?:.+\.)?allow$|submodule\..+\.update$|trailer\..+\.(?:command|cmd)$|uploadpack\.packobjectshook$|init\.templatedir$|gc\.recentobjectshook$|remote\..+\.(?:uploadpack|receivepack|vcs)$|safe\.directory$)/;

export function harmlessGitKey(key: string): boolean {
  const k = key.toLowerCase();
  return HARMLESS_KEYS.has(k) || (HARMLESS_SECTIONS.has(k.split('.', 1)[0]!) && /^[a-z0-9-]+\.[^=]+$/.test(k));
}

/** `key=value` (or a bare key) set on a command line: false when harmless, else what runs (for a reason), value elided. */
export function gitSettingRuns(setting: string | undefined): false | string {
  if (setting === undefined) return 'a missing setting';
  const eq = setting.indexOf('=');
  const key = eq < 0 ? setting : setting.slice(0, eq);
  if (harmlessGitKey(key)) return false;
  const shown = eq < 0 ? key : `${key}=${setting.slice(eq + 1).startsWith('!') ? '!' : ''}…`;
  return RUNS.test(key.toLowerCase()) ? shown : `${shown}, a key not known to be harmless`;
}

const CONFIG_READ_ACTIONS = new Set([
  '--get',
  '--get-all',
  '--get-regexp',
  '--get-urlmatch',
  '--get-color',
  '--get-colorbool',
  '-l',
  '--list',
]);
const CONFIG_MODIFIERS = new Set([
  '--global',
  '--system',
  '--local',
  '--worktree',
  '--show-origin',
  '--show-scope',
  '--name-only',
  '--includes',
  '--no-includes',
  '--null',
  '-z',
  '--bool',
  '--int',
  '--bool-or-int',
  '--path',
  '--expiry-date',
  '--fixed-value',
  '--all',
  '--regexp',
]);
const CONFIG_VALUED = new Set(['-f', '--file', '--blob', '--type', '--default', '--value', '--url']);
/** Actions that only remove keys or sections: nothing new runs. */
const CONFIG_REMOVES = new Set(['--unset', '--unset-all', '--remove-section', 'unset', 'remove-section']);

/**
 * git-config(1): reads (`--get*`, `-l`/`--list`, `get`, `list`, a lone name) pass; every write,
 * `-e`/`--edit` and unknown options are refused (`why`). `runs`: the write sets a key not known to
 * be harmless, or renames a section (which can turn keys into aliases); removing keys and opening
 * the user's own editor run nothing the command line chose.
 */
export function configWrite(args: readonly string[]): { why: string; runs: false | string } | undefined {
  let read = false;
  let unknown: string | undefined;
  const options: string[] = [];
  const words: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const name = a.includes('=') && a.startsWith('--') ? a.slice(0, a.indexOf('=')) : a;
    if (CONFIG_READ_ACTIONS.has(name)) read = true;
    else if (CONFIG_VALUED.has(name)) {
      if (name === a) i++;
    } else if (CONFIG_MODIFIERS.has(name)) continue;
    else if (a.startsWith('-')) {
      unknown ??= a;
      options.push(name);
    } else words.push(a);
  }
  const action = words[0] === 'set' ? words.slice(1) : words;
  const runs = (): false | string => {
    if (options.some((o) => o === '--rename-section') || words[0] === 'rename-section')
      return 'a section renamed (its keys may become aliases)';
    if (options.some((o) => CONFIG_REMOVES.has(o)) || CONFIG_REMOVES.has(words[0] ?? '')) return false;
    if (options.some((o) => o === '-e' || o === '--edit')) return false;
    return action[0] === undefined ? 'a key not given' : gitSettingRuns(`${action[0]}=${action[1] ?? ''}`);
  };
  if (unknown !== undefined)
    return { why: `git config ${unknown} writes or edits configuration (only reads are allowed)`, runs: runs() };
  if (words[0] === 'get' || words[0] === 'list') return undefined;
  if (read || words.length <= 1) return undefined;
  return { why: 'git config with a name and a value writes configuration (only reads are allowed)', runs: runs() };
}
