/**
 * The byte strings of a receipt (DESIGN §5), built from one canonicalization of its members:
 *  - id input   = JCS(receipt minus id, signature, algorithm); id = sha256_hex(id input)
 *  - signed text = JCS(receipt minus signature, algorithm) — the body including `id`
 *  - body text   = JCS(whole receipt) — what the ledger stores (DESIGN §6)
 * Owns: which members each string covers. Must not import ledger, kernel, edges or cli.
 */
import { canonicalJson, canonicalMember, joinCanonicalMembers, sha256Hex, sortedKeys } from '../crypto/index.js';

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

  /**
   * `members`: canonical text of each member; `id` and `signature`, if present, are left out.
   * (A `Runs` already gathered is taken as it is: `ofReceipt`.)
   */
  constructor(members: ReadonlyMap<string, string> | Runs) {
    let runs: Runs;
    if (members instanceof Runs) runs = members;
    else {
      runs = new Runs();
      for (const name of [...members.keys()].sort()) runs.add(name, members.get(name)!);
    }
    this.head = runs.head;
    this.bodyHead = runs.bodyHead;
    this.middle = runs.middle;
    this.tail = runs.tail;
  }

  /**
   * The same texts straight from a receipt object, its member names sorted once and each member
   * canonicalized once, with no map of texts in between (the signer's path). `actionText` is the
   * `action` member's text: the signer has canonicalized the parameters already, for their hash.
   * Members whose value is undefined are absent, as in `canonicalMembers`. Throws
   * CHIO-CRYPTO-NOT-CANONICAL for a non-JSON value.
   */
  static ofReceipt(receipt: Readonly<Record<string, unknown>>, actionText: string): ReceiptTextParts {
    const runs = new Runs();
    for (const name of sortedKeys(receipt)) {
      const value = receipt[name];
      if (value !== undefined) runs.add(name, name === 'action' ? actionText : canonicalJson(value));
    }
    return new ReceiptTextParts(runs);
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

/** A receipt's members in name order, gathered into the runs around `id` and `signature`. */
class Runs {
  head = '';
  bodyHead = '';
  middle = '';
  tail = '';

  /** Adds one member; call in RFC 8785 order (names sorted by UTF-16 code units). */
  add(name: string, text: string): void {
    if (name === 'id' || name === 'signature') return;
    const member = canonicalMember(name, text);
    if (name < 'id') {
      this.bodyHead = this.bodyHead === '' ? member : `${this.bodyHead},${member}`;
      if (!NOT_SIGNED.has(name)) this.head = this.head === '' ? member : `${this.head},${member}`;
    } else if (name < 'signature') this.middle = this.middle === '' ? member : `${this.middle},${member}`;
    else this.tail = this.tail === '' ? member : `${this.tail},${member}`;
  }
}

/** `{` + the non-empty runs joined by commas + `}`. */
function wrap(...runs: string[]): string {
  let out = '';
  for (const run of runs) if (run !== '') out = out === '' ? run : `${out},${run}`;
  return `{${out}}`;
}
