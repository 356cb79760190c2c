/**
 * Judges parsed shell text command by command: variables that load code, program names computed
 * at run time, wrappers looked through, interpreters handed inline code, option forms that run
 * other commands (option-rule.ts), destructive commands, network abuse, reading whole trees that
 * hold keys — and collects what other guards must still judge: every word that may be a path, the
 * URLs and hosts it reaches, the directories it changes into, and the shell code it runs in turn
 * (`bash -c …`, `su -c …`, `watch …`, scripts run from files), which the caller parses and judges
 * the same way.
 * Owns: the per-command rule order. Imports the shell rule modules. Everything judged is attacker-controlled.
 */
import { posix } from 'node:path';
import { destructiveReason, deviceWrite, selfCallingFunction } from './destructive.js';
import type { Places } from './destructive.js';
import { inlineCode, textProgram } from './interpreters.js';
import { commandTargets, networkReason, unjudgeableNetwork } from './network.js';
import { optionRule } from './option-rule.js';
import type { ParsedShell, SimpleCommand, StdinSource } from './parser.js';
import { loadsCode } from './programs.js';
import { RUNNER_PROGRAMS, runnerOutcome } from './runners.js';
import { plantedRepository } from './git-repository.js';
import { treeReadReason } from './reads.js';
import { readShellScript, shellScriptOf } from './scripts.js';
import { dynamicNameReason, programName, unwrap } from './unwrap.js';
import type { Field } from './words.js';

export interface ShellSettings {
  /** Interpreters (by name: `bash`, `python`, `node`, `eval`, …) that may be given inline code. */
  allowedInterpreters: ReadonlySet<string>;
  places: Places;
  /** The forbidden pattern a path matches, if any (absent when forbidden-path is off). */
  forbids?: (path: string) => string | undefined;
}

export interface ShellJudgement {
  deny: string | undefined;
  /** Every word that may name a file: arguments, assigned values, redirection targets, loop items. */
  pathWords: Field[];
  /** URL and host texts the commands reach. */
  targets: string[];
  /** Shell code the commands run in turn (to be parsed and judged). */
  nested: string[];
  /** Directories the text changes into (`cd`, `pushd`): more bases for its relative paths. */
  directories: string[];
  /** Shell scripts the commands run from files (their text, to be parsed and judged). */
  scripts: string[];
}

const UNKNOWN_ARGUMENT: Field = {
  value: undefined,
  pattern: '*',
  glob: false,
  unknown: 'arguments read at run time',
  procSubst: false,
};

/**
 * Where the text's commands may run: the bases, every directory it `cd`s or `pushd`es into
 * (wherever the `cd` stands: a loop or a function may run it first), and whether one of those is
 * decided at run time.
 */
function cdPlaces(parsed: ParsedShell, places: Places): Places {
  const dirs: string[] = [];
  let unknown = places.cwdUnknown === true;
  for (const c of parsed.commands) {
    const name = programName(c.argv[0]);
    if (name !== 'cd' && name !== 'pushd' && name !== 'popd' && name !== 'chdir') continue;
    const target = c.argv.slice(1).find((f) => f.value === undefined || !f.value.startsWith('-') || f.value === '-');
    if (
      name === 'popd' ||
      target?.value === '-' ||
      (target !== undefined && (target.value === undefined || target.glob))
    )
      unknown = true;
    else if (target === undefined) dirs.push('~');
    else if (parsed.movesCd && !target.value!.startsWith('/')) unknown = true;
    else dirs.push(target.value!);
  }
  if (parsed.movesCd && dirs.includes('~')) unknown = true;
  return {
    home: places.home,
    bases: [...new Set([...places.bases, ...resolveDirectories(dirs, places)])],
    cwdUnknown: unknown,
  };
}

/** What one text's rules need besides the settings: the places it runs in and the whole text. */
type Context = ShellSettings & { parsed: ParsedShell };

/**
 * Whether any command of the text but `runner` names `script` (as a word or a redirection
 * target): a command that writes a file names it, and a false alarm only refuses a script run.
 */
function writesTo(parsed: ParsedShell, script: string, runner: SimpleCommand): boolean {
  const base = script.split('/').pop()!;
  return parsed.commands.some(
    (c) =>
      c !== runner &&
      [...c.argv, ...c.redirects.flatMap((r) => r.target), ...c.assigns.flatMap((a) => a.value)].some((f) => {
        const v = f.value ?? f.pattern;
        return v === script || v.endsWith(`/${base}`) || v === base || v.endsWith(`=${script}`);
      }),
  );
}

export function judgeShell(parsed: ParsedShell, given: ShellSettings): ShellJudgement {
  const settings: Context = { ...given, places: cdPlaces(parsed, given.places), parsed };
  const j: ShellJudgement = {
    deny: undefined,
    pathWords: [...parsed.looseFields],
    targets: [],
    nested: [],
    directories: [],
    scripts: [],
  };
  for (const cmd of parsed.commands) {
    j.pathWords.push(...cmd.argv, ...cmd.assigns.flatMap((a) => a.value), ...cmd.redirects.flatMap((r) => r.target));
    j.deny ??= judgeCommand(cmd, settings, j);
  }
  const recursive = selfCallingFunction(parsed.functions);
  j.deny ??= recursive === undefined ? undefined : `the function ${recursive} calls itself (a fork bomb)`;
  return j;
}

