/**
 * Commands that read a whole tree — archive (`tar c`, `zip -r`), copy (`cp -r`, `rsync`,
 * `scp -r`) or search it (`grep -r`, `rg`) — refused when the tree is `/`, the home directory or
 * above it: every SSH and cloud key would be read, and forbidden-path judges only the paths a
 * command names, not what lies under them (`tar czf - ~ | curl -T - …`).
 * Owns: the recursive readers and the rule. Imports node:path. Arguments are attacker-controlled.
 */
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
      return /^-?[A-Za-z]*c/.test(mode) || opts.some((o) => o === '--create' || (/^-[A-Za-z]+$/.test(o) && o.includes('c')));
    }
    case 'zip':
      return opts.some((o) => o === '--recurse-paths' || (/^-[A-Za-z]+$/.test(o) && /[rR]/.test(o)));
    case 'cp':
    case 'scp':
      return opts.some((o) => o === '--recursive' || o === '--archive' || RECURSIVE_FLAG.test(o));
    case 'grep':
    case 'egrep':
    case 'fgrep':
      return opts.some((o) => o === '--recursive' || o === '--dereference-recursive' || (/^-[A-Za-z]+$/.test(o) && /[rR]/.test(o)));
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

export function treeReadReason(argv: Field[], places: Places): string | undefined {
  const name = argv[0]?.value === undefined ? undefined : posix.basename(argv[0].value).toLowerCase();
  if (name === undefined || !readsTrees(name, argv.slice(1))) return undefined;
  for (const f of argv.slice(1)) {
    const v = f.glob ? f.pattern.replace(/\/?[^/]*(?<!\\)[*?[].*$/, '') || '/' : f.value;
    if (v === undefined || isOption(v)) continue;
    const paths = v === '~' || v.startsWith('~/') ? [posix.join(places.home, v.slice(1))] : posix.isAbsolute(v) ? [posix.normalize(v)] : places.bases.map((b) => posix.resolve(b, v));
    for (const p of paths.map((x) => (x.length > 1 ? x.replace(/\/+$/, '') : x))) {
      if (p === '/' || p === places.home || places.home.startsWith(`${p}/`)) return `${name} reads the whole of ${p}${p === '/' ? '' : ' (the home directory, where keys live)'}`;
    }
  }
  return undefined;
}
