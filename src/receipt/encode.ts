/**
 * The byte strings of a receipt (DESIGN §5), built from one canonicalization of its members:
 *  - id input   = JCS(receipt minus id, signature, algorithm); id = sha256_hex(id input)
 *  - signed text = JCS(receipt minus signature, algorithm) — the body including `id`
 *  - body text   = JCS(whole receipt) — what the ledger stores (DESIGN §6)
 * Owns: which members each string covers. Must not import ledger, kernel, edges or cli.
 */
import { canonicalJson, joinCanonicalMembers, sha256Hex } from '../crypto/index.js';

/** Members never covered by the id. */
const NOT_IN_ID = new Set(['id', 'signature', 'algorithm']);
/** Members never covered by the signature. */
const NOT_SIGNED = new Set(['signature', 'algorithm']);

/** Canonical text of each present member. Throws CHIO-CRYPTO-NOT-CANONICAL for a non-JSON value. */
export function canonicalMembers(receipt: Readonly<Record<string, unknown>>): Map<string, string> {
  const members = new Map<string, string>();
  for (const [name, value] of Object.entries(receipt)) {
    if (value !== undefined) members.set(name, canonicalJson(value));
  }
  return members;
}

function without(members: ReadonlyMap<string, string>, excluded: ReadonlySet<string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, text] of members) if (!excluded.has(name)) out.set(name, text);
  return out;
}

export function idInputText(members: ReadonlyMap<string, string>): string {
  return joinCanonicalMembers(without(members, NOT_IN_ID));
}

export function computeReceiptId(members: ReadonlyMap<string, string>): string {
  return sha256Hex(idInputText(members));
}

export function signedText(members: ReadonlyMap<string, string>): string {
  return joinCanonicalMembers(without(members, NOT_SIGNED));
}

export function bodyText(members: ReadonlyMap<string, string>): string {
  return joinCanonicalMembers(members);
}
