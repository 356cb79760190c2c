// The canonical text that is hashed and signed is the text JSON would carry for the same value
// (the `canonicalize` package, RFC 8785's reference), or the value is refused: a hash or signature
// never covers bytes other than the ones a JSON transport sends. Arrays are no exception.
import canonicalize from 'canonicalize';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/crypto/index.js';

/** Accepted with the reference's text, or refused with a ChioError. */
function sameOrRefused(value: unknown): void {
  let ours: string | undefined;
  try {
    ours = canonicalJson(value);
  } catch (e) {
    expect(e).toMatchObject({ code: 'CHIO-CRYPTO-NOT-CANONICAL' });
    return;
  }
  expect(ours).toBe(canonicalize(value));
}

describe('canonical text is what JSON sends, or nothing', () => {
  it('an array that serialises itself through toJSON is refused like any object with toJSON', () => {
    const items = [1, 2];
    (items as unknown as { toJSON: () => string }).toJSON = () => 'something else';
    // What a JSON transport sends for it:
    expect(JSON.stringify({ items })).toBe('{"items":"something else"}');
    sameOrRefused(items);
    sameOrRefused({ items });
  });

  it('an Array subclass with toJSON is refused like any object with toJSON', () => {
    class Items extends Array<number> {
      toJSON() {
        return 'summary';
      }
    }
    const items = Items.from([1, 2]);
    sameOrRefused(items);
  });

  it('an array whose prototype is not Array.prototype is refused like a class instance', () => {
    expect(() => canonicalJson(Object.setPrototypeOf([1], null))).toThrow(
      expect.objectContaining({ code: 'CHIO-CRYPTO-NOT-CANONICAL' }),
    );
    expect(() => canonicalJson(Object.setPrototypeOf([1], Date.prototype))).toThrow(
      expect.objectContaining({ code: 'CHIO-CRYPTO-NOT-CANONICAL' }),
    );
  });
});
