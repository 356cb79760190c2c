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

/**
 * Canonical members of a receipt whose `action` is `{parameters, parameter_hash}`, with the
 * parameters canonicalized once: their text is needed both inside the action member and for
 * `parameter_hash = sha256(JCS(parameters))` (DESIGN §4).
 */
export function receiptMembers(
  receipt: Readonly<Record<string, unknown>> & { action: { parameters: unknown; parameter_hash: string } },
): {
  members: Map<string, string>;
  parametersText: string;
} {
  const { action, ...rest } = receipt;
  const parametersText = canonicalJson(action.parameters);
  const members = canonicalMembers(rest);
  members.set('action', actionText(action.parameter_hash, parametersText));
  return { members, parametersText };
}

/** `{"parameter_hash":…,"parameters":…}`: the two names are already in RFC 8785 order. */
export function actionText(parameterHash: string, parametersText: string): string {
  return `{"parameter_hash":${canonicalJson(parameterHash)},"parameters":${parametersText}}`;
}

export function idInputText(members: ReadonlyMap<string, string>): string {
  return joinCanonicalMembers(members, NOT_IN_ID);
}

export function computeReceiptId(members: ReadonlyMap<string, string>): string {
  return sha256Hex(idInputText(members));
}

export function signedText(members: ReadonlyMap<string, string>): string {
  return joinCanonicalMembers(members, NOT_SIGNED);
}

export function bodyText(members: ReadonlyMap<string, string>): string {
  return joinCanonicalMembers(members);
}
