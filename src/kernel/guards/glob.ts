/**
 * Path globs for guard lists, matched with picomatch: `**` any number of segments, `*` within one
 * segment, `?` one character, `[…]` classes, `{a,b}` alternatives. A pattern without a slash
 * matches the last segment anywhere (`id_rsa*`), one starting with `/` is anchored at the root, and
 * a leading `**` plus slash matches at any depth, the top too. Dot files are matched like any other.
 * A list is compiled once into one alternation, so the common case (no match) is a single test.
 * Owns: compiling and caching matchers. Imports picomatch only.
 */
import picomatch from 'picomatch';

export interface GlobOptions {
  /** Match regardless of case (for deny lists: a case-insensitive file system opens `.ENV` as `.env`). */
  nocase?: boolean;
}

/** One pattern as a RegExp; a pattern without a slash matches a last segment anywhere. */
function patternRegExp(pattern: string, nocase: boolean): RegExp {
  return picomatch.makeRe(pattern.includes('/') ? pattern : `**/${pattern}`, { dot: true, nocase });
}

interface CompiledList {
  any: RegExp;
  each: RegExp[];
}

const compiled = new WeakMap<readonly string[], Map<boolean, CompiledList>>();

function compile(patterns: readonly string[], nocase: boolean): CompiledList {
  let byCase = compiled.get(patterns);
  if (byCase === undefined) {
    byCase = new Map();
    compiled.set(patterns, byCase);
  }
  let list = byCase.get(nocase);
  if (list === undefined) {
    const each = patterns.map((p) => patternRegExp(p, nocase));
    const any = new RegExp(each.map((re) => `(?:${re.source})`).join('|') || '(?!)', nocase ? 'i' : '');
    list = { any, each };
    byCase.set(nocase, list);
  }
  return list;
}

/** The first pattern `path` matches, or undefined. Lists are cached by identity: pass the same array. */
export function firstMatch(patterns: readonly string[], path: string, options: GlobOptions = {}): string | undefined {
  const list = compile(patterns, options.nocase === true);
  if (!list.any.test(path)) return undefined;
  const i = list.each.findIndex((re) => re.test(path));
  return i < 0 ? undefined : patterns[i];
}
