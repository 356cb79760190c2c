/**
 * Is an interpreter being handed code inline — `-c`/`-e`/`--eval`, a script from `<(…)` or
 * `$(…)`, or its program on standard input from a pipe, a here-document or a here-string
 * (`curl … | sh`, `python3 - <<EOF`)? Running a script file is not inline code. awk and sed run
 * their program text too; theirs counts only when it reaches out to run commands (`system()`,
 * pipes to or from a command, sed's `e`).
 * Owns: the inline-code rules per interpreter. Imports the program tables. Arguments are attacker-controlled.
 */
import { posix } from 'node:path';
import { INTERPRETERS, interpreterName, TEXT_PROGRAMS } from './programs.js';
import type { InterpreterSpec } from './programs.js';
import type { StdinSource } from './parser.js';
import type { Field } from './words.js';

export interface InlineCode {
  interpreter: string;
  /** How the code arrives, for the reason: `-c`, `<(…)`, `standard input from a pipe`, … */
  form: string;
  /** The code when it is known (shell code is judged in turn). */
  text: string | undefined;
  shell: boolean;
}

const STDIN_PATH = /^(?:-|\/dev\/stdin|\/dev\/fd\/\d+|\/proc\/(?:self|thread-self|\d+)(?:\/task\/\d+)?\/fd\/\d+)$/;
/** Standard input (or another descriptor) however the path is spelt: `/dev//stdin`, `/dev/./stdin`. */
const STDIN_PATHS = { test: (p: string) => STDIN_PATH.test(p === '-' ? p : posix.normalize(p)) };
/** perl's -M/-m take a module name (`-MList::Util=sum`); anything else is code (`-M'strict;system q(id)'`). */
const PERL_MODULE = /^-?[A-Za-z_][\w:]*(?:=[\w,:.-]*)?$/;
/** node's preload options run what they name: a data: or http(s): URL is code given inline. */
const NODE_PRELOAD = new Set(['-r', '--require', '--import', '--loader', '--experimental-loader']);

function stdinForm(stdin: StdinSource): string | undefined {
  return stdin === 'pipe'
    ? 'its program on standard input from a pipe'
    : stdin === 'heredoc'
      ? 'its program in a here-document'
      : stdin === 'herestring'
        ? 'its program in a here-string'
        : undefined;
}

/** Single-letter code options of `spec` (`c` for `-c`). */
function codeLetters(spec: InterpreterSpec): string[] {
  return spec.codeOptions.filter((o) => /^-[A-Za-z]$/.test(o)).map((o) => o[1]!);
}

export function inlineCode(argv: Field[], stdin: StdinSource): InlineCode | undefined {
  const name = argv[0]?.value === undefined ? undefined : interpreterName(argv[0].value);
  if (name === undefined) return undefined;
  const spec = INTERPRETERS[name]!;
  const shell = spec.shell === true;
  const found = (form: string, text: string | undefined): InlineCode => ({ interpreter: name, form, text, shell });
  const letters = codeLetters(spec);
  for (let i = 1; i < argv.length; i++) {
    const f = argv[i]!;
    const v = f.value;
    if (v === undefined) {
      // A script argument computed at run time: `bash <(curl …)`, `sh "$(…)"`.
      return found(
        f.procSubst ? 'a script from <(…)' : `a script computed at run time (${f.unknown ?? f.pattern})`,
        undefined,
      );
    }
    if (spec.programIsFirstPositional === true)
      return found(
        'code as its arguments',
        argv
          .slice(i)
          .map((a) => a.value ?? '')
          .join(' '),
      );
    if (v === '--') {
      const script = argv[i + 1];
      if (script === undefined) break;
      if (script.value === undefined)
        return found(script.procSubst ? 'a script from <(…)' : 'a script computed at run time', undefined);
      return STDIN_PATHS.test(script.value)
        ? stdinForm(stdin) === undefined
          ? undefined
          : found(stdinForm(stdin)!, undefined)
        : undefined;
    }
    if (name === 'perl' && /^-[Mm]/.test(v)) {
      const module = v.length > 2 ? v.slice(2) : argv[i + 1]?.value;
      if (module === undefined || !PERL_MODULE.test(module)) return found('-M with code', module);
      if (v.length === 2) i++;
      continue;
    }
    const preload = v.includes('=') ? v.slice(0, v.indexOf('=')) : v;
    if ((name === 'node' || name === 'nodejs' || name === 'bun' || name === 'deno') && NODE_PRELOAD.has(preload)) {
      const target = v.includes('=') ? v.slice(v.indexOf('=') + 1) : argv[i + 1]?.value;
      if (target === undefined || /^(?:data|https?):/i.test(target)) return found(`${preload} with code`, target);
      if (!v.includes('=')) i++;
      continue;
    }
    const long = spec.longCodeOptions?.find((o) => v === o || v.startsWith(`${o}=`));
    if (long !== undefined) return found(long, v.includes('=') ? v.slice(v.indexOf('=') + 1) : argv[i + 1]?.value);
    if (spec.codeOptions.includes(v)) return found(v, argv[i + 1]?.value);
    // `-rsocket` is -r with its value joined, not a bundle of flags.
    if (/^-[A-Za-z]{2,}$/.test(v) && spec.valueOptions?.includes(v.slice(0, 2)) === true && !shell) continue;
    if (/^-[A-Za-z]{2,}$/.test(v) && !v.startsWith('--') && letters.some((l) => v.slice(1).includes(l))) {
      // A bundle (`bash -lc`, `perl -ne`) or a joined value (`python3 -cprint(1)`): code either way.
      return found(v, shell ? argv[i + 1]?.value : undefined);
    }
    if (letters.some((l) => v.startsWith(`-${l}`) && v.length > 2 && !/^-[A-Za-z]+$/.test(v)))
      return found(v.slice(0, 2), v.slice(2));
    if ((v.startsWith('-') && v !== '-') || (shell && /^\+[A-Za-z]+$/.test(v))) {
      // `-o pipefail`, and a bundle ending in a value option (`bash -euo pipefail`), take the next word.
      if (
        spec.valueOptions?.includes(v) === true ||
        (/^[-+][A-Za-z]+$/.test(v) && spec.valueOptions?.includes(`${v[0]}${v.at(-1)}`) === true)
      )
        i++;
      continue;
    }
    if (name === 'deno' && v === 'eval') return found('deno eval', argv[i + 1]?.value);
    // The first positional is the script: a file, unless it names standard input.
    if (STDIN_PATHS.test(v)) return stdinForm(stdin) === undefined ? undefined : found(stdinForm(stdin)!, undefined);
    return undefined;
  }
  if (spec.readsStdin === true && stdinForm(stdin) !== undefined) return found(stdinForm(stdin)!, undefined);
  return undefined;
}

