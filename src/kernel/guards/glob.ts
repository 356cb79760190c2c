/**
 * Path globs for guard lists: `**` any number of segments, `*` within one segment, `?` one
 * character. A pattern without a slash matches the last segment anywhere (`id_rsa*`), one starting
 * with `/` is anchored at the root, and a leading `**` plus slash matches at any depth, the top too.
 * Owns: glob → RegExp. Imports nothing. Case-sensitive, as Linux paths are.
 */
const cache = new Map<string, RegExp>();

export function globToRegExp(pattern: string): RegExp {
  let re = cache.get(pattern);
  if (re !== undefined) return re;
  const anchored = pattern.includes('/') ? pattern : `**/${pattern}`;
  let out = '';
  for (let i = 0; i < anchored.length; i++) {
    const c = anchored[i]!;
    if (c === '*' && anchored[i + 1] === '*') {
      const slash = anchored[i + 2] === '/';
      out += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  re = new RegExp(`^${anchored.startsWith('/') || anchored.startsWith('**') ? '' : '(?:.*/)?'}${out}$`);
  if (cache.size < 4096) cache.set(pattern, re);
  return re;
}

// One alternation per pattern list, so the common case (no match) is a single regex test.
const combined = new WeakMap<readonly string[], RegExp>();

/** The first pattern `path` matches, or undefined. */
export function firstMatch(patterns: readonly string[], path: string): string | undefined {
  let any = combined.get(patterns);
  if (any === undefined) {
    any = new RegExp(patterns.map((p) => `(?:${globToRegExp(p).source})`).join('|') || '(?!)');
    combined.set(patterns, any);
  }
  if (!any.test(path)) return undefined;
  return patterns.find((p) => globToRegExp(p).test(path));
}
