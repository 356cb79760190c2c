/**
 * Ed25519 (RFC 8032 §5.1) signing and verification.
 *
 * Owns: keys, signatures, and the choice of verification policy. Must not import anything
 * outside src/crypto. The only importer of @noble/ed25519 and @noble/hashes.
 *
 * Two implementations, one behaviour:
 *  - the hot path uses node:crypto `KeyObject`s (OpenSSL), created once per key and reused,
 *    because creating a KeyObject per call costs more than the signature itself;
 *  - @noble/ed25519 is the reference, used by tests and benchmarks to prove the hot path right.
 * Ed25519 signatures are deterministic (RFC 8032 §5.1.6), so both must give identical bytes.
 * Verification policy (the same for both, so they give the same verdict on every input):
 *  - S < L and canonical encodings of A and R (RFC 8032 §5.1.7, §5.1.3: y < p, no "negative zero");
 *  - A is neither of small order nor has a small-order component (torsion-free), so no key is
 *    "weak" enough to accept signatures on anything (the eight small-order points would);
 *  - R is torsion-free. With A and R in the prime-order subgroup, the cofactored equation noble
 *    checks ([8]SB = [8]R + [8]kA) and the cofactorless one OpenSSL checks (SB − kA encodes to R)
 *    accept exactly the same signatures ("Taming the many EdDSAs", Chalkias et al. 2020);
 *  - R is not the identity (the one small-order point of that subgroup). Only the key holder can
 *    make such a signature (S = k·a), no honest signer ever does, and OpenSSL's answer changed
 *    between versions (3.5, in Node 24, refuses it; Node 20's accepts it): refused here, so the
 *    verdict is the product's on every Node and OpenSSL.
 * OpenSSL enforces S < L and (by comparing encodings) R, but not the rules on A, so a key is
 * checked once, when its KeyObject is cached. noble runs with `{ zip215: false }` (its default,
 * ZIP-215, is deliberately permissive) plus the A and R checks. A property test pins agreement.
 */
import { Buffer } from 'node:buffer';
import { createPrivateKey, createPublicKey, randomBytes, sign as nodeSign, verify as nodeVerify } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import * as noble from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import { ChioError } from '../errors.js';
import { fromHex, isHex, toHex } from './hex.js';

// noble's synchronous API needs a SHA-512 wired in once.
noble.hashes.sha512 = sha512;

export const SEED_BYTES = 32;
export const PUBLIC_KEY_BYTES = 32;
export const SIGNATURE_BYTES = 64;

// DER prefixes that wrap a raw 32-byte key (RFC 8410 §7 PKCS#8 private key, §4 SPKI public key).
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

export interface Ed25519Signer {
  /** 64 lowercase hex characters: the raw RFC 8032 public key. */
  readonly publicKeyHex: string;
  /** RFC 8032 signature (64 bytes) over `message`. */
  sign(message: Uint8Array | string): Uint8Array;
  /** The same signature, computed on libuv's thread pool. */
  signAsync(message: Uint8Array | string): Promise<Uint8Array>;
}

function assertSeed(seed: Uint8Array): void {
  if (!(seed instanceof Uint8Array) || seed.length !== SEED_BYTES) {
    throw new ChioError(
      'CHIO-CRYPTO-BAD-KEY',
      `an Ed25519 seed is ${SEED_BYTES} bytes, got ${seed?.length ?? typeof seed}`,
    );
  }
}

const ownSigners = new WeakSet<object>();
/** Whether `signer` came from signerFromSeed: its signatures are made by the key it names. */
export function isSeedSigner(signer: object): boolean {
  return ownSigners.has(signer);
}

/** A signer backed by a node:crypto KeyObject built once from the 32-byte seed. */
export function signerFromSeed(seed: Uint8Array): Ed25519Signer {
  assertSeed(seed);
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  const publicKeyHex = toHex(spki.subarray(SPKI_PREFIX.length));
  const signer: Ed25519Signer = Object.freeze({
    publicKeyHex,
    sign(message: Uint8Array | string): Uint8Array {
      const data = typeof message === 'string' ? Buffer.from(message, 'utf8') : message;
      return new Uint8Array(nodeSign(null, data, privateKey));
    },
    signAsync(message: Uint8Array | string): Promise<Uint8Array> {
      const data = typeof message === 'string' ? Buffer.from(message, 'utf8') : message;
      return new Promise((resolve, reject) => {
        nodeSign(null, data, privateKey, (error, signature) =>
          error === null ? resolve(new Uint8Array(signature)) : reject(error),
        );
      });
    },
  });
  ownSigners.add(signer);
  return signer;
}

export function generateSeed(): Uint8Array {
  return new Uint8Array(randomBytes(SEED_BYTES));
}

/**
 * Reads a seed as stored in a seed file: 64 hex characters (surrounding whitespace allowed), or
 * exactly 32 raw bytes. Anything else is refused rather than guessed at.
 */
