/**
 * Constraint semantics (after upstream's chio-kernel request_matching.rs, tightened so a
 * constraint holds for every argument, not for one of them). Each is judged on what the arguments
 * name (arguments.ts), at any depth; arguments nested deeper than MAX_CONSTRAINT_DEPTH violate
 * every constraint.
 *  - path_prefix:   every path-like value, as the tool would open it (a `file:` URI decoded, `..`
 *                   folded, a backslash read both as a character and as a separator), lies under
 *                   the prefix on a segment boundary; a relative or `~` path never does; none → violation
 *  - domain_exact / domain_glob: every URL- or host-like value, parsed by the WHATWG URL parser as a
 *                   tool would (trimmed; `//host`, bare `host:port/x` and `user@host` get `http:`),
 *                   has a host that matches; one that does not parse or has no host (`file:///x`,
 *                   `data:…`) is a violation; none → violation
 *  - regex_match:   every string value matches (JavaScript RegExp syntax on V8's linear-time engine,
 *                   linear-regexp.ts; a pattern it cannot run is unusable), and every path-like
 *                   value also as the path it names (a `file:` URI decoded, a value with `..` folded);
 *                   no string → violation
 *  - max_length:    every string value and every key is at most this many UTF-16 code units
 *  - max_args_size: the canonical JSON of the arguments is at most this many bytes
 * Also: which constraint implies another (for delegation, which may only narrow).
 * Owns: constraint semantics. Imports src/crypto and src/errors. Arguments are attacker-controlled;
 * a verdict's reason names the constraint and where the value sits, never the value (it may be a
 * secret the receipt redacts).
 */
import { canonicalBytes } from '../crypto/index.js';
import {
  argumentFacts,
  hasDotDotSegment,
  MAX_CONSTRAINT_DEPTH,
  renderPlace,
  SCHEME_AUTHORITY,
  SCHEME_RELATIVE,
  SPECIAL_SCHEME,
  urlText,
} from './arguments.js';
import type { ArgumentFacts, Found } from './arguments.js';
import { linearRegExp } from './linear-regexp.js';
import type { Constraint } from './schema.js';

export type ConstraintVerdict = { ok: true } | { ok: false; reason: string };

const OK: ConstraintVerdict = { ok: true };
const where = (f: Found) =>
  f.ofKey === true ? `a key of ${renderPlace(f.place?.parent ?? null)}` : `the value at ${renderPlace(f.place)}`;

/**
 * `.` and `..` folded, repeated slashes collapsed, as posix.normalize does (a trailing slash kept;
 * `..` above the root stays at the root, above a relative start it is kept). Linear: node's
 * normalize is quadratic on a long run of `../`, and this string is attacker-controlled.
 */
export function foldPath(p: string): string {
  const absolute = p.startsWith('/');
  const out: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg !== '..') out.push(seg);
    else if (out.length > 0 && out[out.length - 1] !== '..') out.pop();
    else if (!absolute) out.push('..');
  }
  const body = out.join('/');
  if (absolute) return body === '' ? '/' : `/${body}${p.endsWith('/') ? '/' : ''}`;
  return `${body === '' ? '.' : body}${p.endsWith('/') ? '/' : ''}`;
}

/** Every lexical form of an absolute path (`..` folded; with backslashes also as separators), or null if it is not absolute. */
function lexicalForms(p: string): string[] | null {
  if (!p.startsWith('/') || p.includes('\0')) return null;
  const forms = [foldPath(p)];
  if (p.includes('\\')) forms.push(foldPath(p.replace(/\\/g, '/')));
  return forms;
}

/** Whether `path` (in every reading) lies under `prefix` on a segment boundary: `..` can never climb out. */
export function pathWithin(path: string, prefix: string): boolean {
  const forms = lexicalForms(path);
  const base = lexicalForms(prefix)?.[0];
  if (forms === null || base === undefined) return false;
  if (base === '/') return true;
  const root = base.endsWith('/') ? base.slice(0, -1) : base;
  return forms.every((p) => p === root || p.startsWith(`${root}/`));
}

