/**
 * GNU sed (sed(1), "sed, a stream editor" §3 sed scripts): the `e` command and the `e` flag of `s`
 * run shell commands, and `w`/`W` (command or `s` flag) write a file sed names, so a script with
 * any of them is refused, as is `-f`/`--file` (a script the guard cannot see). Scripts come from
 * every `-e`/`--expression` (joined with newlines, as sed does) or else the first operand. With
 * `-i`/`--in-place` the file operands are written: each is judged as an fs write. A script this
 * reader cannot parse is refused (fail closed).
 * Owns: sed argv and script reading. Imports forms. Arguments are attacker-controlled.
 */
import { longMatches, longName } from './forms.js';
import type { OptionFinding } from './forms.js';

const SYNTAX = { abbreviates: true };
const LONG_VALUED = ['expression', 'file', 'line-length'];
const LONG = [
  ...LONG_VALUED,
  'quiet',
  'silent',
  'debug',
  'follow-symlinks',
  'in-place',
  'posix',
  'regexp-extended',
  'separate',
  'sandbox',
  'unbuffered',
  'null-data',
  'help',
  'version',
];

/** Why this sed script is refused, or undefined. */
export function sedScriptRefusal(script: string): string | undefined {
  const s = script;
  let i = 0;
  const ws = () => {
    while (i < s.length && (s[i] === ' ' || s[i] === '\t')) i++;
  };
  const digits = () => {
    while (i < s.length && /[0-9]/.test(s[i]!)) i++;
  };
  const toEol = () => {
    while (i < s.length && s[i] !== '\n') i++;
  };
  /** Past the next unescaped `delim`, honouring bracket expressions in a regex; false if none. */
  const part = (delim: string, regex: boolean): boolean => {
    while (i < s.length) {
      const c = s[i]!;
      if (c === '\\') i += 2;
      else if (c === delim) {
        i++;
        return true;
      } else if (regex && c === '[') {
        i++;
        if (s[i] === '^') i++;
        if (s[i] === ']') i++;
        while (i < s.length && s[i] !== ']') {
          if (s[i] === '[' && /[:.=]/.test(s[i + 1] ?? '')) {
            const close = s.indexOf(`${s[i + 1]}]`, i + 2);
            if (close < 0) return false;
            i = close + 2;
          } else i++;
        }
        if (i >= s.length) return false;
        i++;
      } else if (c === '\n' && regex) return false;
      else i++;
    }
    return false;
  };
  const address = (): boolean | 'none' => {
    const c = s[i];
    if (c !== undefined && /[0-9]/.test(c)) {
      digits();
      if (s[i] === '~') {
        i++;
        digits();
      }
      return true;
    }
    if (c === '$') {
      i++;
      return true;
    }
    if (c === '/' || c === '\\') {
      const delim = c === '\\' ? s[i + 1] : '/';
      i += c === '\\' ? 2 : 1;
      if (delim === undefined || delim === '\n' || !part(delim, true)) return false;
      while (s[i] === 'I' || s[i] === 'M') i++;
      return true;
    }
    return 'none';
  };
  for (;;) {
    while (i < s.length && /[ \t\n;]/.test(s[i]!)) i++;
    if (i >= s.length) return undefined;
    const a1 = address();
    if (a1 === false) return 'a sed script the guard cannot read';
    if (a1 === true) {
      ws();
      if (s[i] === ',') {
        i++;
        ws();
        if (s[i] === '+' || s[i] === '~') {
          i++;
          digits();
        } else if (address() !== true) return 'a sed script the guard cannot read';
      }
    }
    ws();
    while (s[i] === '!') {
      i++;
      ws();
    }
    const cmd = s[i++];
    switch (cmd) {
      case '{':
        // A block's first command may follow the brace directly (`/x/{s/a/b/;p}`).
        continue;
      case '}':
      case '=':
      case 'd':
      case 'D':
      case 'g':
      case 'G':
      case 'h':
      case 'H':
      case 'n':
      case 'N':
      case 'p':
      case 'P':
      case 'x':
      case 'z':
      case 'F':
        break;
      case '#':
      case 'a':
      case 'i':
      case 'c':
      case 'r':
      case 'R':
        // Comments, text and file names (to read) run to the end of the line; a\ continues text.
        while (i < s.length && s[i] !== '\n') i += s[i] === '\\' ? 2 : 1;
        continue;
      case ':':
      case 'b':
      case 't':
      case 'T':
      case 'v':
        // A label ends at whitespace or `;` (GNU sed runs `b x e cmd` as `b x` then `e cmd`).
        ws();
        while (i < s.length && !/[ \t\n;]/.test(s[i]!)) i++;
        continue;
      case 'q':
      case 'Q':
      case 'l':
      case 'L':
        ws();
        digits();
        break;
      case 'e':
        return 'the e command runs a shell command';
      case 'w':
      case 'W':
        return `the ${cmd} command writes a file`;
      case 's':
      case 'y': {
        const delim = s[i++];
        if (delim === undefined || delim === '\\' || delim === '\n' || !part(delim, cmd === 's') || !part(delim, false))
          return 'a sed script the guard cannot read';
        if (cmd === 'y') break;
        while (i < s.length && /[gpIiMm0-9ew]/.test(s[i]!)) {
          if (s[i] === 'e') return 'the e flag of s runs the pattern space as a shell command';
          if (s[i] === 'w') return 'the w flag of s writes a file';
          i++;
        }
        break;
      }
      default:
        return 'a sed script the guard cannot read';
    }
    ws();
    if (i < s.length && !/[\n;}#]/.test(s[i]!)) return 'a sed script the guard cannot read';
    if (s[i] === '#') toEol();
  }
}

const refused = (arg: string, why: string, runs: boolean): OptionFinding => ({ kind: 'refused', arg, why, runs });

/** Names of standard input a program may be given for a file (sed, make and others read it). */
export const STDIN_FILE = /^(?:-|\/dev\/stdin|\/dev\/fd\/0|\/proc\/self\/fd\/0)$/;

/**
 * What this sed argv refuses or names: `-f`, a script that runs or writes, the files `-i` writes
 * (relative to `cwd`). What runs: the `e` command and flag, and a script this reader cannot read
 * (fail closed), and a script read from standard input (`-f -`, `-f /dev/stdin`: a here-document
 * is inline code); a script file (`-f x.sed`, like `bash x.sh`) and writing a file do not count.
 */
export function sedFindings(args: readonly string[], cwd: string | undefined): OptionFinding[] {
  const out: OptionFinding[] = [];
  const scripts: string[] = [];
  const operands: string[] = [];
  let inPlace = false;
  let options = true;
  let fromFile = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (options && a === '--') {
      options = false;
      continue;
    }
    const given = options ? longName(a) : undefined;
    if (given !== undefined) {
      const matches = LONG.filter((n) => longMatches(given, n, SYNTAX));
      const name = matches.includes(given) ? given : matches.length === 1 ? matches[0] : undefined;
      const value = a.includes('=')
        ? a.slice(a.indexOf('=') + 1)
        : LONG_VALUED.includes(name ?? '')
          ? args[++i]
          : undefined;
      // An ambiguous abbreviation: sed refuses to run at all.
      if (name === undefined) return [...out, refused(a, 'an option sed may read as --file', false)];
      if (name === 'file') {
        out.push(refused(a, 'reads a script the guard cannot see', value === undefined || STDIN_FILE.test(value)));
        fromFile = true;
      }
      if (name === 'expression') scripts.push(value ?? '');
      if (name === 'in-place') inPlace = true;
      continue;
    }
    if (options && a.length > 1 && a.startsWith('-')) {
      for (let j = 1; j < a.length; j++) {
        const c = a[j]!;
        if (c === 'f') {
          const file = j + 1 < a.length ? a.slice(j + 1) : args[++i];
          out.push(refused(a, 'reads a script the guard cannot see', file === undefined || STDIN_FILE.test(file)));
          fromFile = true;
          break;
        }
        if (c === 'e') {
          scripts.push(j + 1 < a.length ? a.slice(j + 1) : (args[++i] ?? ''));
          break;
        }
        if (c === 'l') {
          if (j + 1 === a.length) i++;
          break;
        }
        if (c === 'i') {
          inPlace = true;
          break;
        }
      }
      continue;
    }
    operands.push(a);
  }
  // With -e or -f the operands are all files; otherwise the first is the script.
  const files = scripts.length > 0 || fromFile ? operands : operands.slice(1);
  if (scripts.length === 0 && !fromFile && operands[0] !== undefined) scripts.push(operands[0]);
  const why = sedScriptRefusal(scripts.join('\n'));
  if (why !== undefined) out.push(refused(scripts.join(' ; '), why, !why.endsWith('writes a file')));
  if (inPlace)
    out.push(...files.map((value): OptionFinding => ({ kind: 'path', op: 'write', value, base: cwd, chdir: false })));
  return out;
}
