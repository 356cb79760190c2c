// Proves both Ed25519 implementations reproduce the RFC 8032 §7.1 vectors, and that key parsing and verification refuse malformed input the documented way.
import { describe, expect, it } from 'vitest';
import {
  fromHex,
  parsePublicKeyHex,
  parseSeed,
  referenceEd25519,
  signerFromSeed,
  toHex,
  verifySignature,
} from '../../src/crypto/index.js';
import { ChioError } from '../../src/errors.js';
import { loadVector } from '../helpers/vectors.js';

interface Rfc8032Vector {
  name: string;
  secret_key: string;
  public_key: string;
  message: string;
  signature: string;
}
const vectors = loadVector<{ vectors: Rfc8032Vector[] }>('rfc/rfc8032-ed25519.json').vectors;
const enc = new TextEncoder();

function expectBadKey(fn: () => unknown): void {
  let thrown: unknown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(ChioError);
  expect((thrown as ChioError).code).toBe('CHIO-CRYPTO-BAD-KEY');
}

describe('RFC 8032 §7.1 test vectors', () => {
  it('the file holds all five vectors', () => {
    expect(vectors.map((x) => x.name)).toEqual(['TEST 1', 'TEST 2', 'TEST 3', 'TEST 1024', 'TEST SHA(abc)']);
  });

  for (const vec of vectors) {
    describe(vec.name, () => {
      const seed = fromHex(vec.secret_key);
      const message = fromHex(vec.message);

      it('node: public key, signature and verification match', () => {
        const signer = signerFromSeed(seed);
        expect(signer.publicKeyHex).toBe(vec.public_key);
        expect(toHex(signer.sign(message))).toBe(vec.signature);
        expect(verifySignature(vec.public_key, message, vec.signature)).toBe(true);
      });

      it('noble reference: public key, signature and verification match', () => {
        expect(toHex(referenceEd25519.publicKey(seed))).toBe(vec.public_key);
        expect(toHex(referenceEd25519.sign(seed, message))).toBe(vec.signature);
        expect(referenceEd25519.verify(fromHex(vec.public_key), message, fromHex(vec.signature))).toBe(true);
      });

      it('both reject the vector signature over a different message', () => {
        const other = Uint8Array.from([...message, 0]);
        expect(verifySignature(vec.public_key, other, vec.signature)).toBe(false);
        expect(referenceEd25519.verify(fromHex(vec.public_key), other, fromHex(vec.signature))).toBe(false);
      });
    });
  }

  it('string messages are signed and verified as their UTF-8 bytes', () => {
    const signer = signerFromSeed(fromHex(vectors[0]!.secret_key));
    const text = 'grüße €';
    const sig = toHex(signer.sign(text));
    expect(sig).toBe(toHex(signer.sign(enc.encode(text))));
    expect(verifySignature(signer.publicKeyHex, text, sig)).toBe(true);
    expect(verifySignature(signer.publicKeyHex, enc.encode(text), sig)).toBe(true);
  });
});

describe('parseSeed', () => {
  const hex = vectors[0]!.secret_key;
  const raw = fromHex(hex);

  it('accepts 64 hex characters, with surrounding whitespace or a trailing newline, in either case', () => {
    for (const text of [hex, `${hex}\n`, `  ${hex}\r\n`, `\t${hex} `, `${hex.toUpperCase()}\n`]) {
      expect(toHex(parseSeed(enc.encode(text))), JSON.stringify(text)).toBe(hex);
    }
  });

  it('accepts exactly 32 raw bytes, including bytes that look like whitespace', () => {
    expect(parseSeed(raw)).toEqual(raw);
    const spacey = new Uint8Array(32).fill(0x20);
    spacey[5] = 0x0a;
    expect(parseSeed(spacey)).toEqual(spacey);
  });

  it('returns a copy, not the caller buffer', () => {
    const copy = parseSeed(raw);
    copy[0] = copy[0]! ^ 1;
    expect(toHex(raw)).toBe(hex);
  });

  it('refuses anything else with CHIO-CRYPTO-BAD-KEY', () => {
    const bad = [
      new Uint8Array(0),
      new Uint8Array(31),
      new Uint8Array(33),
      new Uint8Array(64),
      enc.encode(hex.slice(0, 62)),
      enc.encode(`${hex}00`),
      enc.encode(`${hex.slice(0, 63)}g`),
      enc.encode(`${hex.slice(0, 32)} ${hex.slice(32)}`),
      enc.encode(`0x${hex}`),
    ];
    for (const contents of bad) expectBadKey(() => parseSeed(contents));
  });

  it('signerFromSeed and the reference refuse seeds that are not 32 bytes', () => {
    for (const len of [0, 31, 33, 64]) {
      expectBadKey(() => signerFromSeed(new Uint8Array(len)));
      expectBadKey(() => referenceEd25519.sign(new Uint8Array(len), new Uint8Array(0)));
      expectBadKey(() => referenceEd25519.publicKey(new Uint8Array(len)));
    }
  });
});

