/**
 * What a shell word becomes before the program sees it (bash(1) EXPANSION), as far as that can be
 * known without running anything: quotes and backslashes removed, `$'…'` escapes decoded, `~`
 * and `$HOME` expanded, `$IFS` splitting the word into fields, brace expansion, variables assigned
 * earlier in the same command, and unquoted glob characters noted. Anything computed at run time
 * (`$(…)`, `$RANDOM`, an unknown variable, arithmetic) makes the field unknown; its `pattern` then
 * stands for it with `*` where the unknown part is, so a path guard can still ask whether it could
 * name something forbidden.
 * Owns: word expansion. Imports the parser types only. Words are attacker-controlled.
 */
import type { ShNode } from 'mvdan-sh';
import { syntax } from './syntax.js';

export interface Field {
  /** The field's text when every part of it is known. */
  value: string | undefined;
  /** The field as a glob: unknown parts are `*`, literal glob characters escaped unless they are unquoted. */
  pattern: string;
  /** Unquoted `*`, `?`, `[` or an extended glob: bash matches it against the file system. */
  glob: boolean;
  /** Why the value is unknown (`$(…)`, `$X`), when it is. */
  unknown: string | undefined;
  /** The whole word is a process substitution `<(…)`/`>(…)`: a path whose content a command produces. */
  procSubst: boolean;
  /**
   * The value is computed, at run time, from variables this very text sets (`x=.envx; cat
   * ${x%x}`): nothing outside the text decides it, so it is refused rather than left unjudged.
   */
  derived?: boolean;
}

export interface WordEnv {
  /** Undefined when the text itself sets HOME (then `~` and `$HOME` are computed at run time). */
  home: string | undefined;
  /** Variables assigned statically earlier in the same command text. */
  vars: ReadonlyMap<string, string>;
}

type Token =
  | { t: 'text'; s: string; quoted: boolean }
  | { t: 'break' }
  | { t: 'unknown'; why: string; derived?: boolean }
  | { t: 'glob'; s: string };

/** Brace expansions with more results than this are treated as unknown. */
const MAX_ALTERNATIVES = 64;

function escapeGlob(s: string): string {
  return s.replace(/[*?[\]{}()!@+\\]/g, '\\$&');
}

/** Removes the backslashes of an unquoted literal (bash(1) QUOTING: `\x` is x, `\newline` is nothing). */
function unescapeUnquoted(raw: string, out: Token[]): void {
  let text = '';
  const flush = () => {
    if (text !== '') out.push({ t: 'text', s: text, quoted: false });
    text = '';
  };
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === '\\' && i + 1 < raw.length) {
      const n = raw[++i]!;
      if (n !== '\n') text += n;
      continue;
    }
    if (c === '[') {
      // A bracket expression (`[v]`, `[!x]`, `[]a]`) is one glob token, kept as written; an
      // unmatched `[` is a literal character (bash(1) Pattern Matching).
      let j = i + 1;
      if (raw[j] === '!' || raw[j] === '^') j++;
      if (raw[j] === ']') j++;
      while (j < raw.length && raw[j] !== ']') j++;
      if (j < raw.length) {
        flush();
        // picomatch negates a class with ^ (bash takes ! or ^)
        out.push({ t: 'glob', s: raw.slice(i, j + 1).replace(/^\[!/, '[^') });
        i = j;
        continue;
      }
      text += c;
      continue;
    }
    if (c === '*' || c === '?') {
      flush();
      out.push({ t: 'glob', s: c });
      continue;
    }
    text += c;
  }
  flush();
}

