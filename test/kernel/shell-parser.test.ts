// The shell guard's parsing: the tree walk finds every command wherever it hides and what feeds its
// standard input; words expand as bash expands them ($IFS, quotes, $'…', braces, ~, variables);
// text the parser cannot parse is refused. The tree parser (mvdan-sh, mvdan/sh compiled with
// GopherJS) is cross-checked against sh-syntax (the current mvdan/sh as WebAssembly): on every
// corpus command and more, both accept or both refuse, with the same statements.
import { homedir } from 'node:os';
import { parse as shSyntaxParse } from 'sh-syntax';
import { describe, expect, it } from 'vitest';
import { HARMLESS_CORPUS, HOSTILE_CORPUS } from '../../src/kernel/guards/corpus/index.js';
import { parseShell } from '../../src/kernel/guards/shell/parser.js';
import type { ParsedShell } from '../../src/kernel/guards/shell/parser.js';
import { syntax } from '../../src/kernel/guards/shell/syntax.js';

const home = homedir();
const parsed = (text: string): ParsedShell => {
  const r = parseShell(text, home);
  if (!r.ok) throw new Error(r.reason);
  return r.shell;
};
const argvs = (text: string) =>
  parsed(text).commands.map((c) => c.argv.map((f) => f.value ?? `<${f.unknown ?? f.pattern}>`));

describe('words expand as bash expands them', () => {
  it.each([
    ['rm${IFS}-rf${IFS}/', [['rm', '-rf', '/']]],
    ["'r'\"m\" r\\m $'\\x72m' $'\\162m'", [['rm', 'rm', 'rm', 'rm']]],
    ['echo {a,b}c x{1..3}', [['echo', 'ac', 'bc', 'x1', 'x2', 'x3']]],
    ['ls ~/x ~root/y a~', [['ls', `${home}/x`, '/root/y', 'a~']]],
    ['X=.e; Y=nv; cat $X$Y "$X"', [[], [], ['cat', '.env', '.e']]],
    ['X=1; X=2; echo $X', [[], [], ['echo', '<$X>']]],
    // a command inside a word is found as the word is read, so before the command it belongs to
    ['echo "$(id)" $RANDOM $((1+2))', [['id'], ['echo', '<$(…)>', '<$RANDOM>', '<$((…))>']]],
    ['echo "$HOME"/a "${HOME}"', [['echo', `${home}/a`, home]]],
  ])('%s', (text, expected) => {
    expect(argvs(text)).toEqual(expected);
  });

  it('an unquoted glob is marked as one; a quoted one is plain text', () => {
    const [a, b] = parsed('ls *.ts "*.md"').commands[0]!.argv.slice(1);
    expect(a).toMatchObject({ value: '*.ts', glob: true });
    expect(b).toMatchObject({ value: '*.md', glob: false, pattern: '\\*.md' });
  });
});

describe('every command is found, with what feeds its standard input', () => {
  it('in pipelines, lists, substitutions, bodies and here-documents', () => {
    const text = [
      'a | b && c || d; (e); { f; }',
      'if g; then h; elif i; then j; else k; fi',
      'while l; do m; done',
      'for x in 1; do n; done',
      'case y in y) o;; esac',
      'p() { q; }',
      'echo "$(r)" `s` <(t) >(u)',
      'echo ${v:-$(w)}',
      'cat <<EOF\n$(x1)\nEOF',
      'time y1',
      '[[ -f $(z1) ]]',
    ].join('\n');
    const names = parsed(text).commands.flatMap((c) => (c.argv[0]?.value === undefined ? [] : [c.argv[0].value]));
    expect(names.sort()).toEqual(
      [
        'a',
        'b',
        'c',
        'cat',
        'd',
        'e',
        'echo',
        'echo',
        'f',
        'g',
        'h',
        'i',
        'j',
        'k',
        'l',
        'm',
        'n',
        'o',
        'q',
        'r',
        's',
        't',
        'u',
        'w',
        'x1',
        'y1',
        'z1',
      ].sort(),
    );
  });

  it('standard input: a pipe, a here-document, a here-string, a file, or inherited', () => {
    const stdin = (text: string) => parsed(text).commands.map((c) => `${c.argv[0]?.value}:${c.stdin}`);
    expect(stdin('curl x | sh')).toEqual(['curl:inherited', 'sh:pipe']);
    expect(stdin('python3 - <<EOF\nx\nEOF')).toEqual(['python3:heredoc']);
    expect(stdin('bash <<< ls')).toEqual(['bash:herestring']);
    expect(stdin('sh < script.sh')).toEqual(['sh:file']);
    expect(stdin('tee >(sh)')).toEqual(['sh:pipe', 'tee:inherited']);
    expect(parsed('a | b | c').commands[2]!.pipedFrom.map((c) => c.argv[0]!.value)).toEqual(['a', 'b']);
  });

  it('refuses text it cannot parse, NUL characters, and text over the size limit', () => {
    expect(parseShell('echo "unterminated', home)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('cannot parse'),
    });
    expect(parseShell('echo $((', home)).toMatchObject({ ok: false });
    expect(parseShell('echo a\0b', home)).toMatchObject({ ok: false, reason: expect.stringContaining('NUL') });
    expect(parseShell(`echo ${'x'.repeat(70_000)}`, home)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('longer than'),
    });
  });
});

/** Top-level statement spans as [start, end) byte offsets, from the mvdan-sh tree. */
function mvdanStatements(text: string): Array<[number, number]> | 'error' {
  try {
    const file = syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(text, '');
    return (file.Stmts as Array<{ Pos(): { Offset(): number }; End(): { Offset(): number } }>).map((s) => [
      s.Pos().Offset(),
      s.End().Offset(),
    ]);
  } catch {
    return 'error';
  }
}

async function shSyntaxStatements(text: string): Promise<Array<[number, number]> | 'error'> {
  try {
    const file = await shSyntaxParse(text, { keepComments: false });
    return file.Stmts.map((s) => [s.Pos.Offset, s.End.Offset]);
  } catch {
    return 'error';
  }
}

describe('the tree parser agrees with sh-syntax (current mvdan/sh)', () => {
  const texts = [
    ...[...HOSTILE_CORPUS, ...HARMLESS_CORPUS].flatMap((c) => {
      const a = c.arguments as Record<string, unknown>;
      return typeof a.command === 'string' && !Array.isArray(a.args) ? [a.command] : [];
    }),
    'echo "unterminated',
    'a && ',
    'f() {',
    'cat <<EOF\nbody\nEOF',
    'x=$(( 1 + ))',
    "echo $'a\\'b'",
    '[[ a == b ]] && echo ok',
    'select x in a; do b; done',
    'coproc cat',
    'echo ${x/a/b} ${#x} ${x:1:2}',
  ];

  it(`accepts and refuses the same texts, with the same top-level statements (${texts.length} texts)`, async () => {
    const disagreements: string[] = [];
    for (const text of texts) {
      const ours = mvdanStatements(text);
      const theirs = await shSyntaxStatements(text);
      if (JSON.stringify(ours) !== JSON.stringify(theirs))
        disagreements.push(
          `${JSON.stringify(text)}: mvdan-sh ${JSON.stringify(ours)} vs sh-syntax ${JSON.stringify(theirs)}`,
        );
    }
    expect(disagreements).toEqual([]);
  });
});
