/**
 * C2SP signed-note (https://c2sp.org/signed-note, v1.0.0): the envelope of a checkpoint.
 *
 * Owns: key-name rules, the Ed25519 key hash (key ID), the signature-line format, and the split of
 * a note into its text and signature lines with every byte-level check the spec makes. It knows
 * nothing of checkpoints (checkpoint-note.ts) and verifies nothing (a line is only parsed here).
 * Must not import anything outside src/crypto.
 *
 * The note handed to `splitSignedNote` is attacker-controlled (a file, an anchor, a witness's
 * reply): it is bounded in size before anything else is done, decoded strictly, and every refusal
 * is a value naming what failed. Attacker text quoted in a reason is truncated and escaped, so a
 * reason printed on a terminal cannot carry control or bidirectional-override characters.
 */
import { Buffer } from 'node:buffer';
import { fromHex } from './hex.js';
import { sha256Hex } from './sha256.js';

/**
 * A note larger than this is refused before it is decoded. C2SP asks verifiers to accept at least
 * 16 signatures, which may be post-quantum ones of nearly 5 kB each; a Chio checkpoint is ~250 bytes.
 */
export const MAX_NOTE_BYTES = 128 * 1024;
/** More signature lines than this are refused (the limit golang.org/x/mod/sumdb/note applies). */
export const MAX_SIGNATURE_LINES = 100;
/** C2SP signature type identifier byte for Ed25519. */
export const SIGNATURE_TYPE_ED25519 = 0x01;
/** The signature-line prefix: U+2014 EM DASH, then U+0020 SPACE. */
export const SIGNATURE_PREFIX = '\u2014 ';

export interface NoteSignatureLine {
  readonly keyName: string;
  /** The first 4 bytes of the decoded signature: the big-endian key ID. */
  readonly keyHash: Uint8Array;
  /** The rest of the decoded signature (64 bytes for Ed25519; other types may differ). */
  readonly signature: Uint8Array;
}

export type SplitNote = { ok: true; text: string; signatures: NoteSignatureLine[] } | { ok: false; reason: string };

const WHITE_SPACE = /\p{White_Space}/u;
const CONTROL = /\p{Cc}/u;