/**
 * The paths a path-like value names, as a tool would open them: a `file:` URI's decoded path
 * (null when it does not parse, names another host, or does not decode), else the value as given
 * and trimmed (a tool may trim: `/srv/app/.. ` is `/srv` to it).
 */
function openedPaths(raw: string): string[] | null {
  const u = urlText(raw);
  if (/^file:/i.test(u)) {
    try {
      const url = new URL(u);
      if (url.hostname !== '') return null; // file://host/share is a network share (the parser maps localhost to '')
      return [decodeURIComponent(url.pathname)];
    } catch {
      return null;
    }
  }
  const t = raw.trim();
  return t === raw ? [raw] : [raw, t];
}

/** Lower case, IDNA (punycode), no trailing dot — as the URL parser writes a host. */
export function normaliseHost(host: string): string {
  const h = host.trim().toLowerCase();
  try {
    const parsed = new URL(`http://${h}`).hostname;
    if (parsed !== '') return parsed.replace(/\.+$/, '');
  } catch {
    // not a host the parser accepts (a glob with unusual characters): compared as written
  }
  return h.replace(/\.+$/, '');
}

/** The host a URL- or host-like value reaches, as the WHATWG URL parser reads it; null if it does not parse or has none. */
export function hostOf(raw: string): string | null {
  const t = urlText(raw);
  let url: URL;
  try {
    url =
      SCHEME_AUTHORITY.test(t) || SPECIAL_SCHEME.test(t)
        ? new URL(t)
        : SCHEME_RELATIVE.test(t)
          ? new URL(`http:${t}`)
          : new URL(`http://${t}`);
  } catch {
    return null;
  }
  const host = url.hostname.toLowerCase().replace(/\.+$/, '');
  return host === '' ? null : host;
}

