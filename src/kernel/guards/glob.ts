/**
 * Path globs for guard lists, matched with picomatch: `**` any number of segments, `*` within one
 * segment, `?` one character, `[…]` classes, `{a,b}` alternatives. A pattern without a slash
 * matches the last segment anywhere (`id_rsa*`), one starting with `/` is anchored at the root, and
 * a leading `**` plus slash matches at any depth, the top too. Dot files are matched like any other.
 * Owns: compiling and caching matchers. Imports picomatch only.
 */
import picomatch from 'picomatch';

export interface GlobOptions {
  /** Match regardless of case (for deny lists: a case-insensitive file system opens `.ENV` as `.env`). */
  nocase?: boolean;
}

type Matcher = (path: string) => boolean;
const cache = new Map<string, Matcher>();

export function globMatcher(pattern: string, options: GlobOptions = {}): Matcher {
  const key = `${options.nocase === true ? 'i' : 's'}:${pattern}`;
  let m = cache.get(key);
  if (m === undefined) {
    m = picomatch(pattern, { dot: true, basename: !pattern.includes('/'), nocase: options.nocase === true });
    if (cache.size < 4096) cache.set(key, m);
  }
  return m;
}

/** The first pattern `path` matches, or undefined. */
export function firstMatch(patterns: readonly string[], path: string, options: GlobOptions = {}): string | undefined {
  return patterns.find((p) => globMatcher(p, options)(path));
}
