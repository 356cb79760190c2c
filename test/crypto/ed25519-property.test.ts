// Proves the node:crypto hot path and the @noble reference give byte-identical signatures and the same verdict on valid, corrupted and non-canonical signatures.
import { createHash } from 'node:crypto';
import * as noble from '@noble/ed25519';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromHex, referenceEd25519, signerFromSeed, toHex, verifySignature } from '../../src/crypto/index.js';

const P = 2n ** 255n - 19n;
const L = 2n ** 252n + 27742317777372353535851937790883648493n;
const SIGN_BIT = 1n << 255n;
const RUNS = { numRuns: 200 };

const le = (n: bigint): Uint8Array => {
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++, n >>= 8n) out[i] = Number(n & 0xffn);
  return out;
};
const fromLe = (bytes: Uint8Array): bigint => bytes.reduceRight((acc, b) => (acc << 8n) | BigInt(b), 0n);
const concat = (...parts: Uint8Array[]): Uint8Array => Uint8Array.from(parts.flatMap((p) => [...p]));
const mod = (n: bigint, m: bigint): bigint => ((n % m) + m) % m;

/** The RFC 8032 §5.1.5 secret scalar a (clamped low half of SHA-512(seed)). */
function secretScalar(seed: Uint8Array): bigint {
  const h = new Uint8Array(createHash('sha512').update(seed).digest()).subarray(0, 32);
  h[0]! &= 248;
  h[31]! &= 127;
  h[31]! |= 64;
  return fromLe(h);
}
/** k = SHA-512(R || A || M) mod L over the exact bytes given (RFC 8032 §5.1.7 step 2). */
const challenge = (r: Uint8Array, a: Uint8Array, m: Uint8Array): bigint =>
  mod(
    fromLe(
      new Uint8Array(
        createHash('sha512')
          .update(concat(r, a, m))
          .digest(),
      ),
    ),
    L,
  );

/** Encoding of P + (0, -1), i.e. (-x, -y): adds the order-2 torsion point without point arithmetic. */
const addOrder2 = (enc: Uint8Array): Uint8Array => {
  const n = fromLe(enc);
  return le(mod(P - (n & (SIGN_BIT - 1n)), P) | ((n & SIGN_BIT) ^ SIGN_BIT));
};

/** Both verdicts for raw bytes: node through the hex API, noble directly. */
function verdicts(pub: Uint8Array, msg: Uint8Array, sig: Uint8Array): { node: boolean; noble: boolean } {
  return { node: verifySignature(toHex(pub), msg, toHex(sig)), noble: referenceEd25519.verify(pub, msg, sig) };
}

const seedArb = fc.uint8Array({ minLength: 32, maxLength: 32 });
const msgArb = fc.uint8Array({ minLength: 0, maxLength: 512 });

/** A signer, its public key and a genuine signature over msg. */
function signed(seed: Uint8Array, msg: Uint8Array) {
  const signer = signerFromSeed(seed);
  return { signer, pub: fromHex(signer.publicKeyHex), sig: signer.sign(msg), a: secretScalar(seed) };
}

/** All 38 encodings with y >= p: little-endian p..2^255-1, with and without the sign bit. */
const nonCanonicalEncodings = Array.from({ length: 19 }, (_, k) => P + BigInt(k)).flatMap((y) => [
  le(y),
  le(y | SIGN_BIT),
]);
const IDENTITY = le(1n);

/** (R = identity, S = 0) over a message whose k ≡ 0 mod 8: accepted under ANY small-order key by a cofactorless verifier that does not refuse it. */
function forgeryFor(pub: Uint8Array, msg: Uint8Array): { msg: Uint8Array; sig: Uint8Array } {
  for (let i = 0; ; i++) {
    const m = concat(msg, Uint8Array.of(i & 0xff, i >> 8));
    if (challenge(IDENTITY, pub, m) % 8n === 0n) return { msg: m, sig: concat(IDENTITY, le(0n)) };
  }
}

