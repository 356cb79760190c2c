/**
 * Looks through programs that run other programs (sudo, env, timeout, nice, xargs, watch, su -c,
 * flock -c, busybox, …) to the command that really runs, as each wrapper's own option rules say.
 * A wrapper argument computed at run time, or a wrapper nested too deep, is refused: the guard
 * cannot say what would run.
 * Owns: unwrapping. Imports the program tables and word types. Words are attacker-controlled.
 */
import { posix } from 'node:path';
import { loadsCode, WRAPPERS } from './programs.js';
import type { Field } from './words.js';

export type Unwrapped =
  | { ok: true; argv: Field[]; nestedShell: string[]; appendsUnknown: boolean; envAssigns: string[] }
  | { ok: false; reason: string };

const MAX_WRAPPERS = 8;
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** The program name a field names (basename, lower-case: a case-insensitive file system runs `RM` as rm). */
export function programName(f: Field | undefined): string | undefined {
  return f?.value === undefined || f.glob ? undefined : posix.basename(f.value).toLowerCase();
}

export function dynamicNameReason(f: Field): string {
  return f.glob
    ? `the program name ${f.pattern} is a glob pattern`
    : `the program name is computed at run time (${f.unknown ?? 'unknown'})`;
}

const known = (value: string): Field => ({ value, pattern: value, glob: false, unknown: undefined, procSubst: false });

/** Splits `env -S` text into words the way env(1) does: on whitespace, honouring simple quotes. */
function splitString(text: string): Field[] {
  return (text.match(/'[^']*'|"(?:[^"\\]|\\.)*"|\S+/g) ?? []).map((w) =>
    known(w.replace(/^'(.*)'$/s, '$1').replace(/^"(.*)"$/s, '$1')),
  );
}

export function unwrap(start: Field[]): Unwrapped {
  let argv = start;
  const nestedShell: string[] = [];
  const envAssigns: string[] = [];
  let appendsUnknown = false;
  for (let depth = 0; depth <= MAX_WRAPPERS; depth++) {
    const name = programName(argv[0]);
    if (argv.length === 0 || name === undefined) return { ok: true, argv, nestedShell, appendsUnknown, envAssigns };
    const spec = WRAPPERS[name];
    if (spec === undefined) return { ok: true, argv, nestedShell, appendsUnknown, envAssigns };
    if (depth === MAX_WRAPPERS) return { ok: false, reason: `more than ${MAX_WRAPPERS} wrapper programs in a row` };
    if (spec.appendsUnknownArguments === true) appendsUnknown = true;
    let i = 1;
    let rest: Field[] | undefined;
    // Positional words before the command (timeout's duration, flock's file) may come before or
    // after options: GNU getopt permutes them (`flock /tmp/l -c cmd`).
    let positionals = spec.positionals ?? 0;
    while (i < argv.length) {
      const f = argv[i]!;
      const v = f.value;
      if (v === undefined || f.glob)
        return { ok: false, reason: `an argument of ${name} is computed at run time (${f.unknown ?? f.pattern})` };
      if (v === '--') {
        i++;
        break;
      }
      if (name === 'env' && ASSIGNMENT.test(v)) {
        envAssigns.push(v.slice(0, v.indexOf('=')));
        i++;
        continue;
      }
      if (!v.startsWith('-') || v === '-' || name === 'busybox' || name === 'toybox') {
        if (positionals > 0) {
          positionals--;
          i++;
          continue;
        }
        break;
      }
      const eq = v.indexOf('=');
      let opt = v.startsWith('--') && eq > 0 ? v.slice(0, eq) : v;
      let inlineValue = v.startsWith('--') && eq > 0 ? v.slice(eq + 1) : undefined;
      // A bundle of short options (`script -qc CMD`, `sudo -nu root`): the first letter that takes a
      // value ends the bundle, its value the rest of the word or the next word.
      if (/^-[A-Za-z]{2,}/.test(v) && !v.startsWith('--')) {
        const takes = [...(spec.shellTextOptions ?? []), ...(spec.splitStringOptions ?? []), ...spec.valueOptions]
          .filter((o) => /^-[A-Za-z]$/.test(o))
          .map((o) => o[1]!);
        const at = [...v.slice(1)].findIndex((c) => takes.includes(c));
        if (at >= 0) {
          opt = `-${v[at + 1]!}`;
          const restOfWord = v.slice(at + 2);
          inlineValue = restOfWord === '' ? undefined : restOfWord;
        }
      }
      const value = (): string | undefined => inlineValue ?? argv[i + 1]?.value;
      if (spec.lookupOnly?.includes(opt) === true)
        return { ok: true, argv: [], nestedShell, appendsUnknown, envAssigns };
      if (spec.shellTextOptions?.includes(opt) === true) {
        const text = value();
        if (text === undefined) return { ok: false, reason: `the command ${name} ${opt} runs is computed at run time` };
        nestedShell.push(text);
        return { ok: true, argv: [], nestedShell, appendsUnknown, envAssigns };
      }
      if (spec.splitStringOptions?.includes(opt) === true) {
        const text = value();
        if (text === undefined) return { ok: false, reason: `the command ${name} ${opt} runs is computed at run time` };
        rest = [...splitString(text), ...argv.slice(i + (inlineValue === undefined ? 2 : 1))];
        break;
      }
      if (name === 'watch' && (opt === '-x' || opt === '--exec')) {
        i++;
        continue;
      }
      i += spec.valueOptions.includes(opt) && inlineValue === undefined ? 2 : 1;
    }
    if (rest === undefined) {
      i += positionals;
      rest = argv.slice(i);
    }
    for (const a of envAssigns)
      if (loadsCode(a, 'shell'))
        return { ok: false, reason: `${name} sets ${a}, which makes programs load other code` };
    if (spec.joinsIntoShell === true && !argv.some((a) => a.value === '-x' || a.value === '--exec')) {
      // watch runs its arguments joined by spaces with `sh -c` (watch(1)).
      if (rest.some((a) => a.value === undefined))
        return { ok: false, reason: `the command ${name} runs is computed at run time` };
      if (rest.length > 0) nestedShell.push(rest.map((a) => a.value).join(' '));
      return { ok: true, argv: [], nestedShell, appendsUnknown, envAssigns };
    }
    argv = rest;
  }
  return { ok: true, argv, nestedShell, appendsUnknown, envAssigns };
}