function judgeCommand(cmd: SimpleCommand, settings: Context, j: ShellJudgement): string | undefined {
  for (const a of cmd.assigns)
    if (loadsCode(a.name, 'shell')) return `sets ${a.name}, which makes programs load other code`;
  const device = deviceWrite(cmd.redirects);
  if (device !== undefined) return device;
  return judgeArgv(cmd.argv, cmd.stdin, cmd, settings, j);
}

/** The rules for one program invocation (also for the command `find -exec` runs). */
function judgeArgv(
  argv: Field[],
  stdin: StdinSource,
  cmd: SimpleCommand,
  settings: Context,
  j: ShellJudgement,
): string | undefined {
  if (argv.length === 0) return undefined;
  if (programName(argv[0]) === undefined) return dynamicNameReason(argv[0]!);
  const u = unwrap(argv);
  if (!u.ok) return u.reason;
  j.nested.push(...u.nestedShell);
  if (u.nestedShell.length > 0 && !settings.allowedInterpreters.has('sh'))
    return `${programName(argv[0])} runs shell code (like sh -c); allow sh in the policy's allowed_interpreters to permit it`;
  const run = u.appendsUnknown ? [...u.argv, UNKNOWN_ARGUMENT] : u.argv;
  // Option forms that run other commands (`git -c alias.x=!…`, `tar --to-command`); paths and directories options name.
  const options = optionRule(argv, run);
  j.pathWords.push(...options.pathWords);
  j.directories.push(...options.directories);
  if (options.deny !== undefined) return options.deny;
  if (run.length === 0) return undefined;
  const name = programName(run[0]);
  if (name === undefined) return dynamicNameReason(run[0]!);
  j.targets.push(...commandTargets(run));
  const unjudgeable = unjudgeableNetwork(run);
  if (unjudgeable !== undefined) return unjudgeable;
  if ((name === 'cd' || name === 'pushd') && run[1]?.value !== undefined) j.directories.push(run[1].value);
  if ((name === 'source' || name === '.') && run[1] !== undefined && run[1].value === undefined) {
    return `${name} of a script computed at run time (${run[1].procSubst ? '<(…)' : (run[1].unknown ?? run[1].pattern)})`;
  }
  if (name === 'git') {
    const planted = plantedRepository([
      ...settings.places.bases,
      ...resolveDirectories(j.directories, settings.places),
    ]);
    if (planted !== undefined)
      return `git would run in the bare repository ${planted}, whose configuration can run commands`;
  }
  if (RUNNER_PROGRAMS.has(name)) {
    const r = runnerOutcome(name, run, stdin);
    if (r.kind === 'deny' && !settings.allowedInterpreters.has(r.program))
      return `${r.reason}; allow ${r.program} in the policy's allowed_interpreters to permit it`;
    if (r.kind === 'shell') j.scripts.push(...r.texts);
    if (r.kind === 'argv') {
      const inner = judgeArgv(r.argv, 'inherited', cmd, settings, j);
      if (inner !== undefined) return inner;
    }
  }
  const inline = inlineCode(run, stdin);
  if (inline !== undefined) {
    if (!settings.allowedInterpreters.has(inline.interpreter)) {
      return `${inline.interpreter} is given inline code (${inline.form}); allow ${inline.interpreter} in the policy's allowed_interpreters to permit it`;
    }
    if (inline.shell) {
      if (inline.text === undefined)
        return `${inline.interpreter} is given shell code computed at run time (${inline.form})`;
      j.nested.push(inline.text);
    }
  }
  // A shell given inline code (`sh -c …`) runs no script file.
  // Directories options name (`git -C`, `env -C`, `make -C`) count like `cd`.
  const here: Places =
    j.directories.length === 0
      ? settings.places
      : {
          ...settings.places,
          bases: [...new Set([...settings.places.bases, ...resolveDirectories(j.directories, settings.places)])],
        };
  const script = inline === undefined ? shellScriptOf(run, cmd, here) : undefined;
  if (script !== undefined) {
    // A script this very text writes (`… > x.sh; sh x.sh`) would run its new text, not the one on disk.
    if (script.value !== undefined && writesTo(settings.parsed, script.value, cmd))
      return `runs the shell script ${script.value}, which this command also writes`;
    const read = readShellScript(script, here);
    if (!read.ok) return read.reason;
    j.scripts.push(...read.texts);
  }
  const text = textProgram(run);
  if (text.runs !== undefined) return text.runs;
  j.pathWords.push(
    ...text.paths.map((p): Field => ({ value: p, pattern: p, glob: false, unknown: undefined, procSubst: false })),
  );
  const tree = treeReadReason(run, here, settings.forbids);
  if (tree !== undefined) return tree;
  const destructive = destructiveReason(run, u.appendsUnknown, here, (inner) =>
    judgeArgv(inner, 'inherited', cmd, settings, j),
  );
  if (destructive !== undefined) return destructive;
  return networkReason(cmd, run);
}

/** The directories a text changes into, as absolute paths (relative ones against every base). */
export function resolveDirectories(directories: readonly string[], places: Places): string[] {
  return directories.flatMap((d) => {
    if (d === '~' || d.startsWith('~/')) return [posix.join(places.home, d.slice(1))];
    if (posix.isAbsolute(d)) return [posix.normalize(d)];
    return places.bases.map((b) => posix.resolve(b, d));
  });
}
