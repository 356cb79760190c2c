/**
 * What a call's arguments name, for the capability constraints (constraints.ts): every string
 * value and every key, every path-like value and every URL- or host-like value, at any depth up
 * to MAX_CONSTRAINT_DEPTH (deeper is reported as `tooDeep`, and violates every constraint: an
 * agent must not hide an argument below where the check looks). A key says what a value is
 * (`file_path`, `callback_url`, `hostname`), and so does the value's own shape (`/etc/x`, `../x`,
 * `file:///x`, `https://…`, `//host/x`, `host.tld:8080/x`, `user@host`); either is enough.
 * Owns: the key vocabulary and the shape rules of constraints. Imports nothing. Arguments are
 * attacker-controlled: nothing here throws on them, however they are shaped.
 */

/** Nesting the constraints inspect; a value below it makes every constraint a violation. */
export const MAX_CONSTRAINT_DEPTH = 64;

/** Where a value sits. Built as a chain and rendered only for a violation (a key may be huge). */
export interface Place {
  readonly parent: Place | null;
  readonly step: string | number;
}

export interface Found {
  value: string;
  place: Place | null;
  /** The value is a key of the object at `place` (a path-shaped key such as `{"/etc/x": …}`). */
  ofKey?: boolean;
}

export interface ArgumentFacts {
  /** Every string value (array items included; keys are not values). */
  strings: Found[];
  /** Every key of every object. */
  keys: Found[];
  /** Path-like values: under a path key (numbers too), or shaped like a path; path-shaped keys. */
  paths: Found[];
  /** URL- or host-like values: under a URL or host key (numbers too), or shaped like one; URL-shaped keys. */
  targets: Found[];
  tooDeep: boolean;
}

/** Keys whose last word names a path; their values are never read as bare host names. */
const PATH_WORDS = new Set([
  'path',
  'paths',
  'pathname',
  'pathnames',
  'file',
  'files',
  'filename',
  'filenames',
  'filepath',
  'filepaths',
  'dir',
  'dirs',
  'dirname',
  'directory',
  'directories',
  'folder',
  'folders',
  'cwd',
  'root',
  'roots',
]);
/** Keys that name a path as a whole word, but may also name a place on the network. */
const PATH_KEYS = new Set([
  'source',
  'sources',
  'destination',
  'destinations',
  'src',
  'dst',
  'dest',
  'target',
  'targets',
  'workdir',
  'workingdir',
  'wd',
]);
/** Keys whose last word names a URL or a host: every value under them is one. */
const NETWORK_WORDS = new Set([
  'url',
  'urls',
  'uri',
  'uris',
  'href',
  'hrefs',
  'endpoint',
  'endpoints',
  'link',
  'links',
  'website',
  'websites',
  'webhook',
  'webhooks',
  'origin',
  'origins',
  'host',
  'hosts',
  'hostname',
  'hostnames',
  'domain',
  'domains',
  'server',
  'servers',
  'servername',
  'authority',
]);
/** Keys that often hold a host but also other things: a value under them is one when it is a single token. */
const MAYBE_NETWORK_WORDS = new Set([
  'ip',
  'ips',
  'ipaddress',
  'ipaddr',
  'ipv4',
  'ipv6',
  'addr',
  'address',
  'addresses',
  'remote',
  'remotes',
  'peer',
  'peers',
  'proxy',
  'upstream',
]);

type Role = 'path-word' | 'path' | 'network' | 'maybe-network' | 'other';

/** The words of a key: `filePath`, `file_path`, `file-path` and `file.path` are the same. */
function keyWords(key: string): string[] {
  return key
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .toLowerCase()
    .split(/[\s_\-.]+/)
    .filter((w) => w !== '');
}

function keyRole(key: string): Role {
  const words = keyWords(key);
  const joined = words.join('');
  const last = words.at(-1) ?? '';
  if (NETWORK_WORDS.has(last) || NETWORK_WORDS.has(joined)) return 'network';
  if (MAYBE_NETWORK_WORDS.has(last) || MAYBE_NETWORK_WORDS.has(joined)) return 'maybe-network';
  // as upstream: any key that says "path" (`pathToFile`, `classpath`, `xpath`)
  if (PATH_WORDS.has(last) || joined.includes('path')) return 'path-word';
  if (PATH_KEYS.has(joined)) return 'path';
  return 'other';
}

/** A string as the WHATWG URL parser reads it: leading and trailing C0 controls and spaces dropped, every tab and newline removed. */
export function urlText(s: string): string {
  // index scans, not /[…]+$/: that regex is quadratic on a long run of spaces (attacker-controlled)
  let start = 0;
  let end = s.length;
  while (start < end && s.charCodeAt(start) <= 0x20) start++;
  while (end > start && s.charCodeAt(end - 1) <= 0x20) end--;
  return s.slice(start, end).replace(/[\t\n\r]/g, '');
}

/** `scheme://…` (a backslash counts as a slash where the parser allows it). */
export const SCHEME_AUTHORITY = /^[a-z][a-z0-9+.-]*:[\\/]{2}/i;
/** Schemes the URL parser gives an authority even without slashes (`http:evil.com`, `https:\\evil.com`). */
export const SPECIAL_SCHEME = /^(?:https?|wss?|ftp|file):/i;
/** `//host/x`: relative to whatever scheme the tool uses. */
export const SCHEME_RELATIVE = /^[\\/]{2}/;

