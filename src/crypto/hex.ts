/**
 * Lowercase hex encoding and strict decoding.
 * Owns: the one hex codec the project uses. Must not import anything but node:buffer.
 */
import { Buffer } from 'node:buffer';

const HEX_RE = /^(?:[0-9a-f]{2})*$/;

export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/** Strict: lowercase only, even length, nothing else (Buffer.from(…, 'hex') silently truncates at the first bad pair). */
export function fromHex(hex: string): Uint8Array {
  if (!HEX_RE.test(hex)) throw new TypeError('hex invalid: expected an even number of lowercase hex characters');
  return new Uint8Array(Buffer.from(hex, 'hex'));
}

export function isHex(value: unknown, byteLength: number): value is string {
  return typeof value === 'string' && value.length === byteLength * 2 && HEX_RE.test(value);
}
