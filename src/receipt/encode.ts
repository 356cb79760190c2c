/**
 * The byte strings of a receipt (DESIGN §5), built from one canonicalization of its members:
 *  - id input   = JCS(receipt minus id, signature, algorithm); id = sha256_hex(id input)
 *  - signed text = JCS(receipt minus signature, algorithm) — the body including `id`
 *  - body text   = JCS(whole receipt) — what the ledger stores (DESIGN §6)
 * Owns: which members each string covers. Must not import ledger, kernel, edges or cli.
 */
import { canonicalJson, canonicalMember, joinCanonicalMembers, sha256Hex } from '../crypto/index.js';

/** Members never covered by the id. */
const NOT_IN_ID = new Set(['id', 'signature', 'algorithm']);
/** Members never covered by the signature. */
const NOT_SIGNED = new Set(['signature', 'algorithm']);

/**
 * Canonical text of each present member (but `except`, when named). Throws
 * CHIO-CRYPTO-NOT-CANONICAL for a non-JSON value.
 */
export function canonicalMembers(receipt: Readonly<Record<string, unknown>>, except?: string): Map<string, string> {
  const members = new Map<string, string>();
  for (const name of Object.keys(receipt)) {
    const value = receipt[name];
    if (value !== undefined && name !== except) members.set(name, canonicalJson(value));
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
  const parametersText = canonicalJson(receipt.action.parameters);
  const members = canonicalMembers(receipt, 'action');
  members.set('action', actionText(receipt.action.parameter_hash, parametersText));
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

/**
 * The three texts of one receipt from its members' canonical texts, with the names sorted once.
 * RFC 8785 orders the members by name, and the three texts differ only in `algorithm` (< "id",
 * in the body only), `id` and `signature`: each text is the same runs of members, joined around
 * those three. Signing knows the id only after hashing `idInput`; verifying knows both up front.
 */
export class ReceiptTextParts {
  /** Members sorting before "id" that are signed (all but `algorithm`). */
  private readonly head: string;
  /** The same run with `algorithm` in its place, when the receipt has one (the body's). */
  private readonly bodyHead: string;
  /** Members between "id" and "signature". */
  private readonly middle: string;
  /** Members after "signature". */
  private readonly tail: string;

  /** `members`: canonical text of each member; `id` and `signature`, if present, are left out. */
  constructor(members: ReadonlyMap<string, string>) {
    const names = [...members.keys()].sort();
    let head = '';
    let bodyHead = '';
    let middle = '';
    let tail = '';
    for (const name of names) {
      if (name === 'id' || name === 'signature') continue;
      const member = canonicalMember(name, members.get(name)!);
      if (name < 'id') {
        bodyHead = bodyHead === '' ? member : `${bodyHead},${member}`;
        if (!NOT_SIGNED.has(name)) head = head === '' ? member : `${head},${member}`;
      } else if (name < 'signature') middle = middle === '' ? member : `${middle},${member}`;
      else tail = tail === '' ? member : `${tail},${member}`;
    }
    this.head = head;
    this.bodyHead = bodyHead;
    this.middle = middle;
    this.tail = tail;
  }

  /** JCS(receipt minus id, signature, algorithm): what the id hashes. */
  get idInput(): string {
    return wrap(this.head, this.middle, this.tail);
  }

  /** JCS(receipt minus signature, algorithm); `idText` is the id member's canonical text. */
  signed(idText: string): string {
    return wrap(this.head, `"id":${idText}`, this.middle, this.tail);
  }

  /** JCS(whole receipt). */
  body(idText: string, signatureText: string): string {
    return wrap(this.bodyHead, `"id":${idText}`, this.middle, `"signature":${signatureText}`, this.tail);
  }
}

/** `{` + the non-empty runs joined by commas + `}`. */
function wrap(...runs: string[]): string {
  let out = '';
  for (const run of runs) if (run !== '') out = out === '' ? run : `${out},${run}`;
  return `{${out}}`;
}
