/**
 * Commands that destroy what they cannot give back: a recursive delete of `/`, a system directory,
 * the home directory or the workspace root (rm, find -delete, and `find -exec rm`), changing
 * ownership or modes of such a tree, writing a block device (dd, redirections), formatting or
 * repartitioning a disk, and a function that calls itself (a fork bomb). A delete whose target is
 * computed at run time (`rm -rf $X`, `xargs rm -rf`) is refused: nothing says it is not `/`.
 * Owns: these rules. Imports node:path and the program tables. Arguments are attacker-controlled.
 */
import { posix } from 'node:path';
import type { Redirect } from './parser.js';
import { SYSTEM_DIRECTORIES } from './programs.js';
import type { Field } from './words.js';

export interface Places {
  home: string;
  /** Where relative paths are resolved (the workspace roots, and directories the text changes into); empty when unknown. */
  bases: readonly string[];
  /** The text changes into a directory computed at run time (`cd "$X"`, `cd -`, `popd`): relative paths may land anywhere. */
  cwdUnknown?: boolean;
}

/** Everything under these is the operating system itself. */
const CORE_DIRECTORIES = [
  '/bin',
  '/boot',
  '/dev',
  '/etc',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/proc',
  '/sbin',
  '/sys',
  '/usr',
  '/System',
];
const BLOCK_DEVICE =
  /^\/dev\/(?:sd[a-z]|nvme\d|hd[a-z]|vd[a-z]|xvd[a-z]|mmcblk\d|disk\d|dm-\d|md\d|loop\d|mapper\/|mem$|kmem$|port$)/;
const FORMATTERS = /^(?:mkfs(?:\.\w+)?|mke2fs|mkswap|wipefs|fdisk|sfdisk|cfdisk|gdisk|sgdisk|parted|blkdiscard)$/;
const FIND_EXEC = new Set(['-exec', '-execdir', '-ok', '-okdir']);
const FIND_FILTERS = new Set([
  '-name',
  '-iname',
  '-path',
  '-ipath',
  '-wholename',
  '-iwholename',
  '-regex',
  '-iregex',
  '-type',
  '-newer',
  '-mtime',
  '-mmin',
  '-atime',
  '-amin',
  '-ctime',
  '-cmin',
  '-size',
  '-empty',
  '-user',
  '-group',
  '-perm',
  '-links',
  '-inum',
  '-samefile',
  '-lname',
  '-ilname',
]);
const OUTPUT_REDIRECTS = new Set(['>', '>>', '>|', '&>', '&>>', '<>', '>&']);