describe('parsePublicKeyHex', () => {
  const pub = vectors[1]!.public_key;

  it('accepts 64 hex characters with surrounding whitespace, returning lowercase', () => {
    for (const text of [pub, ` ${pub}\n`, pub.toUpperCase(), `\r\n${pub.toUpperCase()}\t`]) {
      expect(parsePublicKeyHex(text)).toBe(pub);
    }
  });

  it('refuses anything else with CHIO-CRYPTO-BAD-KEY', () => {
    for (const text of [
      '',
      pub.slice(0, 62),
      `${pub}ab`,
      `${pub.slice(0, 63)}z`,
      `0x${pub}`,
      `${pub.slice(0, 10)} ${pub.slice(10)}`,
    ]) {
      expectBadKey(() => parsePublicKeyHex(text));
    }
  });
});

describe('verifySignature never throws on malformed input', () => {
  const vec = vectors[2]!;
  const msg = fromHex(vec.message);
  const pub = vec.public_key;
  const sig = vec.signature;

  it('baseline: the untouched vector verifies', () => {
    expect(verifySignature(pub, msg, sig)).toBe(true);
  });

  const cases: [string, string, string][] = [
    ['uppercase public key', pub.toUpperCase(), sig],
    ['uppercase signature', pub, sig.toUpperCase()],
    ['public key with whitespace', ` ${pub}`, sig],
    ['signature with trailing newline', pub, `${sig}\n`],
    ['short public key', pub.slice(0, 62), sig],
    ['long public key', `${pub}00`, sig],
    ['short signature', pub, sig.slice(0, 126)],
    ['long signature', pub, `${sig}00`],
    ['odd-length signature', pub, sig.slice(0, 127)],
    ['non-hex public key', `${pub.slice(0, 63)}g`, sig],
    ['non-hex signature', pub, `zz${sig.slice(2)}`],
    ['empty strings', '', ''],
    ['public key that is not a curve point', `02${'00'.repeat(31)}`, sig],
  ];
  for (const [name, p, s] of cases) {
    it(`returns false for ${name}`, () => {
      expect(() => verifySignature(p, msg, s)).not.toThrow();
      expect(verifySignature(p, msg, s)).toBe(false);
    });
  }

  it('returns false for non-string key or signature', () => {
    for (const [p, s] of [
      [null, sig],
      [pub, undefined],
      [42, sig],
      [pub, fromHex(sig)],
    ] as [unknown, unknown][]) {
      expect(verifySignature(p as string, msg, s as string)).toBe(false);
    }
  });

  it('the reference returns false for wrong-length keys and signatures', () => {
    expect(referenceEd25519.verify(fromHex(pub).subarray(1), msg, fromHex(sig))).toBe(false);
    expect(referenceEd25519.verify(fromHex(pub), msg, fromHex(sig).subarray(1))).toBe(false);
    expect(referenceEd25519.verify(fromHex(`02${'00'.repeat(31)}`), msg, fromHex(sig))).toBe(false);
  });
});
