/**
 * Chio's ledger checkpoints: a C2SP tlog-checkpoint (https://c2sp.org/tlog-checkpoint) in a C2SP
 * signed-note (https://c2sp.org/signed-note), exactly as DESIGN §10 ("Checkpoint") fixes it:
 *
 *     <origin>\n<tree size, decimal>\n<root hash, standard base64>\n
 *     \n
 *     — <key name> <base64(key_hash[4] || ed25519_sig[64])>\n      (one line per signer)
 *
 * The signature is Ed25519 over the note text (the three lines, final newline included);
 * key_hash = SHA-256(key name || 0x0A || 0x01 || public key)[:4]; the key name defaults to the
 * origin, and the origin to "chio-ledger/" + the first 32 hex characters of seq 1's entry_hash.
 *
 * Owns: text ⇄ value, signing and verifying one note. Not the tree (merkle.ts), not storage.
 * Must not import anything outside src/crypto.
 *
 * A note handed to parse/verify is ATTACKER-CONTROLLED (an anchor file, a bundle, a witness reply).
 * Decisions where the specs leave room, each a refusal a Chio producer never trips:
 *  - extension lines (C2SP: optional, NOT RECOMMENDED; DESIGN §10 has none) are refused: the body
 *    has no place for them, and accepting then dropping them would report less than was signed;
 *  - the root hash must decode to exactly 32 bytes (SHA-256), in canonical base64;
 *  - the tree size must be a safe integer (≤ 2^53−1) so it is exact as a JS number;
 *  - the origin is only required to be non-empty when parsing (C2SP: "clients MUST NOT assume that
 *    the origin is following this format"), but checkpointText emits only origins that are valid
 *    key names (no spaces, '+', control characters), so the default key name always works.
 * Matching keys (C2SP identifies a key by the pair (key name, key ID)): each trusted key is known
 * under ONE key name, `options.keyName` or else the note's origin. A signature line whose name or
 * key hash differs from every known pair is ignored (another signer, a witness, a rotated key); a
 * line matching a known pair must verify, or the whole note fails; at least one must verify.
 */
import { Buffer } from 'node:buffer';
import type { Ed25519Signer } from './ed25519.js';
import { verifySignature } from './ed25519.js';
import { fromHex, isHex, toHex } from './hex.js';
import {
  decodeBase64Strict,
  ed25519KeyHash,
  keyNameProblem,
  quote,
  signatureLine,
  splitSignedNote,
} from './signed-note.js';
import type { NoteSignatureLine } from './signed-note.js';

/** A checkpoint body: origin, tree size, root hash (32 bytes). */
export interface CheckpointBody {
  origin: string;
  treeSize: number;
  rootHash: Uint8Array;
}

export type ParsedCheckpointNote =
  | {
      ok: true;
      body: CheckpointBody;
      text: string;
      signatures: Array<{ keyName: string; keyHash: Uint8Array; signature: Uint8Array }>;
    }
  | { ok: false; reason: string };

export type VerifiedCheckpointNote =
  | { ok: true; body: CheckpointBody; signerKey: string }
  | { ok: false; reason: string };

const ROOT_HASH_BYTES = 32;
const SIZE_RE = /^(?:0|[1-9][0-9]*)$/;

/** The note text that is signed: "<origin>\n<size>\n<base64 root>\n". Throws RangeError for a body Chio must not sign. */
export function checkpointText(body: CheckpointBody): string {
  const problem = keyNameProblem(body?.origin, 'checkpoint origin');
  if (problem !== null) throw new RangeError(problem);
  if (!Number.isSafeInteger(body.treeSize) || body.treeSize < 0)
    throw new RangeError(`a tree size is a non-negative safe integer, got ${String(body.treeSize)}`);
  if (!(body.rootHash instanceof Uint8Array) || body.rootHash.length !== ROOT_HASH_BYTES)
    throw new RangeError(`a root hash is ${ROOT_HASH_BYTES} bytes`);
  return `${body.origin}\n${body.treeSize}\n${Buffer.from(body.rootHash).toString('base64')}\n`;
}

/** Default origin (DESIGN §10): "chio-ledger/" + the first 32 hex characters of the entry_hash of seq 1. */
export function defaultOrigin(firstEntryHashHex: string): string {
  if (!isHex(firstEntryHashHex, 32)) throw new RangeError('an entry_hash is 64 lowercase hex characters');
  return `chio-ledger/${firstEntryHashHex.slice(0, 32)}`;
}

/** C2SP signed-note Ed25519 key hash: the first 4 bytes of SHA-256(keyName || "\n" || 0x01 || publicKey[32]). */
export function noteKeyHash(keyName: string, publicKey: Uint8Array): Uint8Array {
  const problem = keyNameProblem(keyName);
  if (problem !== null) throw new RangeError(problem);
  if (!(publicKey instanceof Uint8Array) || publicKey.length !== 32)
    throw new RangeError('an Ed25519 public key is 32 bytes');
  return ed25519KeyHash(keyName, publicKey);
}

/** The signed note: checkpointText, a blank line, and one signature line by `signer` under `keyName` (default: the origin). */
export function signCheckpoint(body: CheckpointBody, signer: Ed25519Signer, keyName?: string): string {
  const text = checkpointText(body);
  const name = keyName ?? body.origin;
  const keyHash = noteKeyHash(name, fromHex(signer.publicKeyHex));
  return `${text}\n${signatureLine(name, keyHash, signer.sign(text))}`;
}

