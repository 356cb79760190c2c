/**
 * Shell text → the simple commands it would run, on the syntax tree of the mvdan/sh parser
 * (mvdan-sh: mvdan.cc/sh/v3 compiled to JavaScript; bash dialect). Every command is found
 * wherever it hides — pipelines, lists, subshells, blocks, if/while/for/case bodies, function
 * bodies, `$(…)`, backticks, `<(…)`/`>(…)`, parameter-expansion defaults, here-documents — with
 * what feeds its standard input (a pipe, a here-document or here-string, a file). Text the parser
 * cannot parse is refused, and so is a tree in which a command was found that this walk did not
 * reach (a syntax node it does not know): the guard never judges less than what would run.
 * Owns: parsing and the walk. Imports the parser and the word expander. The text is attacker-controlled.
 */
import type { ShNode, ShParser } from 'mvdan-sh';
import { syntax } from './syntax.js';
import { dynamicNames } from './variables.js';
import { expandWord } from './words.js';
import type { Field, WordEnv } from './words.js';

export type StdinSource = 'inherited' | 'pipe' | 'heredoc' | 'herestring' | 'file';

export interface Redirect {
  /** `>`, `>>`, `<`, `<>`, `>&`, `<&`, `>|`, `&>`, `&>>`, `<<`, `<<-`, `<<<`. */
  op: string;
  target: Field[];
}

export interface SimpleCommand {
  argv: Field[];
  /** `NAME=value` before the command, or declared with export/declare/local/readonly. */
  assigns: Array<{ name: string; value: Field[] }>;
  redirects: Redirect[];
  stdin: StdinSource;
  /** The commands before this one in its pipeline (`a | b | c`: c is fed by a and b). */
  pipedFrom: SimpleCommand[];
  /** The command's source text (for messages). */
  text: string;
}

export interface ParsedShell {
  commands: SimpleCommand[];
  /** Words outside commands that bash still expands: for-loop items, case words. */
  looseFields: Field[];
  /** Functions defined in the text and the command names their bodies call. */
  functions: Array<{ name: string; calls: string[] }>;
  /** The text sets HOME or CDPATH: where `cd` goes is then decided at run time. */
  movesCd: boolean;
}

export type ParseOutcome = { ok: true; shell: ParsedShell } | { ok: false; reason: string };

/** Longer shell text is refused rather than judged. */
export const MAX_SHELL_TEXT = 64 * 1024;

const REDIRECT_OPS = ['&>>', '<<<', '<<-', '&>', '>>', '<<', '<>', '>&', '<&', '>|', '<', '>'];

function parseError(e: unknown): string {
  const err = e as { Error?: () => string } | null;
  return typeof err?.Error === 'function' ? err.Error() : String(e);
}

// Parsing is pure (text and home in, tree out), and a call is classified and then judged: keep
// the most recent results rather than parse the same text twice.
const recent = new Map<string, ParseOutcome>();
const RECENT_LIMIT = 256;

export function parseShell(text: string, home: string): ParseOutcome {
  const key = `${home}\0${text}`;
  const hit = recent.get(key);
  if (hit !== undefined) return hit;
  const outcome = parseUncached(text, home);
  recent.set(key, outcome);
  if (recent.size > RECENT_LIMIT) recent.delete(recent.keys().next().value!);
  return outcome;
}

// One parser, reused: mvdan/sh's Parser resets itself on every Parse, and building one allocates
// buffers worth more than a short parse.
let parser: ShParser | undefined;
const bashParser = (): ShParser => (parser ??= syntax.NewParser(syntax.Variant(syntax.LangBash)));