/** Attacker text for a reason: at most 64 characters, anything but printable ASCII escaped. */
export function quote(value: string): string {
  const head = [...value].slice(0, 64).join('');
  const escaped = head.replace(/[^\x20-\x7e]|["\\]/gu, (c) =>
    c === '"' || c === '\\' ? `\\${c}` : `\\u{${c.codePointAt(0)!.toString(16)}}`,
  );
  return `"${escaped}${head.length < value.length ? '…' : ''}"`;
}

/**
 * Why `name` is not a key name Chio will sign under, or null. C2SP: non-empty, no Unicode spaces,
 * no '+'. Chio also refuses what its parser would refuse in a note (control characters, U+FFFD,
 * lone surrogates) and names over 1024 UTF-8 bytes, so everything it signs parses back.
 */
export function keyNameProblem(name: unknown, what = 'key name'): string | null {
  if (typeof name !== 'string' || name === '') return `a ${what} is a non-empty string`;
  if (!name.isWellFormed()) return `a ${what} must be well-formed Unicode (no lone surrogates)`;
  if (WHITE_SPACE.test(name)) return `a ${what} must not contain spaces (C2SP): ${quote(name)}`;
  if (name.includes('+')) return `a ${what} must not contain '+' (C2SP): ${quote(name)}`;
  if (CONTROL.test(name) || name.includes('\uFFFD'))
    return `a ${what} must not contain control characters or U+FFFD: ${quote(name)}`;
  if (Buffer.byteLength(name, 'utf8') > 1024) return `a ${what} is at most 1024 UTF-8 bytes`;
  return null;
}

/** The key-name rule a parsed signature line must meet: exactly C2SP's (non-empty, no Unicode space, no '+'). */
function isSpecKeyName(name: string): boolean {
  return name !== '' && !WHITE_SPACE.test(name) && !name.includes('+');
}

/** C2SP Ed25519 key ID: SHA-256(key name || 0x0A || 0x01 || 32-byte public key)[:4]. */
export function ed25519KeyHash(keyName: string, publicKey: Uint8Array): Uint8Array {
  const input = Buffer.concat([Buffer.from(keyName, 'utf8'), Buffer.of(0x0a, SIGNATURE_TYPE_ED25519), publicKey]);
  return fromHex(sha256Hex(input)).subarray(0, 4);
}

/** "— <key name> <base64(key hash || signature)>\n". The caller has checked the key name. */
export function signatureLine(keyName: string, keyHash: Uint8Array, signature: Uint8Array): string {
  return `${SIGNATURE_PREFIX}${keyName} ${Buffer.concat([keyHash, signature]).toString('base64')}\n`;
}

/**
 * Standard base64 (RFC 4648 §4) with padding, canonical only: Node's decoder skips characters it
 * does not know and ignores non-zero padding bits, so the text must re-encode to itself.
 */
export function decodeBase64Strict(text: string): Uint8Array | null {
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return null;
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64') === text ? new Uint8Array(bytes) : null;
}

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The note as text, or why it cannot be one: bounded first, then strict UTF-8. */
function noteText(note: unknown): { ok: true; text: string } | { ok: false; reason: string } {
  const tooBig = (n: number | string) => ({
    ok: false as const,
    reason: `the note is ${n} bytes; at most ${MAX_NOTE_BYTES} are accepted`,
  });
  if (note instanceof Uint8Array) {
    if (note.byteLength > MAX_NOTE_BYTES) return tooBig(note.byteLength);
    try {
      return { ok: true, text: decoder.decode(note) };
    } catch {
      return { ok: false, reason: 'the note is not valid UTF-8' };
    }
  }
  if (typeof note !== 'string') return { ok: false, reason: 'a note is text (a string or UTF-8 bytes)' };
  // UTF-8 never takes fewer bytes than UTF-16 code units, so this bound needs no encoding pass.
  if (note.length > MAX_NOTE_BYTES) return tooBig(`more than ${MAX_NOTE_BYTES}`);
  if (!note.isWellFormed())
    return { ok: false, reason: 'the note has a lone surrogate, so it is not text that UTF-8 can encode' };
  const bytes = Buffer.byteLength(note, 'utf8');
  return bytes > MAX_NOTE_BYTES ? tooBig(bytes) : { ok: true, text: note };
}

/**
 * Splits a signed note (C2SP: text ending in a newline, a blank line, one or more signature lines;
 * the text ends at the LAST blank line) after checking it is UTF-8 with no control character but
 * newline. U+FFFD is refused too: in a string it is the only trace of bytes that were not UTF-8
 * when someone decoded them, and no checkpoint has a use for it.
 */
export function splitSignedNote(note: unknown): SplitNote {
  const decoded = noteText(note);
  if (!decoded.ok) return decoded;
  const all = decoded.text;
  for (let i = 0; i < all.length; i++) {
    const c = all.charCodeAt(i);
    if (c === 0x0d)
      return {
        ok: false,
        reason: `carriage return (U+000D) at offset ${i}: note lines end in "\\n" alone, never CRLF`,
      };
    if (c < 0x20 && c !== 0x0a)
      return {
        ok: false,
        reason: `control character U+${c.toString(16).padStart(4, '0').toUpperCase()} at offset ${i}: only newline is allowed (C2SP)`,
      };
    if (c === 0xfffd)
      return { ok: false, reason: `U+FFFD at offset ${i}: the note was not valid UTF-8 when it was decoded` };
  }
  const split = all.lastIndexOf('\n\n');
  if (split < 0) return { ok: false, reason: 'no blank line separates the note text from its signature lines' };
  const text = all.slice(0, split + 1);
  const block = all.slice(split + 2);
  if (block === '') return { ok: false, reason: 'the note has no signature lines after the blank line' };
  if (!block.endsWith('\n')) return { ok: false, reason: 'the last signature line does not end in a newline' };
  const lines = block.slice(0, -1).split('\n');
  if (lines.length > MAX_SIGNATURE_LINES)
    return {
      ok: false,
      reason: `the note has ${lines.length} signature lines; at most ${MAX_SIGNATURE_LINES} are accepted`,
    };
  const signatures: NoteSignatureLine[] = [];
  for (const [index, line] of lines.entries()) {
    const where = `signature line ${index + 1}`;
    if (!line.startsWith(SIGNATURE_PREFIX))
      return { ok: false, reason: `${where} does not start with an em dash (U+2014) and a space: ${quote(line)}` };
    const rest = line.slice(SIGNATURE_PREFIX.length);
    const space = rest.indexOf(' ');
    if (space < 0) return { ok: false, reason: `${where} has no space between the key name and the signature` };
    const keyName = rest.slice(0, space);
    const encoded = rest.slice(space + 1);
    if (!isSpecKeyName(keyName))
      return {
        ok: false,
        reason: `${where} names an invalid key name (empty, or with spaces or '+'): ${quote(keyName)}`,
      };
    const raw = decodeBase64Strict(encoded);
    if (raw === null)
      return {
        ok: false,
        reason: `${where} (${quote(keyName)}): the signature is not canonical standard base64: ${quote(encoded)}`,
      };
    if (raw.length < 5)
      return {
        ok: false,
        reason: `${where} (${quote(keyName)}): the signature is ${raw.length} bytes, shorter than a 4-byte key ID and a signature`,
      };
    signatures.push({ keyName, keyHash: raw.slice(0, 4), signature: raw.slice(4) });
  }
  return { ok: true, text, signatures };
}
