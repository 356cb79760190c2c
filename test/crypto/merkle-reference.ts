/**
 * The RFC 6962 §2.1 definitions written out plainly (MTH, PATH, PROOF/SUBPROOF), over a list of leaf
 * hashes, with SHA-256 from node:crypto directly: the reference the product's tree math is tested
 * against. Deliberately naive (recomputes every subtree), so only for small trees.
 */
import { createHash } from 'node:crypto';

export function sha256(...parts: Uint8Array[]): Uint8Array {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
}

export const refLeafHash = (input: Uint8Array): Uint8Array => sha256(Uint8Array.of(0x00), input);
export const refNodeHash = (l: Uint8Array, r: Uint8Array): Uint8Array => sha256(Uint8Array.of(0x01), l, r);

/** "the largest power of two smaller than n" (RFC 6962 §2.1), n > 1. */
function k(n: number): number {
  return 2 ** Math.ceil(Math.log2(n)) / 2;
}

/** MTH(D[n]) where D holds leaf hashes (so MTH({d}) = d). */
export function refMTH(d: readonly Uint8Array[]): Uint8Array {
  if (d.length === 0) return sha256();
  if (d.length === 1) return d[0]!;
  const split = k(d.length);
  return refNodeHash(refMTH(d.slice(0, split)), refMTH(d.slice(split)));
}

/** PATH(m, D[n]) of RFC 6962 §2.1.1. */
export function refPATH(m: number, d: readonly Uint8Array[]): Uint8Array[] {
  if (d.length === 1) return [];
  const split = k(d.length);
  return m < split
    ? [...refPATH(m, d.slice(0, split)), refMTH(d.slice(split))]
    : [...refPATH(m - split, d.slice(split)), refMTH(d.slice(0, split))];
}

/** PROOF(m, D[n]) = SUBPROOF(m, D[n], true) of RFC 6962 §2.1.2. */
export function refPROOF(m: number, d: readonly Uint8Array[]): Uint8Array[] {
  return refSUBPROOF(m, d, true);
}

function refSUBPROOF(m: number, d: readonly Uint8Array[], b: boolean): Uint8Array[] {
  if (m === d.length) return b ? [] : [refMTH(d)];
  const split = k(d.length);
  return m <= split
    ? [...refSUBPROOF(m, d.slice(0, split), b), refMTH(d.slice(split))]
    : [...refSUBPROOF(m - split, d.slice(split), false), refMTH(d.slice(0, split))];
}

export const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

/** A copy of `h` with bit `bit` flipped. */
export function flipBit(h: Uint8Array, bit: number): Uint8Array {
  const out = Uint8Array.from(h);
  out[bit >> 3]! ^= 1 << (bit & 7);
  return out;
}
