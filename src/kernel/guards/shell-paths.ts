/**
 * Judges the words of a shell command as paths for the forbidden-path rules. Every word may be a
 * path (`cat .env` names one as surely as `cat ./.env`), and so may the value of `--flag=value`,
 * `key=value` (dd's `if=`), `@file` (curl) and `-I/path`. A glob is expanded against the file
 * system as bash would (dot files only when the pattern names them) and every match is judged; a
 * glob or a partly computed word is also refused when it could name a well-known secret file
 * (`.e*`, `~/.ssh/$X`). A word computed entirely at run time cannot be judged and is not.
 * Owns: word → path candidates, glob expansion. Imports guard helpers only. Words are attacker-controlled.
 */
import { readdirSync } from 'node:fs';
import { posix } from 'node:path';
import picomatch from 'picomatch';
import type { ForbiddenPathGuard, PathVerdict } from './forbidden-path.js';
import type { Field } from './shell/words.js';

/** Secret files a glob or a partly known word is tested against, relative to a home or workspace. */
const SECRET_TAILS = [
  '.env',
  '.env.local',
  '.env.production',
  'sub/.env',
  '.ssh/id_rsa',
  '.ssh/id_ed25519',
  '.ssh/authorized_keys',
  'id_rsa',
  'id_ed25519',
  '.aws/credentials',
  '.aws/config',
  '.netrc',
  '.npmrc',
  '.pypirc',
  '.git-credentials',
  '.gitconfig',
  '.git/config',
  '.git/hooks/pre-commit',
  '.kube/config',
  '.docker/config.json',
  '.gnupg/secring.gpg',
  '.pgpass',
  '.vault-token',
  '.config/gh/hosts.yml',
  '.password-store/x.gpg',
];
const SECRET_ABSOLUTE = [
  '/etc/shadow',
  '/etc/gshadow',
  '/etc/passwd',
  '/etc/sudoers',
  '/proc/self/environ',
  '/proc/1/environ',
  '/proc/self/mem',
  '/run/secrets/db',
  '/var/run/secrets/kubernetes.io/serviceaccount/token',
];
const MAX_GLOB_MATCHES = 5000;
const URL_SHAPE = /^[a-z][a-z0-9+.-]*:\/\//i;

/** The texts a word may name as a path. */
function candidates(text: string): string[] {
  if (text === '' || text === '-' || text === '--') return [];
  if (/^file:\/\//i.test(text)) return [text.replace(/^file:\/\//i, '')];
  if (URL_SHAPE.test(text)) return [];
  const out = [text];
  const option = /^--?[A-Za-z0-9][\w.-]*=(.+)$/s.exec(text) ?? /^[A-Za-z_][\w]*=(.+)$/s.exec(text);
  if (option !== null) out.push(option[1]!);
  const short = /^-[A-Za-z](.+)$/s.exec(text);
  if (short !== null && /[/@~]|^\./.test(short[1]!)) out.push(short[1]!);
  // curl's `@file` and `-F name=@file` read the file
  for (const c of [...out]) if (c.startsWith('@') && c.length > 1) out.push(c.slice(1));
  return out;
}

/** Paths on disk a glob matches (bash without dotglob: `*` skips dot files unless the segment starts with `.`). */
function expandGlob(pattern: string, roots: readonly string[]): string[] | 'too-many' {
  const anchored = pattern.startsWith('/');
  const segments = pattern.split('/').filter((s) => s !== '');
  const matches: string[] = [];
  let visited = 0;
  const walk = (dir: string, i: number): boolean => {
    if (i === segments.length) {
      matches.push(dir);
      return matches.length <= MAX_GLOB_MATCHES;
    }
    const seg = segments[i]!;
    if (!/(?<!\\)[*?[]/.test(seg)) return walk(posix.join(dir, seg.replace(/\\(.)/g, '$1')), i + 1);
    let entries: string[];
    try {
      entries = readdirSync(dir);
    } catch {
      return true;
    }
    const match = picomatch(seg.replace(/\*\*/g, '*'), { dot: seg.startsWith('.') });
    for (const e of entries) {
      if (++visited > MAX_GLOB_MATCHES * 4) return false;
      if (match(e) && !walk(posix.join(dir, e), i + 1)) return false;
    }
    return true;
  };
  for (const root of anchored ? ['/'] : roots) if (!walk(root, 0)) return 'too-many';
  return matches;
}

function couldNameSecret(
  forbidden: ForbiddenPathGuard,
  pattern: string,
  dot: boolean,
  home: string,
  bases: readonly string[],
): string | undefined {
  const match = picomatch(pattern, { dot, nocase: true });
  const samples = pattern.startsWith('/')
    ? [...SECRET_ABSOLUTE, ...[home, ...bases].flatMap((root) => SECRET_TAILS.map((t) => posix.join(root, t)))]
    : SECRET_TAILS;
  return samples.find((s) => match(s) && forbidden.matches(s) !== undefined);
}

export function judgeShellWord(
  forbidden: ForbiddenPathGuard,
  f: Field,
  bases: readonly string[],
  home: string,
): PathVerdict {
  if (f.value !== undefined && !f.glob) {
    for (const c of candidates(f.value)) {
      const v = forbidden.judge(c, bases, false);
      if (!v.ok) return v;
    }
    return { ok: true };
  }
  // Computed from values this text sets: it is the text's own doing, and the guard does not evaluate it.
  if (f.derived === true)
    return {
      ok: false,
      reason: `a word computed at run time from values this command sets (${f.unknown ?? f.pattern})`,
      details: 'derived word',
    };
  // Entirely computed at run time: nothing to judge before it runs.
  if (f.pattern === '*' || f.pattern === '') return { ok: true };
  for (const c of candidates(f.pattern)) {
    if (!/(?<!\\)[*?[]/.test(c)) continue;
    if (f.glob && f.value !== undefined) {
      const found = expandGlob(c, bases);
      if (found === 'too-many')
        return { ok: false, reason: `the glob ${c} matches more than ${MAX_GLOB_MATCHES} paths to judge`, details: c };
      for (const path of found) {
        const v = forbidden.judge(path, [], false);
        if (!v.ok) return v;
      }
    }
    const secret = couldNameSecret(forbidden, c, f.value === undefined, home, bases);
    if (secret !== undefined)
      return {
        ok: false,
        reason: `${f.value === undefined ? 'a word computed at run time' : 'the glob'} ${c} could name a forbidden path (${secret})`,
        details: forbidden.matches(secret)!,
      };
  }
  return { ok: true };
}