export function parseSeed(contents: Uint8Array): Uint8Array {
  const text = Buffer.from(contents).toString('latin1').trim().toLowerCase();
  if (isHex(text, SEED_BYTES)) return fromHex(text);
  if (contents.length === SEED_BYTES) return new Uint8Array(contents);
  throw new ChioError('CHIO-CRYPTO-BAD-KEY', 'a seed file holds 64 hex characters (or 32 raw bytes)');
}

export function parsePublicKeyHex(text: string): string {
  const hex = text.trim().toLowerCase();
  if (!isHex(hex, PUBLIC_KEY_BYTES)) {
    throw new ChioError('CHIO-CRYPTO-BAD-KEY', 'an Ed25519 public key is 64 hex characters');
  }
  return hex;
}

/** A point that passes the policy above (decoded strictly), or null. Variable-time: inputs are public. */
function strictPoint(bytes: Uint8Array, allowSmallOrder: boolean): noble.Point | null {
  try {
    const point = noble.Point.fromBytes(bytes, false);
    if (!point.isTorsionFree()) return null;
    if (!allowSmallOrder && point.isSmallOrder()) return null;
    return point;
  } catch {
    return null;
  }
}

// Verification keys are few (one per kernel) and used many times: cache their KeyObjects.
const PUBLIC_KEY_CACHE_LIMIT = 1024;
const publicKeyCache = new Map<string, KeyObject | null>();

function publicKeyObject(publicKeyHex: string): KeyObject | null {
  let key = publicKeyCache.get(publicKeyHex);
  if (key !== undefined) return key;
  const raw = fromHex(publicKeyHex);
  try {
    // A key outside the policy (non-canonical, small-order, mixed-order) verifies nothing.
    key =
      strictPoint(raw, false) === null
        ? null
        : createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
  } catch {
    key = null;
  }
  if (publicKeyCache.size >= PUBLIC_KEY_CACHE_LIMIT) publicKeyCache.clear();
  publicKeyCache.set(publicKeyHex, key);
  return key;
}

/** The canonical encoding of the identity point (y = 1), R's first 64 hex characters (case as given). */
const IDENTITY_HEX = `01${'0'.repeat(62)}`;
const identityR = (signatureHex: string): boolean => signatureHex.slice(0, 64).toLowerCase() === IDENTITY_HEX;

/**
 * Strict RFC 8032 verification on the hot path. Returns false (never throws) for any malformed
 * key or signature: those are attacker-controlled and a bad one is simply not a valid signature.
 */
export function verifySignature(publicKeyHex: string, message: Uint8Array | string, signatureHex: string): boolean {
  if (!isHex(publicKeyHex, PUBLIC_KEY_BYTES) || !isHex(signatureHex, SIGNATURE_BYTES) || identityR(signatureHex))
    return false;
  const key = publicKeyObject(publicKeyHex);
  if (key === null) return false;
  const data = typeof message === 'string' ? Buffer.from(message, 'utf8') : message;
  try {
    return nodeVerify(null, data, key, Buffer.from(signatureHex, 'hex'));
  } catch {
    return false;
  }
}

/**
 * The same check on libuv's thread pool (node:crypto's callback form), so many signatures can be
 * checked on every core while the caller's thread does other work. Same policy, same verdicts.
 */
export function verifySignatureAsync(
  publicKeyHex: string,
  message: Uint8Array | string,
  signatureHex: string,
): Promise<boolean> {
  if (!isHex(publicKeyHex, PUBLIC_KEY_BYTES) || !isHex(signatureHex, SIGNATURE_BYTES) || identityR(signatureHex))
    return Promise.resolve(false);
  const key = publicKeyObject(publicKeyHex);
  if (key === null) return Promise.resolve(false);
  const data = typeof message === 'string' ? Buffer.from(message, 'utf8') : message;
  return new Promise((resolve) => {
    try {
      nodeVerify(null, data, key, Buffer.from(signatureHex, 'hex'), (error, ok) => resolve(error === null && ok));
    } catch {
      resolve(false);
    }
  });
}

/** The reference implementation (@noble/ed25519), for tests and benchmarks. Same contract as above. */
export const referenceEd25519 = Object.freeze({
  publicKey(seed: Uint8Array): Uint8Array {
    assertSeed(seed);
    return noble.getPublicKey(seed);
  },
  sign(seed: Uint8Array, message: Uint8Array): Uint8Array {
    assertSeed(seed);
    return noble.sign(message, seed);
  },
  verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
    if (publicKey.length !== PUBLIC_KEY_BYTES || signature.length !== SIGNATURE_BYTES) return false;
    // R: torsion-free and not of small order, which in the prime-order subgroup means: not the identity.
    if (strictPoint(publicKey, false) === null || strictPoint(signature.subarray(0, 32), false) === null) return false;
    try {
      return noble.verify(signature, message, publicKey, { zip215: false });
    } catch {
      return false;
    }
  },
});
