/**
 * SHA-256 (FIPS 180-4) as lowercase hex, and H(x) = sha256_hex(JCS(x)) of DESIGN §4.
 * Owns: every hash the formats use. Must not import anything outside src/crypto.
 * node:crypto is used because for the small inputs of a receipt it beats a JS implementation
 * (native SHA extensions).
 */
import { hash } from 'node:crypto';
import { canonicalJson } from './canonical.js';

/** Lowercase hex SHA-256; strings are hashed as UTF-8. (One-shot `crypto.hash`: half the cost of createHash for receipt-sized inputs.) */
export function sha256Hex(data: string | Uint8Array): string {
  return hash('sha256', data, 'hex');
}

/** `H(x)` of DESIGN §4: sha256 of the UTF-8 bytes of the RFC 8785 form of `x`. */
export function hashCanonical(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}

/** `sha256_hex("null")`: the content hash of a call with no output (DESIGN §4). */
export const NULL_CONTENT_HASH = sha256Hex('null');