export function urlShaped(s: string): boolean {
  const t = urlText(s);
  return SCHEME_AUTHORITY.test(t) || SPECIAL_SCHEME.test(t) || SCHEME_RELATIVE.test(t);
}

const DOT = '[.\u3002\uFF0E\uFF61]'; // the parser maps the ideographic and full-width dots to "."
const LABEL = '[\\p{L}\\p{N}_-]+';
/** `[user@]host[:port][/path]`: host a dotted name, an IPv4 address or a bracketed IPv6 address. */
const HOST_SHAPE = new RegExp(
  `^([^\\s/?#@\\\\]+@)?(\\[[0-9a-f:.]+\\]|${LABEL}(?:${DOT}${LABEL})*${DOT}?)(:\\d{1,5})?(?:[/?#\\\\]\\S*)?$`,
  'iu',
);

/**
 * A bare host under a key that says nothing (`evil.com`, `evil.com:8080/x`, `user@evil.com`,
 * `10.0.0.1`, `[::1]`). A dotted name counts when its last label starts with a letter, so version
 * numbers (`1.2.3`) and decimals are not hosts; with a port or a user part any name counts.
 */
export function hostShaped(s: string): boolean {
  const m = HOST_SHAPE.exec(urlText(s));
  if (m === null) return false;
  const [, user, host, port] = m as unknown as [string, string | undefined, string, string | undefined];
  if (user !== undefined || port !== undefined || host.startsWith('[')) return true;
  const labels = host.split(new RegExp(DOT, 'u')).filter((l) => l !== '');
  if (labels.length < 2) return false;
  return /^\p{L}/u.test(labels.at(-1)!) || (labels.length === 4 && labels.every((l) => /^\d+$/.test(l)));
}

/**
 * A value shaped like a path: absolute (`/`, `\`, a drive letter), home-relative (`~`, `~/`,
 * `~user/`), `.`/`..` or starting with `./`/`../`, a `file:` URI, or any value with a `..`
 * segment. Multi-line text is prose, not a path (except a `file:` URI, which the URL parser
 * reads across line breaks).
 */
export function pathShaped(s: string): boolean {
  if (/^file:/i.test(urlText(s))) return true;
  const t = s.trim();
  if (/[\r\n]/.test(t)) return false;
  return /^[\\/~]/.test(t) || /^\.{1,2}(?:[\\/]|$)/.test(t) || /^[a-z]:[\\/]/i.test(t) || hasDotDotSegment(t);
}

export function hasDotDotSegment(s: string): boolean {
  return /(?:^|[\\/])\.\.(?:[\\/]|$)/.test(s);
}

/**
 * `$.a.b[0]`, at most 120 characters. Only keys shaped like field names are written out; any other
 * key is data (`{"/etc/x": …}`) and shows as `[…]`. No argument value is ever rendered: a reason
 * lands in a receipt whose parameters the policy may redact.
 */
export function renderPlace(place: Place | null): string {
  const steps: string[] = [];
  for (let p = place; p !== null; p = p.parent) {
    steps.push(
      typeof p.step === 'number' ? `[${p.step}]` : /^[A-Za-z_$][\w$-]{0,39}$/.test(p.step) ? `.${p.step}` : '[…]',
    );
  }
  const text = `$${steps.reverse().join('')}`;
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}

export function argumentFacts(args: unknown): ArgumentFacts {
  const facts: ArgumentFacts = { strings: [], keys: [], paths: [], targets: [], tooDeep: false };

  const classify = (value: string, role: Role, place: Place | null, ofKey = false): void => {
    const found: Found = ofKey ? { value, place, ofKey } : { value, place };
    if (role === 'path' || role === 'path-word' || pathShaped(value)) facts.paths.push(found);
    const network =
      role === 'network' ||
      (role === 'maybe-network' && /^\S+$/.test(value.trim())) ||
      urlShaped(value) ||
      (role !== 'path-word' && !ofKey && hostShaped(value));
    if (network) facts.targets.push(found);
  };

  const visit = (value: unknown, role: Role, place: Place | null, depth: number): void => {
    if (depth > MAX_CONSTRAINT_DEPTH) {
      facts.tooDeep = true;
      return;
    }
    if (typeof value === 'string') {
      facts.strings.push({ value, place });
      classify(value, role, place);
    } else if (typeof value === 'number' || typeof value === 'bigint') {
      // `{host: 2130706433}` is 127.0.0.1 to a tool that builds a URL from it; `{path: 5}` a relative path.
      if (role !== 'other') classify(String(value), role, place);
    } else if (Array.isArray(value)) {
      value.forEach((v, i) => visit(v, role, { parent: place, step: i }, depth + 1));
    } else if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        const at: Place = { parent: place, step: k };
        facts.keys.push({ value: k, place: at, ofKey: true });
        // A key shaped like a path or URL is one (`{files: {"/etc/x": "…"}}`); dotted keys
        // (`editor.fontSize`) are too common to be read as bare host names.
        if (pathShaped(k) || urlShaped(k)) classify(k, 'other', at, true);
        visit(v, keyRole(k), at, depth + 1);
      }
    }
  };

  visit(args, 'other', null, 0);
  return facts;
}
