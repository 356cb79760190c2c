/**
 * shell-command: judges every command in a call's arguments (shell text under any key, or an argv
 * array) on the syntax tree of a real shell parser, not on how it is spelt. Refused:
 *  - text the parser cannot parse, or that nests shell code more than 4 levels deep;
 *  - a program name computed at run time (`$(echo rm)`, `${IFS}` tricks are expanded first);
 *  - interpreters handed inline code (`sh -c`, `python3 -c`, `node -e`, `bash <(curl …)`,
 *    `curl … | sh`, `python3 - <<EOF`) unless the policy allows that interpreter — and then shell
 *    code is parsed and judged in turn;
 *  - destructive commands (recursive deletes of `/`, system directories, the home directory or the
 *    workspace root — through sudo, env, xargs, find -exec, … —, disk formatting, device writes,
 *    fork bombs) and network abuse (`/dev/tcp`, `nc -e`, encoded data piped to the network);
 *  - setting variables that make programs load code (`LD_PRELOAD=…`, `BASH_ENV=…`);
 *  - any word that names a forbidden path (judged by the forbidden-path rules, relative words
 *    against every base and every directory the text `cd`s into);
 *  - shell scripts run from files are read and judged the same way (a missing one is refused).
 * Operator regexes (`additional_patterns`) are matched against the text as written; one that does
 * not compile makes the guard deny everything (fail closed).
 * Owns: the orchestration and the config. Imports guard helpers. Commands are attacker-controlled.
 */
import { homedir } from 'node:os';
import { z } from 'zod';
import type { ForbiddenPathGuard } from './forbidden-path.js';
import { pathResolutions } from './paths.js';
import { judgeShellWord } from './shell-paths.js';
import { judgeShell, resolveDirectories } from './shell/judge.js';
import type { ShellSettings } from './shell/judge.js';
import { parseShell } from './shell/parser.js';
import type { ParsedShell } from './shell/parser.js';
import type { Field } from './shell/words.js';
import type { CommandArgument, Guard, GuardInput, GuardOutcome } from './types.js';

export const ShellCommandConfigSchema = z.strictObject({
  enabled: z.boolean().default(true),
  /**
   * Interpreters (`sh`, `bash`, `python`, `node`, `perl`, `ruby`, `eval`, …) that may be given
   * inline code. Allowing one allows the agent to run arbitrary code with it.
   */
  allowed_interpreters: z.array(z.string().min(1)).default([]),
  /** Extra regexes matched against each command as written; a match denies. */
  additional_patterns: z.array(z.string().min(1)).default([]),
});
export type ShellCommandConfig = z.infer<typeof ShellCommandConfigSchema>;