describe('node and noble Ed25519 agree', () => {
  it('there are 38 non-canonical encodings, all of y >= p', () => {
    expect(nonCanonicalEncodings).toHaveLength(38);
    for (const e of nonCanonicalEncodings) expect(fromLe(e) & (SIGN_BIT - 1n)).toBeGreaterThanOrEqual(P);
  });

  it('byte-identical signatures and public keys on random seeds and messages; both verify', () => {
    fc.assert(
      fc.property(seedArb, msgArb, (seed, msg) => {
        const { signer, pub, sig } = signed(seed, msg);
        expect(toHex(referenceEd25519.publicKey(seed))).toBe(signer.publicKeyHex);
        expect(toHex(referenceEd25519.sign(seed, msg))).toBe(toHex(sig));
        expect(verdicts(pub, msg, sig)).toEqual({ node: true, noble: true });
      }),
      RUNS,
    );
  });

  it('one flipped bit in signature, message or public key: both reject', () => {
    fc.assert(
      fc.property(
        seedArb,
        fc.uint8Array({ minLength: 1, maxLength: 512 }),
        fc.constantFrom('sig', 'msg', 'pub'),
        fc.nat(),
        (seed, msg, target, bit) => {
          const { pub, sig } = signed(seed, msg);
          const parts = { sig: sig.slice(), msg: msg.slice(), pub: pub.slice() };
          const bytes = parts[target as keyof typeof parts];
          const at = bit % (bytes.length * 8);
          bytes[at >> 3]! ^= 1 << (at & 7);
          expect(verdicts(parts.pub, parts.msg, parts.sig)).toEqual({ node: false, noble: false });
        },
      ),
      RUNS,
    );
  });

  it('non-canonical S (S + L): both reject', () => {
    fc.assert(
      fc.property(seedArb, msgArb, (seed, msg) => {
        const { pub, sig } = signed(seed, msg);
        const s = fromLe(sig.subarray(32));
        expect(s).toBeLessThan(L);
        fc.pre(s + L < 2n ** 256n);
        expect(verdicts(pub, msg, concat(sig.subarray(0, 32), le(s + L)))).toEqual({ node: false, noble: false });
      }),
      RUNS,
    );
  });

  it('S with the top bits set (S >= 2^253): both reject', () => {
    fc.assert(
      fc.property(seedArb, msgArb, fc.integer({ min: 1, max: 7 }), (seed, msg, top) => {
        const { pub, sig } = signed(seed, msg);
        const bad = sig.slice();
        bad[63]! |= top << 5;
        expect(fromLe(bad.subarray(32))).toBeGreaterThanOrEqual(2n ** 253n);
        expect(verdicts(pub, msg, bad)).toEqual({ node: false, noble: false });
      }),
      RUNS,
    );
  });

  it('non-canonical R, in a valid signature and with S solved for it, and the identity R with S solved for it: both reject', () => {
    fc.assert(
      fc.property(seedArb, msgArb, fc.constantFrom(...nonCanonicalEncodings), (seed, msg, r) => {
        const { pub, sig, a } = signed(seed, msg);
        // R substituted into a genuine signature.
        expect(verdicts(pub, msg, concat(r, sig.subarray(32)))).toEqual({ node: false, noble: false });
        // S = k·a makes S·B − k·A the identity: a verifier that decodes R leniently and compares
        // points would accept the encodings of y = 1 (p + 1, with or without the sign bit).
        const solved = concat(r, le(mod(challenge(r, pub, msg) * a, L)));
        expect(verdicts(pub, msg, solved)).toEqual({ node: false, noble: false });
        // The same construction with the canonical identity satisfies the RFC 8032 equation (only
        // the key holder can make it): refused by the product's policy on every Node and OpenSSL.
        const identityR = concat(IDENTITY, le(mod(challenge(IDENTITY, pub, msg) * a, L)));
        expect(verdicts(pub, msg, identityR)).toEqual({ node: false, noble: false });
        // Control: noble's bare RFC 8032 check, without the product's policy, accepts it.
        expect(noble.verify(identityR, msg, pub, { zip215: false })).toBe(true);
      }),
      RUNS,
    );
  });

  it('non-canonical A (public key with y >= p): same verdict', () => {
    fc.assert(
      fc.property(msgArb, fc.constantFrom(...nonCanonicalEncodings), seedArb, (msg, pub, seed) => {
        // A genuine signature by someone else under the non-canonical key.
        const other = signed(seed, msg).sig;
        const v1 = verdicts(pub, msg, other);
        expect(v1.node).toBe(v1.noble);
        // The small-order forgery: y = 0 and y = 1 decode to points of order 4 and 1.
        const f = forgeryFor(pub, msg);
        const v2 = verdicts(pub, f.msg, f.sig);
        expect(v2, `A=${toHex(pub)} msg=${toHex(f.msg)} sig=${toHex(f.sig)}`).toEqual({ node: v2.noble, noble: false });
      }),
      RUNS,
    );
  });
});

describe('node and noble Ed25519 agree on small-order and mixed-order points (canonical encodings)', () => {
  const smallOrder = [
    '0100000000000000000000000000000000000000000000000000000000000000',
    'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
    '0000000000000000000000000000000000000000000000000000000000000000',
    '0000000000000000000000000000000000000000000000000000000000000080',
    '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05',
    '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85',
    'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a',
    'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa',
  ].map(fromHex);

  it('small-order public keys: the (identity, 0) forgery gets the same verdict', () => {
    fc.assert(
      fc.property(msgArb, fc.constantFrom(...smallOrder), (msg, pub) => {
        const f = forgeryFor(pub, msg);
        const v = verdicts(pub, f.msg, f.sig);
        expect(v, `A=${toHex(pub)} msg=${toHex(f.msg)} sig=${toHex(f.sig)}`).toEqual({ node: v.noble, noble: false });
      }),
      { numRuns: 40 },
    );
  });

  it('R with an order-2 component (signed by the key holder): same verdict', () => {
    fc.assert(
      fc.property(seedArb, msgArb, (seed, msg) => {
        const { pub, sig, a } = signed(seed, msg);
        const r = mod(fromLe(sig.subarray(32)) - challenge(sig.subarray(0, 32), pub, msg) * a, L);
        const mixedR = addOrder2(sig.subarray(0, 32));
        const forged = concat(mixedR, le(mod(r + challenge(mixedR, pub, msg) * a, L)));
        const v = verdicts(pub, msg, forged);
        expect(v, `A=${toHex(pub)} msg=${toHex(msg)} sig=${toHex(forged)}`).toEqual({ node: v.noble, noble: v.noble });
      }),
      RUNS,
    );
  });

  it('public key with an order-2 component (A + (0,-1)) signing with its scalar: same verdict', () => {
    fc.assert(
      fc.property(seedArb, msgArb, (seed, msg) => {
        const { pub, sig, a } = signed(seed, msg);
        const rPoint = sig.subarray(0, 32);
        const r = mod(fromLe(sig.subarray(32)) - challenge(rPoint, pub, msg) * a, L);
        const mixedA = addOrder2(pub);
        const forged = concat(rPoint, le(mod(r + challenge(rPoint, mixedA, msg) * a, L)));
        const v = verdicts(mixedA, msg, forged);
        expect(v, `A=${toHex(mixedA)} msg=${toHex(msg)} sig=${toHex(forged)}`).toEqual({
          node: v.noble,
          noble: v.noble,
        });
      }),
      RUNS,
    );
  });
});
