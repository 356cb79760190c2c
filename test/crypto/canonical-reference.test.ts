// canonicalJson (one walk that checks and writes RFC 8785 text) accepts every random JSON value
// that JCS can carry losslessly, with the same text as the `canonicalize` package, and refuses
// exactly the others (integers beyond 2^53-1, lone surrogates): the checks over-refuse
// nothing a tool could legitimately send.
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/crypto/index.js';
import { ChioError } from '../../src/errors.js';

/** Why JCS text of `value` would not mean one thing in every language, or undefined. */
function lossy(value: unknown): string | undefined {
  if (typeof value === 'number')
    return Number.isInteger(value) && !Number.isSafeInteger(value) ? 'unsafe integer' : undefined;
  if (typeof value === 'string') return value.isWellFormed() ? undefined : 'lone surrogate';
  if (Array.isArray(value)) return value.map(lossy).find((r) => r !== undefined);
  if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (!k.isWellFormed()) return 'lone surrogate';
      const r = lossy(v);
      if (r !== undefined) return r;
    }
  }
  return undefined;
}

describe('canonicalJson refuses exactly the lossy JSON values', () => {
  it('same text for every accepted JSON value, refusal exactly for the lossy ones (random values, full Unicode)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6, stringUnit: 'binary' }), (value) => {
        const reason = lossy(value);
        if (reason === undefined) {
          expect(canonicalJson(value)).toBe(canonicalize(value));
        } else {
          expect(() => canonicalJson(value)).toThrow(ChioError);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('same text for member names that sort differently by code point and by UTF-16 code unit', () => {
    const value = { '\u{1F600}': 1, '\uFB33': 2, a: { '\u00e9': [1.5, -0, 4.5e-9, 5e-7], A: 'x' } };
    expect(canonicalJson(value)).toBe(canonicalize(value));
    expect(canonicalJson(value)).toBe('{"a":{"A":"x","é":[1.5,0,4.5e-9,5e-7]},"\u{1F600}":1,"\uFB33":2}');
  });

  it('same text for members an attacker names after prototypes (a parsed "__proto__" is a member like any other)', () => {
    const value = JSON.parse('{"b":2,"__proto__":{"a":1},"c":[{"__proto__":null,"constructor":"x"}]}') as unknown;
    expect(canonicalJson(value)).toBe(canonicalize(value));
    expect(canonicalJson(value)).toBe('{"__proto__":{"a":1},"b":2,"c":[{"__proto__":null,"constructor":"x"}]}');
  });

  it('same text for every string of one code unit below U+0100, alone, inside plain text and as a member name (escapes written only where JSON needs them)', () => {
    for (let unit = 0; unit < 0x100; unit++) {
      const c = String.fromCharCode(unit);
      for (const text of [c, `path/${c}`, `${c}tail`, `a${c}b${c}`]) {
        expect(canonicalJson(text)).toBe(canonicalize(text));
        expect(canonicalJson([text, { [text]: text }])).toBe(canonicalize([text, { [text]: text }]));
      }
    }
  });

  it('same text for integers at and around the safe range, and for -0 and fractions; refusal beyond 2^53-1', () => {
    const accepted = [
      0,
      -0,
      1,
      -1,
      9,
      10,
      2 ** 31,
      -(2 ** 31) - 1,
      2 ** 32,
      Number.MAX_SAFE_INTEGER,
      Number.MIN_SAFE_INTEGER,
      1e21 / 1e6,
      0.1,
      -2.5e-7,
      5e-324,
      123.456,
    ];
    for (const n of accepted) {
      expect(canonicalJson(n)).toBe(canonicalize(n));
      expect(canonicalJson({ n })).toBe(canonicalize({ n }));
    }
    for (const n of [
      Number.MAX_SAFE_INTEGER + 1,
      -(2 ** 60),
      1e21,
      1.7976931348623157e308,
      Number.NaN,
      Number.POSITIVE_INFINITY,
    ]) {
      expect(() => canonicalJson(n)).toThrow(ChioError);
      expect(() => canonicalJson([n])).toThrow(ChioError);
    }
  });
});