/** Inside double quotes only `\$`, `` \` ``, `\"`, `\\` and `\newline` are escapes. */
function unescapeDouble(raw: string): string {
  return raw.replace(/\\([$`"\\\n])/g, (_, c: string) => (c === '\n' ? '' : c));
}

/** `$'…'` (bash(1) QUOTING, ANSI-C): \n, \t, \xHH, \uHHHH, \NNN octal, \cX, … */
export function decodeAnsiC(raw: string): string {
  const simple: Record<string, string> = {
    a: '\x07',
    b: '\b',
    e: '\x1b',
    E: '\x1b',
    f: '\f',
    n: '\n',
    r: '\r',
    t: '\t',
    v: '\v',
    '\\': '\\',
    "'": "'",
    '"': '"',
    '?': '?',
  };
  return raw.replace(/\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/gs, (m, e: string) => {
    if (simple[e] !== undefined) return simple[e];
    if (/^x/.test(e)) return String.fromCharCode(parseInt(e.slice(1), 16));
    if (/^[uU]/.test(e)) {
      const cp = parseInt(e.slice(1), 16);
      return cp <= 0x10ffff ? String.fromCodePoint(cp) : '';
    }
    if (/^[0-7]/.test(e)) return String.fromCharCode(parseInt(e, 8) & 0xff);
    if (/^c./s.test(e)) return String.fromCharCode(e.charCodeAt(1) & 0x1f);
    return m;
  });
}

function paramTokens(p: ShNode, quoted: boolean, env: WordEnv): Token[] {
  const name: string = p.Param?.Value ?? '';
  const plain =
    !p.Excl &&
    !p.Length &&
    !p.Width &&
    p.Index == null &&
    p.Slice == null &&
    p.Repl == null &&
    p.Exp == null &&
    p.Names === 0;
  const known = name === 'HOME' ? env.home : env.vars.get(name);
  if (plain) {
    if (name === 'HOME' && env.home !== undefined) return [{ t: 'text', s: env.home, quoted }];
    // Unquoted $IFS splits the word (its default value is space, tab, newline).
    if (name === 'IFS') return quoted ? [{ t: 'text', s: ' \t\n', quoted }] : [{ t: 'break' }];
    if (known !== undefined) return [{ t: 'text', s: known, quoted }];
  }
  // An operator (`${x%x}`, `${x:1}`, `${!x}`) on a value this text set is computed from it alone.
  return [
    {
      t: 'unknown',
      why: `$${name === '' ? '{…}' : name}`,
      ...(known !== undefined && !plain ? { derived: true } : {}),
    },
  ];
}

/** `$(echo a b)` and `$(printf %s a)` with literal arguments: their output is known. */
function staticEcho(subst: ShNode, env: WordEnv): string | undefined {
  const stmts = subst.Stmts as ShNode[];
  if (stmts.length !== 1 || (stmts[0]!.Redirs as ShNode[]).length > 0) return undefined;
  const call = stmts[0]!.Cmd as ShNode | null;
  if (call == null || syntax.NodeType(call) !== 'CallExpr' || (call.Assigns as ShNode[]).length > 0) return undefined;
  const words: string[] = [];
  for (const w of call.Args as ShNode[]) {
    const f = expandWord(w, env);
    if (f.some((x) => x.value === undefined || x.glob)) return undefined;
    words.push(...f.map((x) => x.value!));
  }
  if (words[0] === 'echo' && !(words[1] ?? '').startsWith('-')) return words.slice(1).join(' ');
  if (words[0] === 'printf' && words[1] === '%s') return words.slice(2).join('');
  return undefined;
}

/** One word part → alternatives (more than one only for brace expansion), each a token list. */
function partAlternatives(part: ShNode, env: WordEnv, atStart: boolean): Token[][] {
  const type = syntax.NodeType(part);
  switch (type) {
    case 'Lit': {
      const raw: string = part.Value;
      const out: Token[] = [];
      // Tilde expansion: only at the very start of the word, unquoted.
      const tilde = atStart ? /^~([A-Za-z0-9._-]*)(?=\/|$)/.exec(raw) : null;
      if (tilde !== null) {
        const user = tilde[1]!;
        if (user === '' && env.home === undefined)
          out.push({ t: 'unknown', why: '~ (HOME is set by this text)', derived: true });
        else
          out.push({
            t: 'text',
            s: user === '' ? env.home! : user === 'root' ? '/root' : `/home/${user}`,
            quoted: true,
          });
        unescapeUnquoted(raw.slice(tilde[0].length), out);
      } else unescapeUnquoted(raw, out);
      return [out];
    }
    case 'SglQuoted':
      return [[{ t: 'text', s: part.Dollar ? decodeAnsiC(part.Value) : part.Value, quoted: true }]];
    case 'DblQuoted': {
      let alts: Token[][] = [[]];
      for (const inner of part.Parts as ShNode[]) {
        const it = syntax.NodeType(inner);
        const echoed = it === 'CmdSubst' ? staticEcho(inner, env) : undefined;
        const tokens: Token[] =
          it === 'Lit'
            ? [{ t: 'text', s: unescapeDouble(inner.Value), quoted: true }]
            : it === 'ParamExp'
              ? paramTokens(inner, true, env)
              : echoed !== undefined
                ? [{ t: 'text', s: echoed.replace(/\n+$/, ''), quoted: true }]
                : [{ t: 'unknown', why: it === 'CmdSubst' ? '$(…)' : it === 'ArithmExp' ? '$((…))' : it }];
        alts = alts.map((a) => [...a, ...tokens]);
      }
      return alts;
    }
    case 'ParamExp':
      return [paramTokens(part, false, env)];
    case 'CmdSubst': {
      const echoed = staticEcho(part, env);
      return echoed === undefined ? [[{ t: 'unknown', why: '$(…)' }]] : [[{ t: 'text', s: echoed, quoted: false }]];
    }
    case 'ArithmExp':
      return [[{ t: 'unknown', why: '$((…))' }]];
    case 'ProcSubst':
      return [[{ t: 'unknown', why: '<(…)' }]];
    case 'ExtGlob':
      // @(a|b), !(x), …: a pattern bash matches against the file system; stands for anything here.
      return [[{ t: 'glob', s: '*' }]];
    case 'BraceExp':
      return braceAlternatives(part, env);
    default:
      return [[{ t: 'unknown', why: type }]];
  }
}

function braceAlternatives(part: ShNode, env: WordEnv): Token[][] {
  const elems = part.Elems as ShNode[];
  if (part.Sequence) {
    // {1..5} or {a..e} (with an optional step): expand small numeric or letter ranges.
    const bounds = elems.map((e) => wordText(e));
    const [from, to] = bounds;
    const step = Math.abs(Number(bounds[2] ?? 1)) || 1;
    const num = /^-?\d+$/;
    if (from !== undefined && to !== undefined && num.test(from) && num.test(to)) {
      const a = Number(from);
      const b = Number(to);
      if (Math.abs(b - a) / step + 1 > MAX_ALTERNATIVES) return [[{ t: 'unknown', why: 'a long brace sequence' }]];
      const out: Token[][] = [];
      for (let v = a; a <= b ? v <= b : v >= b; v += a <= b ? step : -step)
        out.push([{ t: 'text', s: String(v), quoted: true }]);
      return out;
    }
    if (from?.length === 1 && to?.length === 1) {
      const a = from.charCodeAt(0);
      const b = to.charCodeAt(0);
      if (Math.abs(b - a) + 1 > MAX_ALTERNATIVES) return [[{ t: 'unknown', why: 'a long brace sequence' }]];
      const out: Token[][] = [];
      for (let v = a; a <= b ? v <= b : v >= b; v += a <= b ? 1 : -1)
        out.push([{ t: 'text', s: String.fromCharCode(v), quoted: true }]);
      return out;
    }
    return [[{ t: 'unknown', why: 'a brace sequence' }]];
  }
  return elems.flatMap((e) => wordAlternatives(e, env, false));
}

function wordText(word: ShNode): string | undefined {
  const parts = word.Parts as ShNode[];
  return parts.length === 1 && syntax.NodeType(parts[0]!) === 'Lit' ? (parts[0]!.Value as string) : undefined;
}

function wordAlternatives(word: ShNode, env: WordEnv, atStart: boolean): Token[][] {
  let alts: Token[][] = [[]];
  (word.Parts as ShNode[]).forEach((part, i) => {
    const next = partAlternatives(part, env, atStart && i === 0);
    const combined: Token[][] = [];
    for (const a of alts) for (const n of next) combined.push([...a, ...n]);
    alts = combined.length > MAX_ALTERNATIVES ? [[{ t: 'unknown', why: 'too many brace expansions' }]] : combined;
  });
  return alts;
}

function toFields(tokens: Token[], procSubst: boolean): Field[] {
  const fields: Field[] = [];
  let current: Token[] = [];
  const flush = () => {
    if (current.length === 0) return;
    let value: string | undefined = '';
    let pattern = '';
    let glob = false;
    let unknown: string | undefined;
    let derived = false;
    for (const t of current) {
      if (t.t === 'text') {
        value = value === undefined ? undefined : value + t.s;
        pattern += escapeGlob(t.s);
      } else if (t.t === 'glob') {
        value = value === undefined ? undefined : value + t.s;
        pattern += t.s;
        glob = true;
      } else if (t.t === 'unknown') {
        value = undefined;
        unknown ??= t.why;
        pattern += '*';
        derived ||= t.derived === true;
      }
    }
    fields.push({ value, pattern, glob, unknown, procSubst, ...(derived ? { derived } : {}) });
    current = [];
  };
  for (const t of tokens) {
    if (t.t === 'break') flush();
    else current.push(t);
  }
  flush();
  return fields;
}

/** The fields a word expands to (an empty quoted word is one empty field; a word of only `$IFS`, none). */
export function expandWord(word: ShNode, env: WordEnv): Field[] {
  const parts = word.Parts as ShNode[];
  const procSubst = parts.length === 1 && syntax.NodeType(parts[0]!) === 'ProcSubst';
  // Brace expansion only where a literal part has a `{` (SplitBraces is a call into the parser).
  const braced = parts.some((p) => syntax.NodeType(p) === 'Lit' && (p.Value as string).includes('{'))
    ? syntax.SplitBraces(word)
    : word;
  const fields = wordAlternatives(braced, env, true).flatMap((alt) => {
    const f = toFields(alt, procSubst);
    // "" and '' are one empty field; an unquoted expansion to nothing is none.
    const quotedEmpty = alt.length > 0 && alt.every((t) => t.t === 'text' && t.quoted && t.s === '');
    return f.length === 0 && quotedEmpty ? [{ value: '', pattern: '', glob: false, unknown: undefined, procSubst }] : f;
  });
  return fields;
}

/** A field that is known for certain (no glob, no unknown part). */
export function staticValue(f: Field | undefined): string | undefined {
  return f === undefined || f.glob ? undefined : f.value;
}