/** The checkpoint inside a note text that splitSignedNote produced (so: ends in "\n", no control characters). */
function parseBody(text: string): { ok: true; body: CheckpointBody } | { ok: false; reason: string } {
  const lines = text.slice(0, -1).split('\n');
  const empty = lines.indexOf('');
  if (empty >= 0) {
    const which =
      ['the origin (line 1)', 'the tree size (line 2)', 'the root hash (line 3)'][empty] ?? `line ${empty + 1}`;
    return {
      ok: false,
      reason: `${which} of the note text is empty: checkpoint lines are non-empty, and the signatures start after the note's last blank line`,
    };
  }
  if (lines.length < 3)
    return {
      ok: false,
      reason: `the note text has ${lines.length} line(s); a checkpoint has three: origin, tree size, root hash`,
    };
  if (lines.length > 3)
    return {
      ok: false,
      reason: `the note text has ${lines.length - 3} line(s) after the root hash: extension lines are refused (Chio checkpoints have none)`,
    };
  const [origin, size, root] = lines as [string, string, string];
  if (!SIZE_RE.test(size)) {
    const why = /^[0-9]+$/.test(size) ? 'it has leading zeros' : 'it is not ASCII decimal digits';
    return { ok: false, reason: `the tree size (second line) ${quote(size)} is not canonical: ${why}` };
  }
  const treeSize = size.length > 16 ? Number.POSITIVE_INFINITY : Number(size);
  if (!Number.isSafeInteger(treeSize))
    return { ok: false, reason: `the tree size ${quote(size)} is beyond 2^53-1, the largest Chio handles exactly` };
  const rootHash = decodeBase64Strict(root);
  if (rootHash === null)
    return { ok: false, reason: `the root hash (third line) is not canonical standard base64: ${quote(root)}` };
  if (rootHash.length !== ROOT_HASH_BYTES)
    return { ok: false, reason: `the root hash is ${rootHash.length} bytes; a SHA-256 root is ${ROOT_HASH_BYTES}` };
  return { ok: true, body: { origin, treeSize, rootHash } };
}

/** Parses a signed checkpoint note without verifying any signature. Never throws for bad input. */
export function parseCheckpointNote(note: string | Uint8Array): ParsedCheckpointNote {
  const split = splitSignedNote(note);
  if (!split.ok) return split;
  const parsed = parseBody(split.text);
  if (!parsed.ok) return parsed;
  const signatures = split.signatures.map((s: NoteSignatureLine) => ({
    keyName: s.keyName,
    keyHash: s.keyHash,
    signature: s.signature,
  }));
  return { ok: true, body: parsed.body, text: split.text, signatures };
}

/**
 * Accepts the note only if a signature line by a trusted key verifies and none fails. Trusted keys
 * are raw Ed25519 public keys as 64 hex characters (what --trusted-kernel-pubkey files hold;
 * upper case is accepted and folded). `signerKey` is the lowercase hex of the key whose line,
 * first in note order, verified. Never throws for bad input (the note or the keys).
 */
export function verifyCheckpointNote(
  note: string | Uint8Array,
  trustedKeys: readonly string[],
  options: { keyName?: string } = {},
): VerifiedCheckpointNote {
  if (!Array.isArray(trustedKeys) || trustedKeys.length === 0)
    return { ok: false, reason: 'no trusted keys were given, so no checkpoint can verify' };
  const keys: string[] = [];
  for (const [i, key] of trustedKeys.entries()) {
    const hex = typeof key === 'string' ? key.toLowerCase() : '';
    if (!isHex(hex, 32))
      return { ok: false, reason: `trusted key ${i + 1} is not an Ed25519 public key as 64 hex characters` };
    keys.push(hex);
  }
  const parsed = parseCheckpointNote(note);
  if (!parsed.ok) return parsed;
  const keyName = options.keyName ?? parsed.body.origin;
  const nameProblem = keyNameProblem(
    keyName,
    options.keyName === undefined ? 'key name (here the origin, the default)' : 'key name',
  );
  if (nameProblem !== null)
    return { ok: false, reason: `${nameProblem}, so no signature line can be by it; give the expected key name` };

  // (keyName, key hash) → the trusted keys known under that pair (more than one only on a 32-bit collision).
  const known = new Map<string, string[]>();
  for (const key of keys) {
    const hash = toHex(ed25519KeyHash(keyName, fromHex(key)));
    known.set(hash, [...(known.get(hash) ?? []), key]);
  }
  const message = Buffer.from(parsed.text, 'utf8');
  let signerKey: string | null = null;
  for (const [index, line] of parsed.signatures.entries()) {
    if (line.keyName !== keyName) continue;
    const hash = toHex(line.keyHash);
    const candidates = known.get(hash);
    if (candidates === undefined) continue; // C2SP: verifiers MUST ignore signatures from unknown keys
    const where = `signature line ${index + 1} (${quote(keyName)}, key hash ${hash})`;
    if (line.signature.length !== 64)
      return {
        ok: false,
        reason: `${where} is by a trusted key but holds ${line.signature.length} bytes, not a 64-byte Ed25519 signature`,
      };
    const signatureHex = toHex(line.signature);
    const verifiedBy = candidates.find((key) => verifySignature(key, message, signatureHex));
    if (verifiedBy === undefined)
      return {
        ok: false,
        reason: `${where} is by trusted key ${candidates.join(' or ')} but does not verify: the checkpoint (origin, tree size or root hash) or the signature was altered`,
      };
    signerKey ??= verifiedBy;
  }
  if (signerKey === null) {
    const seen = parsed.signatures
      .map((s) => `${quote(s.keyName)} ${toHex(s.keyHash)}`)
      .slice(0, 8)
      .join(', ');
    return {
      ok: false,
      reason: `no signature line is by a trusted key: expected key name ${quote(keyName)} with key hash ${[...known.keys()].join(' or ')}; the note has ${seen}${parsed.signatures.length > 8 ? ', …' : ''}`,
    };
  }
  return { ok: true, body: parsed.body, signerKey };
}
