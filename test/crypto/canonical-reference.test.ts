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
});
