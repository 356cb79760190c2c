/**
 * RFC 8785 JSON Canonicalization Scheme (JCS): the text that is hashed and signed.
 *
 * Owns: serialising a JSON value to its canonical text, and refusing what has none.
 * Must not import anything outside src/crypto.
 *
 * The text is written in one walk (`serialize`): members sorted by their names' UTF-16 code units
 * (RFC 8785 §3.2.3, what Array.prototype.sort does on strings), strings and finite numbers exactly
 * as JSON.stringify writes them (§3.2.2.2, §3.2.2.3). The `canonicalize` package (the reference
 * the tests compare every random value against) silently drops `undefined` members, honours
 * `toJSON` (a Date becomes a string) and accepts any integer-valued double. Signed bytes must mean
 * one thing in every language, so the walk refuses:
 *  - anything that is not a JSON value: undefined, functions, symbols, bigint, class instances
 *    (Date, Map, Buffer, …) and arrays of another prototype, objects and arrays with `toJSON`
 *    (JSON.stringify would send what it returns, not the members hashed here), sparse arrays, cycles;
 *  - strings with lone surrogates (RFC 8785 §3.2.2.2 requires well-formed Unicode);
 *  - non-finite numbers, and integers beyond 2^53−1 (RFC 7493 I-JSON §2.2: other languages
 *    parse them into int64/uint64 and re-serialise them differently; DESIGN §4 says such values go
 *    as decimal strings). Non-integer finite numbers use the ECMAScript form RFC 8785 §3.2.2.3 fixes.
 * Inputs here are often attacker-controlled (tool parameters, receipts read from files), so the
 * walk is bounded in depth and reports the JSON path of the first offending value.
 */
import { ChioError } from '../errors.js';

/** Deep enough for any real tool parameters; shallow enough that the walk can never exhaust the stack. */
export const MAX_JSON_DEPTH = 128;

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

const encoder = new TextEncoder();

/** JSON path of the value being checked, as keys/indexes; turned into text only on refusal. */
type Trail = Array<string | number>;

function pathOf(trail: Trail): string {
  let path = '$';
  for (const step of trail) {
    path +=
      typeof step === 'number'
        ? `[${step}]`
        : /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(step)
          ? `.${step}`
          : `[${JSON.stringify(step)}]`;
  }
  return path;
}

function refuse(trail: Trail, reason: string): never {
  const path = pathOf(trail);
  throw new ChioError('CHIO-CRYPTO-NOT-CANONICAL', `cannot canonicalize ${path}: ${reason}`, {
    details: { path, reason },
  });
}

function check(value: unknown, trail: Trail, ancestors: Set<object>): void {
  switch (typeof value) {
    case 'string':
      if (!value.isWellFormed()) refuse(trail, 'string contains a lone surrogate');
      return;
    case 'number':
      if (!Number.isFinite(value)) refuse(trail, `number ${value} is not finite`);
      if (Number.isInteger(value) && !Number.isSafeInteger(value)) {
        refuse(trail, `integer ${value} is beyond 2^53-1; send it as a decimal string`);
      }
      return;
    case 'boolean':
      return;
    case 'object':
      break;
    default:
      refuse(trail, `${typeof value} is not a JSON value`);
  }
  if (value === null) return;
  if (trail.length >= MAX_JSON_DEPTH) refuse(trail, `nesting deeper than ${MAX_JSON_DEPTH} levels`);
  if (ancestors.has(value)) refuse(trail, 'circular reference');
  ancestors.add(value);
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) refuse(trail, 'array is not a plain JSON array');
    if (typeof (value as { toJSON?: unknown }).toJSON === 'function') refuse(trail, 'array has a toJSON method');
    for (let i = 0; i < value.length; i++) {
      trail.push(i);
      if (!(i in value)) refuse(trail, 'sparse array hole');
      check(value[i], trail, ancestors);
      trail.pop();
    }
  } else {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      refuse(trail, `${proto?.constructor?.name ?? 'exotic'} object is not a plain JSON object`);
    }
    if (typeof (value as { toJSON?: unknown }).toJSON === 'function') refuse(trail, 'object has a toJSON method');
    if (Object.getOwnPropertySymbols(value).length > 0) refuse(trail, 'object has symbol keys');
    for (const key of Object.keys(value)) {
      if (!key.isWellFormed()) refuse(trail, 'member name contains a lone surrogate');
      trail.push(key);
      check((value as Record<string, unknown>)[key], trail, ancestors);
      trail.pop();
    }
  }
  ancestors.delete(value);
}

/** Throws `CHIO-CRYPTO-NOT-CANONICAL` unless `value` is a JSON value JCS can represent without loss. */
export function assertCanonicalizable(value: unknown): asserts value is JsonValue {
  check(value, [], new Set());
}

/** RFC 8785 canonical JSON text of `value`. */
export function canonicalJson(value: unknown): string {
  // Primitives, the most common member values of a receipt, need neither the walk nor the
  // library: RFC 8785 §3.2.2 serialises a string and a finite number exactly as JSON.stringify.
  if (typeof value === 'string') {
    if (!value.isWellFormed()) refuse([], 'string contains a lone surrogate');
    return quote(value);
  }
  try {
    return serialize(value, 0);
  } catch (e) {
    if (e !== NOT_CANONICAL) throw e;
  }
  // The walk only knows that something was refused; `check` walks again, keeping the JSON path,
  // and throws the refusal with its path and reason (a cycle, which the walk meets as nesting
  // beyond MAX_JSON_DEPTH, is reported as the cycle it is).
  assertCanonicalizable(value);
  return refuse([], 'value has no canonical JSON form');
}

