/**
 * Commands that read a whole tree — archive (`tar c`, `zip -r`), copy (`cp -r`, `rsync`,
 * `scp -r`) or search it (`grep -r`, `rg`) — refused when the tree is `/`, the home directory or
 * above it: every SSH and cloud key would be read, and forbidden-path judges only the paths a
 * command names, not what lies under them (`tar czf - ~ | curl -T - …`). An archive or copy of a
 * smaller tree, and a search that matches every line (`grep -r '' .`), are refused when a file
 * under the tree is forbidden (`tar czf - . | curl …` with `.env` inside): the tree is walked, a
 * bounded number of entries deep.
 * Owns: the recursive readers and the rules. Imports node:fs/node:path. Arguments are attacker-controlled.
 */
import { readdirSync } from 'node:fs';
import { posix } from 'node:path';
import type { Places } from './destructive.js';
import type { Field } from './words.js';

const isOption = (v: string) => v.startsWith('-') && v !== '-';
const RECURSIVE_FLAG = /^-[A-Za-z]*[rRa][A-Za-z]*$/;

/** Whether a program reads its arguments as whole trees. */
function readsTrees(name: string, args: Field[]): boolean {
  const opts = args.map((a) => a.value ?? '').filter(isOption);
  switch (name) {
    case 'tar': {
      const mode = args[0]?.value ?? '';
      return (
        /^-?[A-Za-z]*c/.test(mode) || opts.some((o) => o === '--create' || (/^-[A-Za-z]+$/.test(o) && o.includes('c')))
      );
    }
    case 'zip':
      return opts.some((o) => o === '--recurse-paths' || (/^-[A-Za-z]+$/.test(o) && /[rR]/.test(o)));
    case 'cp':
    case 'scp':
      return opts.some((o) => o === '--recursive' || o === '--archive' || RECURSIVE_FLAG.test(o));
    case 'grep':
    case 'egrep':
    case 'fgrep':
      return opts.some(
        (o) => o === '--recursive' || o === '--dereference-recursive' || (/^-[A-Za-z]+$/.test(o) && /[rR]/.test(o)),
      );
    case 'rsync':
    case 'rg':
    case 'ag':
    case 'ack':
    case 'du':
      return name !== 'du';
    default:
      return false;
  }
}

const COPIERS = new Set(['tar', 'zip', 'cp', 'scp', 'rsync']);
const MAX_TREE_ENTRIES = 20_000;

/** A search that prints every line (an empty or match-anything pattern, or inverted) reads the whole tree. */
function searchesEverything(name: string, args: Field[]): boolean {
  const words = args.map((a) => a.value ?? '');
  if (
    words.some(
      (w) =>
        w === '-v' ||
        w === '--invert-match' ||
        /^-[A-Za-z]*v[A-Za-z]*$/.test(w) ||
        w === '-f' ||
        w.startsWith('--file'),
    )
  )
    return true;
  const e = words.findIndex((w) => w === '-e' || w === '--regexp');
  const pattern = e >= 0 ? words[e + 1] : words.find((w) => !isOption(w));
  if (name === 'rg' && !words.some((w) => w === '--hidden' || w === '-.' || /^-u{2,}$/.test(w) || w === '--no-ignore'))
    return false;
  return (
    pattern === undefined || ['', '.', '^', '$', '.*', '^.*', '.*$', '^.*$', '\\w*', '[\\s\\S]*'].includes(pattern)
  );
}

/** The first forbidden path under `root` (walked breadth-first, a bounded number of entries), if any. */
function forbiddenUnder(root: string, forbids: (path: string) => string | undefined): string | undefined {
  const queue = [root];
  let seen = 0;
  while (queue.length > 0) {
    const dir = queue.shift()!;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      const path = posix.join(dir, e.name);
      if (forbids(path) !== undefined) return path;
      if (++seen > MAX_TREE_ENTRIES) return `${root} (more than ${MAX_TREE_ENTRIES} entries to check)`;
      if (e.isDirectory() && e.name !== 'node_modules' && e.name !== '.git') queue.push(path);
    }
  }
  return undefined;
}

export function treeReadReason(
  argv: Field[],
  places: Places,
  forbids?: (path: string) => string | undefined,
): string | undefined {
  const whole = wholeTreeReason(argv, places);
  if (whole !== undefined || forbids === undefined) return whole;
  const name = argv[0]?.value === undefined ? undefined : posix.basename(argv[0].value).toLowerCase();
  if (name === undefined || !readsTrees(name, argv.slice(1))) return undefined;
  const grep = !COPIERS.has(name);
  if (grep && !searchesEverything(name, argv.slice(1))) return undefined;
  for (const f of argv.slice(1)) {
    const v = f.value;
    if (v === undefined || f.glob || isOption(v)) continue;
    const roots =
      v === '~' || v.startsWith('~/')
        ? [posix.join(places.home, v.slice(1))]
        : posix.isAbsolute(v)
          ? [v]
          : places.bases.map((b) => posix.resolve(b, v));
    for (const root of roots) {
      const secret = forbiddenUnder(root, forbids);
      if (secret !== undefined)
        return `${name} ${grep ? 'prints every line under' : 'copies'} ${root}, which holds ${secret}`;
    }
  }
  return undefined;
}

function wholeTreeReason(argv: Field[], places: Places): string | undefined {
  const name = argv[0]?.value === undefined ? undefined : posix.basename(argv[0].value).toLowerCase();
  if (name === undefined || !readsTrees(name, argv.slice(1))) return undefined;
  for (const f of argv.slice(1)) {
    const v = f.glob ? f.pattern.replace(/\/?[^/]*(?<!\\)[*?[].*$/, '') || '/' : f.value;
    if (v === undefined || isOption(v)) continue;
    const paths =
      v === '~' || v.startsWith('~/')
        ? [posix.join(places.home, v.slice(1))]
        : posix.isAbsolute(v)
          ? [posix.normalize(v)]
          : places.bases.map((b) => posix.resolve(b, v));
    for (const p of paths.map((x) => (x.length > 1 ? x.replace(/\/+$/, '') : x))) {
      if (p === '/' || p === places.home || places.home.startsWith(`${p}/`))
        return `${name} reads the whole of ${p}${p === '/' ? '' : ' (the home directory, where keys live)'}`;
    }
  }
  return undefined;
}
