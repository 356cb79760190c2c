/**
 * How an option form is written on a command line, and whether an argument is one. Long options
 * match `--name` and `--name=value`, and for commands that accept unambiguous abbreviations of
 * long options (GNU getopt_long, git parse-options, npm nopt) any prefix of the name too, except
 * a name the command also has (tar's `--checkpoint`, npm's `--global`). A short option matches
 * `-x`, `-xVALUE`, and `x` anywhere in a single-dash cluster (`-avze` carries rsync's `-e`): a
 * letter inside a joined value is refused too, which only ever refuses more. Words and regular
 * expressions match a whole argument.
 * Readers answer with findings, in argument order: a refused form (which argument, why), a path
 * an option names (to be judged as a working directory or a write, relative ones against the base
 * given), an environment variable an argument sets. Whoever asks decides what to do with them.
 * Owns: form matching, option-value extraction and the finding shape. Imports nothing. Arguments
 * are attacker-controlled.
 */

export interface OptionForm {
  /** A long option name without its dashes (`exec`). */
  long?: string;
  /** A short option letter (`x`). */
  short?: string;
  /** An exact argument (`-exec` for find). */
  word?: string;
  /** A whole argument (`ext::…`, vim's `+cmd`). */
  match?: RegExp;
  why: string;
}

export interface Syntax {
  /** The command accepts unambiguous prefixes of long options. */
  abbreviates: boolean;
  /** Long names (no dashes) the command also has that a refused name starts with: an exact use is that option. */
  known?: readonly string[];
  /** npm's nopt reads `--node_options` as `--node-options`. */
  underscores?: boolean;
}

/** What a reader found, in argument order. */
export type OptionFinding =
  /** A form refused, with the argument that matched and why. */
  | { kind: 'refused'; arg: string; why: string }
  /** A path an option names: a directory the command works in (`chdir`: it changes into it), a project file it reads, or a file it writes. Relative to `base` (the working directory as options moved it; undefined when not known). */
  | { kind: 'path'; op: 'cwd' | 'write'; value: string; base: string | undefined; chdir: boolean }
  /** An argument that hands the command's children an environment variable (`make CC=…`). */
  | { kind: 'env'; arg: string; name: string; why: string };

/** `--name` or `--name=value` → `name`; anything else → undefined. */
export function longName(arg: string, syntax?: Syntax): string | undefined {
  if (!arg.startsWith('--') || arg.length === 2) return undefined;
  const name = arg.slice(2).split('=', 1)[0]!;
  return syntax?.underscores ? name.replaceAll('_', '-') : name;
}

/** The letters of a single-dash cluster (`-avz` → `avz`), or undefined. */
export function shortCluster(arg: string): string | undefined {
  return arg.startsWith('-') && !arg.startsWith('--') && arg.length > 1 ? arg.slice(1) : undefined;
}

export function longMatches(given: string, name: string, syntax: Syntax): boolean {
  if (given === name) return true;
  return syntax.abbreviates && given !== '' && name.startsWith(given) && !(syntax.known ?? []).includes(given);
}

export function formMatches(form: OptionForm, arg: string, syntax: Syntax): boolean {
  if (form.word !== undefined && arg === form.word) return true;
  if (form.match !== undefined && form.match.test(arg)) return true;
  if (form.long !== undefined) {
    const given = longName(arg, syntax);
    if (given !== undefined && longMatches(given, form.long, syntax)) return true;
  }
  if (form.short !== undefined) {
    const cluster = shortCluster(arg);
    if (cluster !== undefined && cluster.includes(form.short)) return true;
  }
  return false;
}

/** Every refused form among `args`, in argument order (several forms matching one argument in table order). */
export function formFindings(forms: readonly OptionForm[], args: readonly string[], syntax: Syntax): OptionFinding[] {
  return args.flatMap((arg) => forms.filter((f) => formMatches(f, arg, syntax)).map((form): OptionFinding => ({ kind: 'refused', arg, why: form.why })));
}

/** Every value given to an option (`--dir=v`, `--dir v`, `-Cv`, `-C v`, `-xC v`). */
export function optionValues(args: readonly string[], spec: { long?: string; short?: string }, syntax: Syntax): string[] {
  const values: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const given = longName(arg, syntax);
    if (spec.long !== undefined && given !== undefined && longMatches(given, spec.long, syntax)) {
      const eq = arg.indexOf('=');
      const v = eq >= 0 ? arg.slice(eq + 1) : args[i + 1];
      if (v !== undefined) values.push(v);
      continue;
    }
    const cluster = shortCluster(arg);
    if (spec.short !== undefined && cluster !== undefined && cluster.includes(spec.short)) {
      const rest = cluster.slice(cluster.indexOf(spec.short) + 1);
      const v = rest !== '' ? rest : args[i + 1];
      if (v !== undefined) values.push(v);
    }
  }
  return values;
}
