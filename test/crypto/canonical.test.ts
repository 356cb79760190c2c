// Proves canonicalJson is RFC 8785 (JCS) on the RFC's own examples, and refuses, naming the JSON path, every value JCS cannot carry losslessly.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, joinCanonicalMembers, MAX_JSON_DEPTH } from '../../src/crypto/index.js';
import { ChioError } from '../../src/errors.js';
import { loadVector } from '../helpers/vectors.js';

const v = loadVector('rfc/rfc8785.json');

/** Runs `fn`, expects a CHIO-CRYPTO-NOT-CANONICAL refusal and returns it. */
function refusal(fn: () => unknown): ChioError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ChioError);
    const e = error as ChioError;
    expect(e.code).toBe('CHIO-CRYPTO-NOT-CANONICAL');
    return e;
  }
  throw new Error('expected canonicalJson to refuse the value, but it returned');
}

function expectRefused(value: unknown, path: string, reason: RegExp): void {
  const e = refusal(() => canonicalJson(value));
  expect(e.message).toContain(`cannot canonicalize ${path}:`);
  expect(e.message).toMatch(reason);
  expect(e.details).toMatchObject({ path });
}

function decodeDouble(ieeeHex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${ieeeHex}`));
  return view.getFloat64(0);
}

describe('RFC 8785 §3.2.2 / §3.2.4 main example', () => {
  it('refuses the example as given: 1E30 is an integer beyond 2^53-1', () => {
    const e = refusal(() => canonicalJson(JSON.parse(v.main_example_input)));
    expect(e.message).toContain('$.numbers[1]');
    expect(e.message).toMatch(/beyond 2\^53-1/);
  });

  it('without 1E30 gives exactly the §3.2.4 output minus `1e+30,`', () => {
    const input = JSON.parse(v.main_example_input);
    expect(input.numbers[1]).toBe(1e30);
    input.numbers.splice(1, 1);
    const expected = (v.main_example_output as string).replace('1e+30,', '');
    expect(expected).not.toBe(v.main_example_output);
    expect(canonicalJson(input)).toBe(expected);
  });
});

describe('RFC 8785 §3.2.3 sorting example', () => {
  it('emits the members in UTF-16 code-unit order', () => {
    const out = canonicalJson(JSON.parse(v.sorting_example_input));
    const keys = [...out.matchAll(/"((?:[^"\\]|\\.)*)":/g)].map((m) => JSON.parse(`"${m[1]}"`));
    expect(keys).toEqual(v.sorting_example_expected_key_order);
    expect(keys).toHaveLength(7);
  });
});

describe('RFC 8785 Appendix B number serialization', () => {
  const rows = (v.number_examples as { ieee_hex: string; expected: string; comment: string }[]).map((r) => ({
    ...r,
    n: decodeDouble(r.ieee_hex),
  }));
  const nonFinite = rows.filter((r) => !Number.isFinite(r.n));
  const unsafeInts = rows.filter((r) => Number.isFinite(r.n) && Number.isInteger(r.n) && !Number.isSafeInteger(r.n));
  const accepted = rows.filter((r) => Number.isFinite(r.n) && (!Number.isInteger(r.n) || Number.isSafeInteger(r.n)));

  it('partitions the table as expected (so no group is vacuous)', () => {
    expect(rows).toHaveLength(26);
    expect(accepted).toHaveLength(13);
    expect(unsafeInts).toHaveLength(11);
    expect(nonFinite).toHaveLength(2);
    expect(unsafeInts.map((r) => r.expected)).toEqual(
      expect.arrayContaining([
        '1e+21',
        '9007199254740992',
        '-9007199254740992',
        '295147905179352830000',
        '1.7976931348623157e+308',
      ]),
    );
  });

  it('serializes every safe-integer or non-integer row exactly as the RFC says', () => {
    for (const r of accepted) expect(canonicalJson(r.n), `${r.ieee_hex} ${r.comment}`).toBe(r.expected);
    for (const r of accepted) expect(canonicalJson([r.n]), r.ieee_hex).toBe(`[${r.expected}]`);
  });

  it('refuses every integer beyond 2^53-1', () => {
    for (const r of unsafeInts) expectRefused({ x: r.n }, '$.x', /beyond 2\^53-1/);
  });

  it('refuses NaN and Infinity', () => {
    for (const r of nonFinite) expectRefused(r.n, '$', /not finite/);
  });
});

describe('refusals name the offending path', () => {
  class Point {
    constructor(public x = 1) {}
  }
  const cases: [string, () => unknown, string, RegExp][] = [
    ['undefined member value', () => ({ a: { b: undefined } }), '$.a.b', /undefined is not a JSON value/],
    ['function', () => ({ f: () => 1 }), '$.f', /function is not a JSON value/],
    ['symbol', () => [1, Symbol('s')], '$[1]', /symbol is not a JSON value/],
    ['bigint', () => ({ n: 1n }), '$.n', /bigint is not a JSON value/],
    ['Date', () => ({ when: new Date(0) }), '$.when', /Date object is not a plain JSON object/],
    ['Map', () => ({ m: new Map() }), '$.m', /Map object is not a plain JSON object/],
    ['class instance', () => ({ 'a b': [new Point()] }), '$["a b"][0]', /Point object is not a plain JSON object/],
    ['object with toJSON', () => ({ t: { toJSON: () => 'x' } }), '$.t', /toJSON/],
    // biome-ignore lint/suspicious/noSparseArray: the hole is the input under test
    ['sparse array hole', () => ({ arr: [1, , 3] }), '$.arr[1]', /sparse array hole/],
    ['lone surrogate in a string', () => ({ s: 'a\ud800b' }), '$.s', /lone surrogate/],
    ['lone surrogate in a key', () => ({ o: { '\udc00': 1 } }), '$.o', /member name contains a lone surrogate/],
    ['NaN', () => ({ n: [NaN] }), '$.n[0]', /NaN is not finite/],
    ['Infinity', () => ({ n: -Infinity }), '$.n', /-Infinity is not finite/],
  ];
  for (const [name, make, path, reason] of cases) {
    it(name, () => expectRefused(make(), path, reason));
  }

  it('a cycle', () => {
    const a: Record<string, unknown> = { b: { list: [] as unknown[] } };
    (a.b as { list: unknown[] }).list.push(a);
    expectRefused(a, '$.b.list[0]', /circular reference/);
  });

  it('a shared (non-cyclic) reference is not a cycle', () => {
    const shared = { k: 1 };
    expect(canonicalJson({ a: shared, b: [shared] })).toBe('{"a":{"k":1},"b":[{"k":1}]}');
  });

  function nested(levels: number): unknown {
    let value: unknown = 0;
    for (let i = 0; i < levels; i++) value = [value];
    return value;
  }

  it(`nesting of MAX_JSON_DEPTH - 1 (${MAX_JSON_DEPTH - 1}) and MAX_JSON_DEPTH levels is accepted`, () => {
    expect(canonicalJson(nested(MAX_JSON_DEPTH - 1))).toBe(
      `${'['.repeat(MAX_JSON_DEPTH - 1)}0${']'.repeat(MAX_JSON_DEPTH - 1)}`,
    );
    expect(canonicalJson(nested(MAX_JSON_DEPTH))).toBe(`${'['.repeat(MAX_JSON_DEPTH)}0${']'.repeat(MAX_JSON_DEPTH)}`);
  });

  it('nesting deeper than MAX_JSON_DEPTH is refused, also when very deep', () => {
    expectRefused(nested(MAX_JSON_DEPTH + 1), `$${'[0]'.repeat(MAX_JSON_DEPTH)}`, /nesting deeper than 128 levels/);
    expectRefused(nested(100_000), `$${'[0]'.repeat(MAX_JSON_DEPTH)}`, /nesting deeper/);
  });
});

describe('properties', () => {
  type J = null | boolean | number | string | J[] | { [k: string]: J };

  /** Maps away what JCS (by design) does not round-trip: -0 and unsafe integers. Builds objects with own `__proto__` safely. */
  function sanitize(x: unknown): J {
    if (typeof x === 'number') {
      if (Object.is(x, -0)) return 0;
      return Number.isInteger(x) && !Number.isSafeInteger(x) ? String(x) : x;
    }
    if (Array.isArray(x)) return x.map(sanitize);
    if (x !== null && typeof x === 'object')
      return Object.fromEntries(Object.entries(x).map(([k, e]) => [k, sanitize(e)]));
    return x as J;
  }

  /** Same value, object keys inserted in a (seeded) shuffled order. */
  function shuffleKeys(x: J, seed: { s: number }): J {
    if (Array.isArray(x)) return x.map((e) => shuffleKeys(e, seed));
    if (x === null || typeof x !== 'object') return x;
    const entries = Object.entries(x);
    for (let i = entries.length - 1; i > 0; i--) {
      seed.s = (Math.imul(seed.s, 1103515245) + 12345) >>> 0;
      const j = seed.s % (i + 1);
      [entries[i], entries[j]] = [entries[j]!, entries[i]!];
    }
    return Object.fromEntries(entries.map(([k, e]) => [k, shuffleKeys(e, seed)]));
  }

  const jsonValue = fc.jsonValue({ stringUnit: 'binary', maxDepth: 6 }).map(sanitize);

  it('round-trips, is idempotent and ignores key insertion order', () => {
    fc.assert(
      fc.property(jsonValue, fc.nat(), (x, seed) => {
        const text = canonicalJson(x);
        expect(JSON.parse(text)).toStrictEqual(x);
        expect(canonicalJson(JSON.parse(text))).toBe(text);
        expect(canonicalJson(shuffleKeys(x, { s: seed }))).toBe(text);
      }),
      { numRuns: 300 },
    );
  });

  it('joinCanonicalMembers of per-member canonical texts equals canonicalJson of the object', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ unit: 'binary' }), jsonValue, { maxKeys: 12 }), (obj) => {
        const members = new Map(Object.entries(obj).map(([k, e]) => [k, canonicalJson(e)]));
        expect(joinCanonicalMembers(members)).toBe(canonicalJson(obj));
      }),
      { numRuns: 300 },
    );
  });
});
