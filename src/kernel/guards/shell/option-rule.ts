/**
 * The option-form table (options/, the same one the ACP proxy's terminal table uses) as a rule of
 * the shell-command guard. A command is refused when one of its options runs a command or loads
 * code the command line does not show as words of its own (`git -c alias.x=!…`, `tar
 * --to-command=…`, `rg --pre`, `ssh -o ProxyCommand=…`, `make SHELL=…`, `npx <package>`), read
 * precisely (options/forms.ts): the forms the table refuses only because a table of allowed
 * commands reads strictly pass here (`git -c user.name=…`, `ssh -o ConnectTimeout=5`, `tar -I
 * zstd`, `find -exec` — whose command is judged as a command of its own —, `find -delete`, which
 * the destructive rules judge). Wrappers the table knows are walked too, for what the kernel's own
 * unwrapping does not refuse: `sudo -s`/`-i`/`-e`/`-R`, `doas -s`, `strace -o '|cmd'`, and the
 * variables `sudo NAME=VALUE`, `strace -E` and `xargs --process-slot-var` hand on. Paths options
 * name become path words, and directories a command changes into (`git -C`, `make -C`, `tar -C`,
 * `npm --prefix`, `env -C`) more bases for relative words, like `cd`.
 * Owns: findings → a refusal, path words and directories. Imports the option readers, the program
 * tables and the word type. Arguments are attacker-controlled.
 */
import { posix } from 'node:path';
import { optionFindings, unwrap as unwrapWrapper, WRAPPERS as TABLE_WRAPPERS } from './options/index.js';
import type { RefusedFinding } from './options/index.js';
import { loadsCode } from './programs.js';
import type { Field } from './words.js';

export interface OptionJudgement {
  deny: string | undefined;
  /** Paths options name (against the directory earlier options moved to): more words to judge as paths. */
  pathWords: Field[];
  /** Directories the command changes into: more bases for the text's relative words. */
  directories: string[];
}

const MAX_WRAPPERS = 8;

const known = (value: string): Field => ({ value, pattern: value, glob: false, unknown: undefined, procSubst: false });

/** An argument for a reason: an option's value elided (`--to-command=…`, `clone -c` keeps its name), long text cut. */
function clip(arg: string): string {
  const option = /^(.*?(?:^|\s)-{0,2}[A-Za-z_.][\w.-]*=)./s.exec(arg);
  const short = option === null ? arg : `${option[1]}…`;
  return short.length > 60 ? `${short.slice(0, 59)}…` : short;
}

function refusal(name: string, f: RefusedFinding): string {
  if (f.commandItself === true) return `${name} ${clip(f.arg)}: ${f.why}`;
  return `${name} ${clip(f.arg)} runs other commands or loads code (${f.detail ?? f.why})`;
}

/** The table's wrappers from the outermost: a form that runs what the line does not show, a variable that loads code. */
function wrapperReason(start: readonly string[], out: OptionJudgement): string | undefined {
  let words = start;
  for (let depth = 0; depth < MAX_WRAPPERS && words.length > 0; depth++) {
    const name = posix.basename(words[0]!).toLowerCase();
    const spec = Object.hasOwn(TABLE_WRAPPERS, name) ? TABLE_WRAPPERS[name]! : undefined;
    if (spec === undefined) return undefined;
    const u = unwrapWrapper(spec, words.slice(1));
    if (u.kind === 'refused')
      return u.runs ? `${name} ${clip(u.arg)} runs other commands or loads code (${u.why})` : undefined;
    if (u.kind === 'none') return undefined;
    const loads = u.env.find((e) => loadsCode(e.name, 'shell'));
    if (loads !== undefined) return `${name} sets ${loads.name}, which makes programs load other code`;
    if (u.chdir !== undefined) out.directories.push(u.chdir);
    words = [u.command, ...u.args];
  }
  return undefined;
}

/**
 * `argv`: the command as written (wrappers included); `run`: the command the kernel's unwrapping
 * found. A word computed at run time is read as its pattern (`*` for the unknown part).
 */
export function optionRule(argv: readonly Field[], run: readonly Field[]): OptionJudgement {
  const out: OptionJudgement = { deny: undefined, pathWords: [], directories: [] };
  const text = (f: Field) => f.value ?? f.pattern;
  out.deny = wrapperReason(argv.map(text), out);
  if (out.deny !== undefined || run.length === 0) return out;
  // Lower case, as the kernel names programs (a case-insensitive file system runs `GIT` as git).
  const name = posix.basename(text(run[0]!)).toLowerCase();
  for (const f of optionFindings(name, run.slice(1).map(text), undefined)) {
    if (f.kind === 'refused') {
      if (f.runs) return { ...out, deny: refusal(name, f) };
    } else if (f.kind === 'env') {
      if (loadsCode(f.name, 'shell'))
        return {
          ...out,
          deny: `${name} ${clip(f.arg)} hands ${f.name} to what it runs, which makes programs load other code`,
        };
    } else {
      const path = f.base === undefined || f.value.startsWith('/') ? f.value : posix.join(f.base, f.value);
      out.pathWords.push(known(path));
      if (f.chdir) out.directories.push(path);
    }
  }
  return out;
}
