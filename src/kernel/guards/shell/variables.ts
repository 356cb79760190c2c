/**
 * Which variables of a shell text the guard may treat as known: read off the text itself, before
 * the walk, so that the order in which the walk meets assignments does not matter.
 * Owns: the text-level scan. Imports nothing. The text is attacker-controlled.
 */

/**
 * Variables whose value at a given point the walk cannot know, found in the text itself (so the
 * order the walk meets them in does not matter): assigned more than once anywhere (a loop or a
 * function may run the later assignment first), or set by `read`, `mapfile`, `printf -v`,
 * `getopts`, arithmetic, or bound as a nameref (`declare -n`). Over-counting only makes more
 * words unknown, never fewer.
 */
export function dynamicNames(text: string): Set<string> {
  const out = new Set<string>();
  const counts = new Map<string, number>();
  for (const m of text.matchAll(/(?<![\w$\-/.])([A-Za-z_]\w*)(?:\[[^\]]*\])?\+?=/g))
    counts.set(m[1]!, (counts.get(m[1]!) ?? 0) + 1);
  for (const [name, n] of counts) if (n > 1) out.add(name);
  const words = (s: string | undefined) => (s ?? '').split(/\s+/).filter((w) => /^[A-Za-z_]\w*$/.test(w));
  for (const m of text.matchAll(/\b(?:read|mapfile|readarray|getopts|let|unset)\b([^;&|\n)]*)/g))
    for (const w of words(m[1])) out.add(w);
  for (const m of text.matchAll(/\bprintf\s+-v\s*([A-Za-z_]\w*)/g)) out.add(m[1]!);
  for (const m of text.matchAll(
    /\b(?:declare|local|typeset|export)\s+(?:[-+]\w+\s+)*-\w*n\w*\s+((?:[A-Za-z_]\w*=?\S*\s*)+)/g,
  ))
    for (const w of words(m[1]!.replace(/=\S*/g, ' '))) out.add(w);
  for (const m of text.matchAll(/\(\(\s*([A-Za-z_]\w*)\s*(?:[-+*/%&|^]|<<|>>)?=|\b([A-Za-z_]\w*)(?:\+\+|--)/g))
    out.add((m[1] ?? m[2])!);
  return out;
}