// system(), a pipe to or from a command (`print … | "sh"`, `"cmd" | getline`, `|&`), gawk's /inet sockets.
const AWK_RUNS_COMMANDS = /\bsystem\s*\(|\|\s*getline|\|&|\|\s*["A-Za-z_($]|["']\/inet[46]?\//;
// sed's `e` command (run the pattern space or a command) and the `e` flag of `s///` (GNU sed(1)).
const SED_RUNS_COMMANDS =
  /(?:^|[;\n{}])\s*(?:\d+|\$|\/[^/]*\/)?\s*!?\s*e(?:\s|;|$)|\bs(.)(?:\\.|(?!\1).)*\1(?:\\.|(?!\1).)*\1[gpiImM0-9w]*e/;

/** awk or sed whose program runs commands; `undefined` when the program is harmless or read from a file. */
export interface TextProgramJudgement {
  /** Why the program is refused, if it is. */
  runs: string | undefined;
  /** Files the program reads or writes (awk string literals, sed r/R/w/W), to be judged as paths. */
  paths: string[];
}

/** Files an awk or sed program names. */
function programPaths(name: string, program: string): string[] {
  if (name === 'sed')
    return [
      ...program.matchAll(/(?:^|[;\n{}]|\/[gpiImMe0-9]*)\s*(?:\d+|\$|\/[^/]*\/)?\s*!?\s*[rRwW]\s*([^;\n}]+)/g),
    ].map((m) => m[1]!.trim());
  return [...program.matchAll(/"((?:[^"\\\n]|\\.)*)"/g)]
    .map((m) => m[1]!.replace(/\\(.)/g, '$1'))
    .filter((t) => t !== '');
}

/** awk or sed whose program runs commands, and the files its program names. */
export function textProgram(argv: Field[]): TextProgramJudgement {
  const out: TextProgramJudgement = { runs: undefined, paths: [] };
  const name = argv[0]?.value === undefined ? undefined : argv[0].value.split('/').pop()!.toLowerCase();
  const spec = name === undefined ? undefined : TEXT_PROGRAMS[name];
  if (name === undefined || spec === undefined) return out;
  const programs: Array<Field | undefined> = [];
  let positional: Field | undefined;
  for (let i = 1; i < argv.length; i++) {
    const v = argv[i]!.value;
    if (v === undefined) {
      if (positional === undefined && programs.length === 0) positional = argv[i];
      continue;
    }
    const fileOption = spec.programFileOptions?.find((o) => v === o || v.startsWith(`${o}=`));
    if (fileOption !== undefined) {
      // The program from a file — unless the file is standard input (`awk -f - <<EOF`), which this text does not show.
      const file = v.includes('=') ? v.slice(v.indexOf('=') + 1) : argv[i + 1]?.value;
      if (file === undefined || STDIN_PATHS.test(file))
        out.runs = `${name} reads its program from standard input or a computed file`;
      return out;
    }
    if (spec.codeOptions.includes(v)) {
      programs.push(argv[++i]);
      continue;
    }
    if (v.startsWith('-') && v !== '-') {
      if (spec.valueOptions?.includes(v) === true) i++;
      continue;
    }
    positional ??= argv[i];
    if (programs.length === 0) break;
  }
  if (programs.length === 0 && positional !== undefined) programs.push(positional);
  for (const p of programs) {
    if (p === undefined) continue;
    if (p.value === undefined) {
      out.runs = `${name} is given a program computed at run time (${p.unknown ?? p.pattern})`;
      return out;
    }
    if ((name === 'sed' ? SED_RUNS_COMMANDS : AWK_RUNS_COMMANDS).test(p.value)) {
      out.runs = `${name} is given a program that runs commands`;
      return out;
    }
    out.paths.push(...programPaths(name, p.value));
  }
  return out;
}