/** Thrown inside `serialize` (never escapes `canonicalJson`): the value has no canonical text. */
const NOT_CANONICAL: unique symbol = Symbol('not canonical');

/**
 * The canonical text of a value, checked as it is written: the same refusals as `check`, without
 * the JSON path (rebuilt by `check` only when something is refused). No set of ancestors: a cycle
 * nests without end and is refused at MAX_JSON_DEPTH. Each member is read once, so a getter (not
 * that JSON.parse makes any) cannot show the check one value and the text another.
 */
function serialize(value: unknown, depth: number): string {
  switch (typeof value) {
    case 'string':
      if (!value.isWellFormed()) throw NOT_CANONICAL;
      return quote(value);
    case 'number':
      // A safe integer's text is its decimal digits (ECMAScript Number::toString, RFC 8785 §3.2.2.3),
      // which a template writes several times faster than JSON.stringify; -0 is "0" either way.
      if (Number.isSafeInteger(value)) return `${value}`;
      if (!Number.isFinite(value) || Number.isInteger(value)) throw NOT_CANONICAL;
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      break;
    default:
      throw NOT_CANONICAL;
  }
  if (value === null) return 'null';
  if (depth >= MAX_JSON_DEPTH) throw NOT_CANONICAL;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) throw NOT_CANONICAL;
    if (typeof (value as { toJSON?: unknown }).toJSON === 'function') throw NOT_CANONICAL;
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) throw NOT_CANONICAL;
      if (i > 0) out += ',';
      out += serialize(value[i], depth + 1);
    }
    return `${out}]`;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) throw NOT_CANONICAL;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') throw NOT_CANONICAL;
  if (Object.getOwnPropertySymbols(value).length > 0) throw NOT_CANONICAL;
  const names = sortedKeys(value);
  let out = '{';
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    const prefix = memberPrefix(name);
    if (prefix === undefined) throw NOT_CANONICAL;
    if (i > 0) out += ',';
    out += prefix + serialize((value as Record<string, unknown>)[name], depth + 1);
  }
  return `${out}}`;
}

/** Characters JSON.stringify escapes in a well-formed string (RFC 8259 §7): `"`, `\\` and C0 controls. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the C0 controls are exactly what must be found
const ESCAPED = /["\\\u0000-\u001f]/;

/**
 * JSON.stringify of a well-formed string (RFC 8785 §3.2.2.2 serialises strings as it does). Most
 * strings in a receipt need no escape at all, and for those quoting them directly is ~3× faster.
 */
function quote(value: string): string {
  return ESCAPED.test(value) ? JSON.stringify(value) : `"${value}"`;
}

/** Own member names in RFC 8785 order (UTF-16 code units, §3.2.3); a list already in order is not sorted again. */
export function sortedKeys(value: object): string[] {
  const names = Object.keys(value);
  for (let i = 1; i < names.length; i++) if (names[i - 1]! > names[i]!) return names.sort();
  return names;
}

/** RFC 8785 canonical JSON as UTF-8 bytes (the form that is hashed and signed). */
export function canonicalBytes(value: unknown): Uint8Array {
  return encoder.encode(canonicalJson(value));
}

/**
 * JCS of a plain object whose member values are already canonical texts. RFC 8785 §3.2.3 sorts
 * members by their names' UTF-16 code units, which is what Array.prototype.sort does on strings;
 * names are escaped exactly as JSON.stringify (and so `canonicalize`) escapes them.
 * Lets the receipt signer canonicalize each member once and assemble the id input, the signed
 * body and the stored body from the same pieces (`exclude` leaves members out).
 */
export function joinCanonicalMembers(members: ReadonlyMap<string, string>, exclude?: ReadonlySet<string>): string {
  const names = [...members.keys()].sort();
  let out = '{';
  for (const name of names) {
    if (exclude?.has(name) === true) continue;
    if (out.length > 1) out += ',';
    out += canonicalMember(name, members.get(name)!);
  }
  return `${out}}`;
}

/** `"name":text` of one member whose value's canonical text is `text`. Throws for a lone-surrogate name. */
export function canonicalMember(name: string, text: string): string {
  return (memberPrefix(name) ?? refuse([], 'member name contains a lone surrogate')) + text;
}

// `"name":` for the member names seen so far: receipts reuse the same few dozen names. Only short
// names are kept: member names of tool arguments are the agent's choice, and a cache of long ones
// would keep megabytes of them alive for the life of the process.
const PREFIX_CACHE_LIMIT = 1024;
const PREFIX_CACHE_NAME_LENGTH = 64;
const prefixes = new Map<string, string>();
/** `"name":`, or undefined for a name with a lone surrogate (RFC 8785 §3.2.2.2: no canonical text). */
function memberPrefix(name: string): string | undefined {
  let prefix = prefixes.get(name);
  if (prefix === undefined) {
    if (!name.isWellFormed()) return undefined;
    prefix = `${JSON.stringify(name)}:`;
    if (name.length <= PREFIX_CACHE_NAME_LENGTH && prefixes.size < PREFIX_CACHE_LIMIT) prefixes.set(name, prefix);
  }
  return prefix;
}