/** `bash -c "sh -c '…'"` deeper than this is refused. */
export const MAX_SHELL_NESTING = 4;
const SHELL_METACHARACTERS = /[;&|`$<>(){}\n\\*?[\]~'"]/;

const known = (value: string): Field => ({ value, pattern: value, glob: false, unknown: undefined, procSubst: false });

/** An argv run without a shell, as one simple command. */
function argvShell(argv: readonly string[]): ParsedShell {
  return {
    commands: [
      { argv: argv.map(known), assigns: [], redirects: [], stdin: 'inherited', pipedFrom: [], text: argv.join(' ') },
    ],
    looseFields: [],
    functions: [],
    movesCd: false,
  };
}

type Verdict = { ok: true } | { ok: false; reason: string; details: string };

export class ShellCommandGuard implements Guard {
  readonly name = 'shell-command';
  private readonly regexes: RegExp[] | null;
  private readonly allowed: ReadonlySet<string>;
  private readonly home = homedir();
  private readonly forbids = (path: string): string | undefined => this.paths.matches(path);

  constructor(
    private readonly paths: ForbiddenPathGuard,
    private readonly config: ShellCommandConfig = ShellCommandConfigSchema.parse({}),
  ) {
    this.allowed = new Set(config.allowed_interpreters.map((i) => i.toLowerCase()));
    try {
      this.regexes = config.additional_patterns.map((p) => new RegExp(p));
    } catch {
      this.regexes = null;
    }
  }

  evaluate(input: GuardInput): GuardOutcome {
    const a = input.action;
    if (!this.config.enabled || a.commands.length === 0) return null;
    if (this.regexes === null)
      return { verdict: 'deny', reason: 'shell-command guard has an invalid pattern and denies everything' };
    // The command may run in any directory the call names (a `cwd`, or a `directory`, `path`, …
    // argument a shell tool may take as one, against every base when relative) or in a base.
    const named = a.paths.flatMap((p) => pathResolutions(p, input.context.pathBases) ?? []);
    const bases = [...new Set([...input.context.pathBases, ...named])];
    for (const command of a.commands) {
      const v = this.judgeCommand(command, bases);
      if (!v.ok) return { verdict: 'deny', reason: v.reason, details: v.details };
    }
    return { verdict: 'allow' };
  }

  /** One command argument; also used by the ACP proxy for terminal/create (an argv). */
  judgeCommand(command: CommandArgument, bases: readonly string[]): Verdict {
    if (command.form === 'text') return this.judgeText(command.text, bases, 0);
    const direct = this.judgeParsed(argvShell(command.argv), command.argv.join(' '), bases, 0);
    if (!direct.ok) return direct;
    // A tool may still join the argv into shell text: judge that reading too when it would differ.
    if (command.argv.some((w) => SHELL_METACHARACTERS.test(w))) {
      const joined = command.argv.join(' ');
      const parsed = parseShell(joined, this.home);
      if (parsed.ok) return this.judgeParsed(parsed.shell, joined, bases, 0);
    }
    return { ok: true };
  }

  private judgeText(text: string, bases: readonly string[], depth: number): Verdict {
    if (depth > MAX_SHELL_NESTING)
      return { ok: false, reason: `shell code nested more than ${MAX_SHELL_NESTING} levels deep`, details: 'nesting' };
    const parsed = parseShell(text, this.home);
    if (!parsed.ok) return { ok: false, reason: `command cannot be judged: ${parsed.reason}`, details: 'unparseable' };
    return this.judgeParsed(parsed.shell, text, bases, depth);
  }

  private judgeParsed(shell: ParsedShell, text: string, bases: readonly string[], depth: number): Verdict {
    const hit = this.regexes!.find((re) => re.test(text));
    if (hit !== undefined)
      return { ok: false, reason: `command matches a dangerous pattern: ${hit.source}`, details: hit.source };
    const settings: ShellSettings = {
      allowedInterpreters: this.allowed,
      places: { home: this.home, bases },
      ...(this.paths.enabled ? { forbids: this.forbids } : {}),
    };
    const j = judgeShell(shell, settings);
    if (j.deny !== undefined) return { ok: false, reason: `command refused: ${j.deny}`, details: j.deny };
    if (this.paths.enabled) {
      const wordBases = [...new Set([...bases, ...resolveDirectories(j.directories, settings.places)])];
      for (const f of j.pathWords) {
        const v = judgeShellWord(this.paths, f, wordBases, this.home);
        if (!v.ok) return { ok: false, reason: `command touches a forbidden path: ${v.reason}`, details: v.details };
      }
    }
    for (const nested of [...j.nested, ...j.scripts]) {
      const v = this.judgeText(nested, bases, depth + 1);
      if (!v.ok) return v;
    }
    return { ok: true };
  }
}

/** URLs and hosts a command reaches, nested shell code included (for the network guards). */
export function commandArgumentTargets(command: CommandArgument, home: string = homedir()): string[] {
  const everything: ShellSettings = {
    allowedInterpreters: new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'rbash', 'yash', 'posh']),
    places: { home, bases: [] },
  };
  const out: string[] = [];
  const visit = (shell: ParsedShell, depth: number) => {
    const j = judgeShell(shell, everything);
    out.push(...j.targets);
    if (depth >= MAX_SHELL_NESTING) return;
    for (const n of j.nested) {
      const p = parseShell(n, home);
      if (p.ok) visit(p.shell, depth + 1);
    }
  };
  if (command.form === 'argv') visit(argvShell(command.argv), 0);
  else {
    const p = parseShell(command.text, home);
    if (p.ok) visit(p.shell, 0);
  }
  return out;
}