function parseUncached(text: string, home: string): ParseOutcome {
  if (text.length > MAX_SHELL_TEXT)
    return { ok: false, reason: `command text is longer than ${MAX_SHELL_TEXT} characters` };
  if (text.includes('\0')) return { ok: false, reason: 'command text contains a NUL character' };
  let file: ShNode;
  try {
    file = bashParser().Parse(text, '');
  } catch (e) {
    parser = undefined; // a parser that failed starts afresh next time
    return { ok: false, reason: `the shell parser cannot parse it: ${parseError(e)}` };
  }
  // Count the commands before the walk: brace expansion (SplitBraces) rewrites words in place,
  // and mvdan-sh's Walk does not know the nodes it leaves behind.
  let callExprs = 0;
  const walker = new Walker(Buffer.from(text, 'utf8'), home);
  try {
    syntax.Walk(file, (n) => {
      if (n !== null && syntax.NodeType(n) === 'CallExpr') callExprs++;
      return true;
    });
    walker.stmts(file.Stmts as ShNode[], 'inherited', []);
  } catch (e) {
    return { ok: false, reason: `the command cannot be judged: ${e instanceof Error ? e.message : parseError(e)}` };
  }
  if (callExprs !== walker.callExprs)
    return { ok: false, reason: 'the command uses shell syntax the guard does not judge' };
  const movesCd = /(?<![$\w{])(?:HOME|CDPATH)(?!\w)/.test(text);
  return {
    ok: true,
    shell: { commands: walker.commands, looseFields: walker.looseFields, functions: walker.functions, movesCd },
  };
}

/**
 * Whether a word can hold a command: only literal and quoted text cannot. Walking a word through
 * mvdan-sh costs far more than looking at its parts, and most words are plain.
 */
function mayHoldCommands(word: ShNode): boolean {
  return (word.Parts as ShNode[]).some((part) => {
    const type = syntax.NodeType(part);
    if (type === 'Lit' || type === 'SglQuoted') return false;
    if (type === 'DblQuoted') return (part.Parts as ShNode[]).some((inner) => syntax.NodeType(inner) !== 'Lit');
    return true;
  });
}

class Walker {
  readonly commands: SimpleCommand[] = [];
  readonly looseFields: Field[] = [];
  readonly functions: Array<{ name: string; calls: string[] }> = [];
  callExprs = 0;
  private readonly vars = new Map<string, string>();
  private readonly reassigned = new Set<string>();
  private readonly env: WordEnv;

  constructor(
    private readonly source: Buffer,
    home: string,
  ) {
    const text = source.toString('utf8');
    // HOME written anywhere in the text (HOME=…, read HOME, declare -n r=HOME) makes ~ unknown.
    this.env = { home: /(?<![$\w{])HOME(?!\w)/.test(text) ? undefined : home, vars: this.vars };
    for (const name of dynamicNames(text)) this.reassigned.add(name);
  }

  private slice(node: ShNode): string {
    return this.source.subarray(node.Pos().Offset(), node.End().Offset()).toString('utf8');
  }

  private opAt(offset: number, ops: readonly string[]): string {
    const at = this.source.subarray(offset, offset + 3).toString('latin1');
    return ops.find((op) => at.startsWith(op)) ?? '?';
  }

  private fields(word: ShNode | null | undefined): Field[] {
    if (word == null) return [];
    if (mayHoldCommands(word)) this.nested(word);
    return expandWord(word, this.env);
  }

  /** Commands inside a word or expression: `$(…)`, backticks, `<(…)`, `>(…)`. */
  private nested(node: ShNode): void {
    syntax.Walk(node, (n) => {
      if (n === null) return true;
      const type = syntax.NodeType(n);
      if (type === 'CmdSubst') {
        this.stmts(n.Stmts as ShNode[], 'inherited', []);
        return false;
      }
      if (type === 'ProcSubst') {
        // >(cmd): cmd reads what the outer command writes, like the right side of a pipe.
        this.stmts(n.Stmts as ShNode[], this.opAt(n.OpPos.Offset(), ['<(', '>(']) === '>(' ? 'pipe' : 'inherited', []);
        return false;
      }
      return true;
    });
  }

  /** A static assignment `X=value` makes `$X` known later in the text, unless X is assigned twice. */
  private remember(name: string, value: Field[]): void {
    const v = value.length === 1 && !value[0]!.glob ? value[0]!.value : value.length === 0 ? '' : undefined;
    if (this.vars.has(name) || this.reassigned.has(name) || v === undefined) {
      this.vars.delete(name);
      this.reassigned.add(name);
      return;
    }
    this.vars.set(name, v);
  }

  stmts(list: ShNode[], stdin: StdinSource, pipedFrom: SimpleCommand[]): void {
    for (const s of list) this.stmt(s, stdin, pipedFrom);
  }

  private stmt(s: ShNode, stdin: StdinSource, pipedFrom: SimpleCommand[]): void {
    const redirects: Redirect[] = [];
    let input = stdin;
    for (const r of s.Redirs as ShNode[]) {
      const op = this.opAt(r.OpPos.Offset(), REDIRECT_OPS);
      if (r.Hdoc != null) this.nested(r.Hdoc);
      const target = op === '<<' || op === '<<-' ? [] : this.fields(r.Word);
      redirects.push({ op, target });
      const fd = r.N?.Value as string | undefined;
      if (fd === undefined || fd === '0') {
        if (op === '<<' || op === '<<-') input = 'heredoc';
        else if (op === '<<<') input = 'herestring';
        else if (op === '<' || op === '<>') input = 'file';
      }
    }
    const cmd = s.Cmd as ShNode | null;
    if (cmd == null) {
      this.commands.push({ argv: [], assigns: [], redirects, stdin: input, pipedFrom, text: this.slice(s) });
      return;
    }
    this.command(cmd, input, pipedFrom, redirects, s);
  }

  private command(
    cmd: ShNode,
    stdin: StdinSource,
    pipedFrom: SimpleCommand[],
    redirects: Redirect[],
    stmt: ShNode,
  ): void {
    const type = syntax.NodeType(cmd);
    switch (type) {
      case 'CallExpr': {
        this.callExprs++;
        const assigns = (cmd.Assigns as ShNode[]).map((a) => ({
          name: a.Name?.Value as string,
          value: this.assignValue(a),
        }));
        const argv = (cmd.Args as ShNode[]).flatMap((w) => this.fields(w));
        // A bare `X=value` (no command) sets a shell variable for what follows.
        if (argv.length === 0) for (const a of assigns) this.remember(a.name, a.value);
        this.commands.push({ argv, assigns, redirects, stdin, pipedFrom, text: this.slice(stmt) });
        return;
      }
      case 'BinaryCmd': {
        const op = this.opAt(cmd.OpPos.Offset(), ['&&', '||', '|&', '|']);
        if (op === '|' || op === '|&') {
          const before = this.commands.length;
          this.stmt(cmd.X, stdin, pipedFrom);
          this.stmt(cmd.Y, 'pipe', [...pipedFrom, ...this.commands.slice(before)]);
        } else {
          this.stmt(cmd.X, stdin, pipedFrom);
          this.stmt(cmd.Y, stdin, pipedFrom);
        }
        this.redirectOnly(redirects, stdin, pipedFrom, stmt);
        return;
      }
      case 'Subshell':
      case 'Block':
        this.stmts(cmd.Stmts as ShNode[], stdin, pipedFrom);
        this.redirectOnly(redirects, stdin, pipedFrom, stmt);
        return;
      case 'IfClause':
        this.ifClause(cmd, stdin, pipedFrom);
        this.redirectOnly(redirects, stdin, pipedFrom, stmt);
        return;
      case 'WhileClause':
        this.stmts(cmd.Cond as ShNode[], stdin, pipedFrom);
        this.stmts(cmd.Do as ShNode[], stdin, pipedFrom);
        this.redirectOnly(redirects, stdin, pipedFrom, stmt);
        return;
      case 'ForClause': {
        const loop = cmd.Loop as ShNode;
        if (syntax.NodeType(loop) === 'WordIter') {
          const items = (loop.Items as ShNode[]).flatMap((w) => this.fields(w));
          this.looseFields.push(...items);
          this.remember(
            loop.Name.Value as string,
            items.length === 1
              ? items
              : [{ value: undefined, pattern: '*', glob: false, unknown: 'a loop variable', procSubst: false }],
          );
        } else this.nested(loop);
        this.stmts(cmd.Do as ShNode[], stdin, pipedFrom);
        this.redirectOnly(redirects, stdin, pipedFrom, stmt);
        return;
      }
      case 'CaseClause':
        this.looseFields.push(...this.fields(cmd.Word));
        for (const item of cmd.Items as ShNode[]) {
          for (const p of item.Patterns as ShNode[]) this.nested(p);
          this.stmts(item.Stmts as ShNode[], stdin, pipedFrom);
        }
        this.redirectOnly(redirects, stdin, pipedFrom, stmt);
        return;
      case 'FuncDecl': {
        const before = this.commands.length;
        this.stmt(cmd.Body, stdin, pipedFrom);
        const calls = this.commands
          .slice(before)
          .flatMap((c) => (c.argv[0]?.value === undefined ? [] : [c.argv[0].value]));
        this.functions.push({ name: cmd.Name.Value as string, calls });
        return;
      }
      case 'TimeClause':
      case 'CoprocClause':
        if (cmd.Stmt != null) this.stmt(cmd.Stmt, stdin, pipedFrom);
        return;
      case 'DeclClause': {
        const assigns = (cmd.Args as ShNode[]).flatMap((a) =>
          a.Name == null ? [] : [{ name: a.Name.Value as string, value: this.assignValue(a) }],
        );
        for (const a of assigns) this.remember(a.name, a.value);
        this.commands.push({ argv: [], assigns, redirects, stdin, pipedFrom, text: this.slice(stmt) });
        return;
      }
      case 'TestClause':
      case 'ArithmCmd':
        this.nested(cmd);
        this.redirectOnly(redirects, stdin, pipedFrom, stmt);
        return;
      case 'LetClause':
        for (const e of cmd.Exprs as ShNode[]) this.nested(e);
        return;
      default:
        throw new Error(`unsupported shell construct ${type}`);
    }
  }

  private ifClause(cmd: ShNode, stdin: StdinSource, pipedFrom: SimpleCommand[]): void {
    this.stmts(cmd.Cond as ShNode[], stdin, pipedFrom);
    this.stmts(cmd.Then as ShNode[], stdin, pipedFrom);
    if (cmd.Else != null) this.ifClause(cmd.Else, stdin, pipedFrom);
  }

  private assignValue(a: ShNode): Field[] {
    if (a.Array != null) {
      this.nested(a.Array);
      return [{ value: undefined, pattern: '*', glob: false, unknown: 'an array', procSubst: false }];
    }
    if (a.Index != null) this.nested(a.Index);
    return a.Value == null ? [] : this.fields(a.Value);
  }

  /** Redirections on a compound command (`{ …; } > f`) still open their targets. */
  private redirectOnly(redirects: Redirect[], stdin: StdinSource, pipedFrom: SimpleCommand[], stmt: ShNode): void {
    if (redirects.length > 0)
      this.commands.push({ argv: [], assigns: [], redirects, stdin, pipedFrom, text: this.slice(stmt) });
  }
}