/** `*` matches any run of characters (including dots: `*.example.com` covers `a.b.example.com`). */
export function globMatches(pattern: string, value: string): boolean {
  const re = linearRegExp(
    `^${pattern
      .toLowerCase()
      .split('*')
      .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
    's',
  );
  return re.test(value);
}

/** What regex_match judges: every string value, path-like keys and numbers, and the path each path-like value names. */
function regexSubjects(facts: ArgumentFacts): Array<{ found: Found; text: string | null }> {
  const out: Array<{ found: Found; text: string | null }> = facts.strings.map((f) => ({ found: f, text: f.value }));
  for (const f of facts.paths) {
    out.push({ found: f, text: f.value });
    const opened = openedPaths(f.value);
    if (opened === null) {
      out.push({ found: f, text: null });
      continue;
    }
    const isFileUri = /^file:/i.test(urlText(f.value));
    for (const p of opened) {
      if (isFileUri) out.push({ found: f, text: p });
      if (isFileUri || hasDotDotSegment(p)) {
        out.push({ found: f, text: foldPath(p) });
        if (p.includes('\\')) out.push({ found: f, text: foldPath(p.replace(/\\/g, '/')) });
      }
    }
  }
  return out;
}

/** Whether `constraint` admits the arguments whose facts are given, and if not, why. An unusable constraint (a bad regex) throws. */
export function constraintVerdictOn(constraint: Constraint, facts: ArgumentFacts, args: unknown): ConstraintVerdict {
  const label = `${constraint.type} ${JSON.stringify(constraint.value)}`;
  if (facts.tooDeep)
    return { ok: false, reason: `${label}: the arguments nest deeper than ${MAX_CONSTRAINT_DEPTH} levels` };
  switch (constraint.type) {
    case 'path_prefix': {
      if (facts.paths.length === 0) return { ok: false, reason: `${label}: the arguments name no path` };
      for (const f of facts.paths) {
        const opened = openedPaths(f.value);
        if (opened === null)
          return { ok: false, reason: `${label}: ${where(f)} is a file: URI that names no local path` };
        if (!opened.every((p) => pathWithin(p, constraint.value)))
          return { ok: false, reason: `${label}: ${where(f)} is a path outside the prefix (or relative)` };
      }
      return OK;
    }
    case 'domain_exact':
    case 'domain_glob': {
      if (facts.targets.length === 0) return { ok: false, reason: `${label}: the arguments name no URL or host` };
      const want = normaliseHost(constraint.value);
      const ok = constraint.type === 'domain_exact' ? (h: string) => h === want : (h: string) => globMatches(want, h);
      for (const f of facts.targets) {
        const host = hostOf(f.value);
        if (host === null)
          return {
            ok: false,
            reason: `${label}: ${where(f)} looks like a URL or host but does not parse to one with a host`,
          };
        if (!ok(host)) return { ok: false, reason: `${label}: ${where(f)} names another host` };
      }
      return OK;
    }
    case 'regex_match': {
      const re = linearRegExp(constraint.value);
      const subjects = regexSubjects(facts);
      if (subjects.length === 0) return { ok: false, reason: `${label}: the arguments hold no string` };
      for (const s of subjects) {
        if (s.text === null)
          return { ok: false, reason: `${label}: ${where(s.found)} is a file: URI that names no local path` };
        if (!re.test(s.text)) return { ok: false, reason: `${label}: ${where(s.found)} does not match` };
      }
      return OK;
    }
    case 'max_length': {
      for (const f of [...facts.strings, ...facts.keys]) {
        if (f.value.length > constraint.value)
          return { ok: false, reason: `${label}: ${where(f)} is ${f.value.length} characters long` };
      }
      return OK;
    }
    case 'max_args_size': {
      const size = canonicalBytes(args ?? {}).length;
      return size <= constraint.value
        ? OK
        : { ok: false, reason: `${label}: the arguments are ${size} bytes of canonical JSON` };
    }
  }
}

/** `constraintVerdictOn` for arguments not yet walked. */
export function constraintVerdict(constraint: Constraint, args: unknown): ConstraintVerdict {
  return constraintVerdictOn(constraint, argumentFacts(args), args);
}

/** Whether `constraint` admits `args`; an unusable constraint (bad regex) throws. */
export function constraintMatches(constraint: Constraint, args: unknown): boolean {
  return constraintVerdict(constraint, args).ok;
}

/**
 * Whether every call `child` admits, `parent` admits too (so a delegation may replace the parent's
 * constraint by it). Only implications that hold for every argument tree: the same constraint; a
 * path prefix under the parent's; an exact domain the parent's domain or glob matches; a smaller
 * max_length / max_args_size. Anything else (two different globs or regexes) is not implied.
 */
export function constraintImplies(child: Constraint, parent: Constraint): boolean {
  if (child.type === parent.type && child.value === parent.value) return true;
  switch (parent.type) {
    case 'path_prefix':
      return child.type === 'path_prefix' && pathWithin(child.value, parent.value);
    case 'domain_exact':
    case 'domain_glob': {
      const exact = child.type === 'domain_exact' || (child.type === 'domain_glob' && !child.value.includes('*'));
      // A glob is implied only by the same glob: an exact parent admits one host, even one spelled with `*`.
      if (!exact)
        return (
          child.type === 'domain_glob' &&
          parent.type === 'domain_glob' &&
          normaliseHost(child.value) === normaliseHost(parent.value)
        );
      const host = normaliseHost(child.value as string);
      return parent.type === 'domain_exact'
        ? host === normaliseHost(parent.value)
        : globMatches(normaliseHost(parent.value), host);
    }
    case 'max_length':
    case 'max_args_size':
      return child.type === parent.type && child.value <= parent.value;
    case 'regex_match':
      return false;
  }
}
