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
 * given), an environment variable an argument sets. Whoever asks decides what to do with them: a
 * table of allowed commands refuses every form (the strict reading above); a guard of shell
 * commands refuses those that `runs` marks — forms that run a command or load code the command
 * line does not show as words of its own — read precisely: a letter inside another option's value,
 * or a word the command hands to another program (after npm's `--`, ssh's remote command), is not
 * an option of the command, and some forms run something only for some values (`ssh -o
 * ProxyCommand=…`, not `ssh -o ConnectTimeout=5`).
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
  /**
   * Whether a use runs a command or loads code the command line does not show as words of its own
   * (absent: it does). A function judges the option's value (`-o ProxyCommand=…`): true, false, or
   * what runs (for a reason).
   */
  runs?: boolean | ((value: string | undefined) => boolean | string);
}

export interface Syntax {
  /** The command accepts unambiguous prefixes of long options. */
  abbreviates: boolean;
  /** Long names (no dashes) the command also has that a refused name starts with: an exact use is that option. */
  known?: readonly string[];
  /** npm's nopt reads `--node_options` as `--node-options`. */
  underscores?: boolean;
  /** Short letters that take a value: in a cluster, what follows one is its value (`-oIdentityFile=…`), and so is the next word after a cluster ending in one. */
  valued?: string;
  /**
   * Where the command's own options end and words it hands on begin: after `--` (npm hands them to
   * the script), at the first operand (npx: the package's arguments), or at the second (ssh: the
   * remote command after the destination).
   */
  optionsEnd?: 'dash-dash' | 'first-operand' | 'second-operand';
}

/** What a reader found, in argument order. */
export type OptionFinding =
  /**
   * A form refused, with the argument that matched and why. `runs`: it runs a command or loads code
   * the command line does not show as words of its own (`detail` says what, when a value decides);
   * `commandItself`: the command itself runs code it is given (`npx <package>`), which a table that
   * allows the command has accepted already.
   */
  | { kind: 'refused'; arg: string; why: string; runs: boolean; commandItself?: boolean; detail?: string }
  /** A path an option names: a directory the command works in (`chdir`: it changes into it), a project file it reads, or a file it writes. Relative to `base` (the working directory as options moved it; undefined when not known). */
  | { kind: 'path'; op: 'cwd' | 'write'; value: string; base: string | undefined; chdir: boolean }
  /** An argument that hands the command's children an environment variable (`make CC=…`). */
  | { kind: 'env'; arg: string; name: string; why: string };

export type RefusedFinding = Extract<OptionFinding, { kind: 'refused' }>;

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
  if (form.match?.test(arg)) return true;
  if (form.long !== undefined) {
    const given = longName(arg, syntax);
    if (given !== undefined && longMatches(given, form.long, syntax)) return true;
  }
  if (form.short !== undefined) {
    const cluster = shortCluster(arg);
    if (cluster?.includes(form.short)) return true;
  }
  return false;
}

/** How the command reads each argument: an option (with the letters of a cluster that are options), a value, an operand, or a word it hands on. */
type Role = { role: 'option'; letters?: string } | { role: 'value' | 'operand' | 'foreign' };

function roles(args: readonly string[], syntax: Syntax): Role[] {
  const out: Role[] = [];
  let operands = 0;
  let foreign = false;
  let value = false;
  let ended = false;
  for (const a of args) {
    if (foreign) out.push({ role: 'foreign' });
    else if (value) {
      out.push({ role: 'value' });
      value = false;
    } else if (!ended && a === '--' && syntax.optionsEnd !== undefined) {
      out.push({ role: 'option' });
      ended = true;
      foreign = syntax.optionsEnd !== 'second-operand';
    } else if (!ended && a.startsWith('--') && a.length > 2) out.push({ role: 'option' });
    else if (!ended && a.startsWith('-') && a.length > 1) {
      const cluster = a.slice(1);
      const at = syntax.valued === undefined ? -1 : [...cluster].findIndex((c) => syntax.valued!.includes(c));
      out.push({ role: 'option', letters: at < 0 ? cluster : cluster.slice(0, at + 1) });
      value = at === cluster.length - 1;
    } else {
      operands++;
      const hands = syntax.optionsEnd === 'second-operand' && operands === 2;
      out.push({ role: hands ? 'foreign' : 'operand' });
      foreign = hands || syntax.optionsEnd === 'first-operand';
    }
  }
  return out;
}

/** The value a matched option takes: after `=`, the rest of its cluster, or the next word. */
function formValue(form: OptionForm, args: readonly string[], i: number): string | undefined {
  const arg = args[i]!;
  if (form.long !== undefined && arg.startsWith('--'))
    return arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : args[i + 1];
  if (form.short !== undefined && shortCluster(arg) !== undefined) {
    const rest = arg.slice(arg.indexOf(form.short, 1) + 1);
    return rest !== '' ? rest : args[i + 1];
  }
  return undefined;
}

/** Does this match, read precisely, run something? Returns what, for a reason, or false. */
function formRuns(form: OptionForm, args: readonly string[], i: number, role: Role): boolean | string {
  if (role.role === 'foreign' || role.role === 'value') return false;
  // A long option must be read as one; a letter must be one of the cluster's options, not part of a value.
  if (form.long !== undefined && role.role !== 'option') return false;
  if (form.short !== undefined && !(role.role === 'option' && (role.letters ?? '').includes(form.short))) return false;
  if (typeof form.runs === 'function') return form.runs(formValue(form, args, i));
  return form.runs ?? true;
}

/** Every refused form among `args`, in argument order (several forms matching one argument in table order). */
export function formFindings(forms: readonly OptionForm[], args: readonly string[], syntax: Syntax): RefusedFinding[] {
  const read = roles(args, syntax);
  return args.flatMap((arg, i) =>
    forms
      .filter((f) => formMatches(f, arg, syntax))
      .map((form): RefusedFinding => {
        const runs = formRuns(form, args, i, read[i]!);
        return {
          kind: 'refused',
          arg,
          why: form.why,
          runs: runs !== false,
          ...(typeof runs === 'string' ? { detail: runs } : {}),
        };
      }),
  );
}

/** Every value given to an option (`--dir=v`, `--dir v`, `-Cv`, `-C v`, `-xC v`). */
export function optionValues(
  args: readonly string[],
  spec: { long?: string; short?: string },
  syntax: Syntax,
): string[] {
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
    if (spec.short && cluster?.includes(spec.short)) {
      const rest = cluster.slice(cluster.indexOf(spec.short) + 1);
      const v = rest !== '' ? rest : args[i + 1];
      if (v !== undefined) values.push(v);
    }
  }
  return values;
}