/** The directory a glob or path field stands for: `/usr/*` → `/usr` (its contents), `build` → `build`. */
function literalPart(f: Field): string | undefined {
  if (!f.glob) return f.value;
  const segments = f.pattern.split('/');
  const i = segments.findIndex((s) => /(?<!\\)[*?[]/.test(s));
  const prefix = segments.slice(0, i).join('/').replace(/\\(.)/g, '$1');
  return prefix === '' ? (f.pattern.startsWith('/') ? '/' : '.') : prefix;
}

/** Why deleting (or re-owning) `f` would be destructive, or undefined. */
export function criticalTarget(f: Field, places: Places): string | undefined {
  if (f.value === undefined && !f.glob) return `a path computed at run time (${f.unknown ?? f.pattern})`;
  const text = literalPart(f);
  if (text === undefined) return `a path computed at run time (${f.unknown ?? f.pattern})`;
  let resolved: string[];
  if (posix.isAbsolute(text)) resolved = [posix.normalize(text)];
  else if (places.cwdUnknown === true) return `${text}, relative to a directory the command changes into at run time`;
  else if (places.bases.length > 0) resolved = places.bases.map((b) => posix.resolve(b, text));
  else if (text === '..' || text.startsWith('../')) return `${text}, above a working directory that is not known`;
  else return undefined;
  for (const r of resolved.map((p) => (p.length > 1 ? p.replace(/\/+$/, '') : p))) {
    if (r === '/' || SYSTEM_DIRECTORIES.has(r)) return r;
    if (CORE_DIRECTORIES.some((d) => r.startsWith(`${d}/`))) return `${r} (part of the operating system)`;
    if (r === places.home || places.home.startsWith(`${r}/`))
      return `${r} (the home directory${r === places.home ? '' : ' or above it'})`;
    const base = places.bases.find((b) => r === b || b.startsWith(`${r}/`));
    if (base !== undefined) return `${r} (the workspace root${r === base ? '' : ' or above it'})`;
  }
  return undefined;
}

const isOption = (f: Field) => f.value?.startsWith('-') && f.value !== '-';

function rm(argv: Field[], appendsUnknown: boolean, places: Places): string | undefined {
  let recursive = false;
  const targets: Field[] = [];
  let options = true;
  for (const f of argv.slice(1)) {
    const v = f.value;
    if (options && v === '--') options = false;
    else if (options && isOption(f)) {
      if (v === '--no-preserve-root') return 'rm --no-preserve-root';
      if (v === '--recursive' || (/^-[A-Za-z]+$/.test(v!) && /[rR]/.test(v!))) recursive = true;
    } else targets.push(f);
  }
  if (recursive && appendsUnknown) return 'a recursive rm of paths read at run time (xargs)';
  // An argument computed at run time may be `-rf` as well as `/` (`set -- -rf /etc; rm "$@"`).
  const computed = argv.slice(1).find((f) => f.value === undefined && !f.glob);
  if (computed !== undefined)
    return `rm with an argument computed at run time (${computed.unknown ?? computed.pattern})`;
  for (const t of targets) {
    const why = criticalTarget(t, places);
    if (why !== undefined && (recursive || !why.startsWith('a path computed')))
      return `${recursive ? 'a recursive rm' : 'rm'} of ${why}`;
  }
  return undefined;
}

/** `find PATH… [expression]` with -delete, or running a command on what it finds. */
function find(
  argv: Field[],
  places: Places,
  judge: (argv: Field[], appendsUnknown: boolean) => string | undefined,
): string | undefined {
  const rest = argv.slice(1);
  let i = 0;
  const starts: Field[] = [];
  while (
    i < rest.length &&
    !(rest[i]!.value !== undefined && /^[-(!,]/.test(rest[i]!.value!) && rest[i]!.value !== '-')
  )
    starts.push(rest[i++]!);
  const expression = rest.slice(i);
  const filtered = expression.some((f) => f.value !== undefined && FIND_FILTERS.has(f.value));
  for (let j = 0; j < expression.length; j++) {
    const v = expression[j]!.value;
    if (v !== undefined && FIND_EXEC.has(v)) {
      const inner: Field[] = [];
      for (j++; j < expression.length && expression[j]!.value !== ';' && expression[j]!.value !== '+'; j++) {
        const f = expression[j]!;
        inner.push(
          f.value === '{}'
            ? { value: undefined, pattern: '*', glob: false, unknown: 'a path find passes', procSubst: false }
            : f,
        );
      }
      const why = judge(inner, false);
      if (why !== undefined) return `find ${v} runs a command that is refused: ${why}`;
    }
  }
  if (!expression.some((f) => f.value === '-delete')) return undefined;
  for (const s of starts.length === 0
    ? [{ value: '.', pattern: '.', glob: false, unknown: undefined, procSubst: false }]
    : starts) {
    const why = criticalTarget(s, places);
    if (why === undefined) continue;
    // Deleting everything under a workspace root is refused; deleting matches of a filter there is ordinary cleanup.
    if (filtered && why.includes('workspace root')) continue;
    return `find -delete under ${why}`;
  }
  return undefined;
}

function ownership(argv: Field[], places: Places): string | undefined {
  const positionals = argv.slice(1).filter((f) => !isOption(f));
  for (const t of positionals.slice(1)) {
    const why = criticalTarget(t, places);
    if (why !== undefined && !why.startsWith('a path computed')) return `${argv[0]!.value} of ${why}`;
  }
  return undefined;
}

export function destructiveReason(
  argv: Field[],
  appendsUnknown: boolean,
  places: Places,
  judge: (argv: Field[], appendsUnknown: boolean) => string | undefined,
): string | undefined {
  const name = argv[0]?.value === undefined ? undefined : posix.basename(argv[0].value).toLowerCase();
  if (name === undefined) return undefined;
  if (name === 'rm' || name === 'shred' || name === 'unlink') return rm(argv, appendsUnknown, places);
  if (name === 'find') return find(argv, places, judge);
  if (name === 'chmod' || name === 'chown' || name === 'chgrp') return ownership(argv, places);
  if (FORMATTERS.test(name)) return `${name} formats or repartitions a disk`;
  if (name === 'dd') {
    const of = argv.find((f) => f.value?.startsWith('of=') === true);
    if (of !== undefined && BLOCK_DEVICE.test(of.value!.slice(3))) return `dd writes the device ${of.value!.slice(3)}`;
  }
  return undefined;
}

export function deviceWrite(redirects: readonly Redirect[]): string | undefined {
  for (const r of redirects) {
    if (!OUTPUT_REDIRECTS.has(r.op)) continue;
    const target = r.target[0]?.value;
    if (target !== undefined && BLOCK_DEVICE.test(target)) return `a redirection writes the device ${target}`;
  }
  return undefined;
}

export function selfCallingFunction(functions: ReadonlyArray<{ name: string; calls: string[] }>): string | undefined {
  return functions.find((f) => f.calls.includes(f.name))?.name;
}
