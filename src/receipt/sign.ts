/**
 * Signing a receipt (DESIGN §5): validate the draft, apply the semantic rule, check or compute
 * `parameter_hash`, bind the signing nonce, compute the content-addressed id, sign.
 * Owns: the order of those steps and the in-process record of receipts this process signed.
 * Must not import ledger, kernel, edges or cli.
 */
import { randomUUID } from 'node:crypto';
import { canonicalJson, isSeedSigner, sha256Hex, toHex, verifySignature } from '../crypto/index.js';
import type { Ed25519Signer } from '../crypto/index.js';
import { ChioError } from '../errors.js';
import { actionText, ReceiptTextParts } from './encode.js';
import { describeIssues, ReceiptDraftSchema } from './schema.js';
import type { Receipt, ReceiptDraft } from './schema.js';
import { semanticViolation } from './semantics.js';

/** The metadata member that carries the producer's pre-signing id (DESIGN §5 "Uniqueness"). */
export const SIGNING_NONCE_KEY = 'chio_receipt_signing_nonce';

export interface SignOptions {
  /**
   * The producer's pre-signing id (a request id, or `acp-<toolCallId>-<status>-<content_hash>`).
   * Written into `metadata.chio_receipt_signing_nonce` before the id is computed, so two otherwise
   * identical calls never share an id. Default: a nonce already in the draft's metadata, else a
   * random UUID.
   */
  nonce?: string;
}

/** A constructor that returns the object it is given, so that a subclass can stamp a private field on it. */
class Stampable {
  constructor(target: object) {
    // biome-ignore lint/correctness/noConstructorReturn: the point: `SignedHere` stamps an existing object
    return target;
  }
}

/**
 * Receipts signed in this process carry the canonical body text computed while signing, in a
 * private field only this module can add or read (ECMAScript private names: invisible to
 * Object.keys, symbols, JSON, spreads and structuredClone, and impossible to forge from outside).
 * Such a receipt is frozen, so it is exactly what was signed: the ledger can append it without
 * verifying the signature again. Anything else, a copy included, is verified in full first.
 * (A WeakMap did the same, but its entries cost every young-generation GC: ~8 % of signing.)
 */
class SignedHere extends Stampable {
  readonly #body: string;
  private constructor(receipt: Receipt, body: string) {
    super(receipt);
    this.#body = body;
  }
  /** Stamps `receipt` (not yet frozen) with its body text. */
  static stamp(receipt: Receipt, body: string): void {
    new SignedHere(receipt, body);
  }
  static bodyOf(value: object): string | undefined {
    return #body in value ? (value as SignedHere).#body : undefined;
  }
}

/** The stored body text of a receipt this process signed, or undefined for any other object. */
export function trustedBodyText(receipt: Receipt): string | undefined {
  return typeof receipt === 'object' && receipt !== null ? SignedHere.bodyOf(receipt) : undefined;
}

/**
 * Freezes the objects the signer built (the receipt, its action, decision, evidence and metadata
 * containers) so the signed members cannot be reassigned. The caller's own parameter objects are
 * left as they are; the ledger stores the body text recorded here, never a re-serialisation.
 */
function freezeReceipt(receipt: Receipt): Receipt {
  Object.freeze(receipt.action);
  if (receipt.decision !== undefined) Object.freeze(receipt.decision);
  if (receipt.evidence !== undefined) for (const e of Object.freeze(receipt.evidence)) Object.freeze(e);
  if (receipt.metadata !== undefined) Object.freeze(receipt.metadata);
  if (receipt.actor_chain !== undefined) Object.freeze(receipt.actor_chain);
  return Object.freeze(receipt);
}

/** Everything up to the signature: validated, hashed, id computed, bytes to sign ready. */
interface PendingReceipt {
  unsigned: Record<string, unknown>;
  parts: ReceiptTextParts;
  id: string;
  /** The id member's canonical text. */
  idText: string;
  signed: string;
}

function prepare(draft: ReceiptDraft, publicKeyHex: string, options: SignOptions): PendingReceipt {
  const parsed = ReceiptDraftSchema.safeParse(draft);
  if (!parsed.success) {
    const issues = describeIssues(parsed.error);
    throw new ChioError('CHIO-RECEIPT-INVALID', `receipt draft is invalid: ${issues.join('; ')}`, {
      details: { issues },
    });
  }
  const d = parsed.data;
  const violation = semanticViolation(d);
  if (violation !== null) throw new ChioError('CHIO-RECEIPT-SEMANTICS', violation);

  // parameter_hash is over the parameters as the caller sent them (DESIGN §4). When they are
  // stored unredacted, the stored ones must hash to it; when redacted, only the producer knows it.
  // The parameters are canonicalized once: for their hash and as part of the action member.
  const parametersText = canonicalJson(d.action.parameters);
  let parameterHash = d.action.parameter_hash;
  if (d.redaction_mode === 'none') {
    const actual = sha256Hex(parametersText);
    if (parameterHash !== undefined && parameterHash !== actual) {
      throw new ChioError(
        'CHIO-RECEIPT-PARAMETER-HASH',
        `parameter_hash ${parameterHash} is not H(parameters) = ${actual}`,
      );
    }
    parameterHash = actual;
  } else if (parameterHash === undefined) {
    throw new ChioError(
      'CHIO-RECEIPT-PARAMETER-HASH',
      `a ${d.redaction_mode} receipt needs the parameter_hash of the original parameters`,
    );
  }

  const existingNonce = d.metadata?.[SIGNING_NONCE_KEY];
  const nonce = options.nonce ?? (typeof existingNonce === 'string' ? existingNonce : randomUUID());
  if (nonce.trim() === '') throw new ChioError('CHIO-RECEIPT-INVALID', 'the signing nonce must not be blank');

  // The receipt is zod's output object, completed in place: zod builds a new object for the draft
  // (only `metadata`, a custom JSON-object check, and `parameters` are the caller's, and both are
  // replaced or left untouched here), so no copy of its ~17 members is made twice. Assigning the
  // members keeps the order a spread would give: action and metadata where the draft had them,
  // kernel_key (then id and signature, in `finish`) after the rest.
  const unsigned: Record<string, unknown> = d === (draft as unknown) ? { ...d } : d;
  unsigned.action = { parameters: d.action.parameters, parameter_hash: parameterHash };
  unsigned.metadata = { ...d.metadata, [SIGNING_NONCE_KEY]: nonce };
  unsigned.kernel_key = publicKeyHex;
  const parts = ReceiptTextParts.ofReceipt(unsigned, actionText(parameterHash, parametersText));
  const id = sha256Hex(parts.idInput);
  const idText = `"${id}"`; // lowercase hex: JSON.stringify would add nothing but the quotes
  return { unsigned, parts, id, idText, signed: parts.signed(idText) };
}

function finish(pending: PendingReceipt, signature: Uint8Array, signer: Ed25519Signer): Receipt {
  const signatureHex = toHex(signature);
  // A receipt stamped as signed here is appended without being verified again, so its signature
  // must be made by the key it names. `signerFromSeed` signers are (the key is derived from the
  // seed); any other signer (an HSM, a wrapper, a misconfigured rotation) is checked once here.
  if (
    !isSeedSigner(signer) &&
    (!/^[0-9a-f]{64}$/.test(signer.publicKeyHex) || !verifySignature(signer.publicKeyHex, pending.signed, signatureHex))
  )
    throw new ChioError(
      'CHIO-RECEIPT-SIGNER-MISMATCH',
      `the signer's signature does not verify under the key it names (${JSON.stringify(String(signer.publicKeyHex).slice(0, 80))})`,
    );
  // `unsigned` was built for this receipt alone (prepare) and is not seen outside this module.
  const receipt = pending.unsigned as Receipt;
  receipt.id = pending.id;
  receipt.signature = signatureHex;
  SignedHere.stamp(receipt, pending.parts.body(pending.idText, `"${signatureHex}"`));
  return freezeReceipt(receipt);
}

/** Signs on the calling thread. Throws CHIO-RECEIPT-* for an invalid draft. */
export function signReceipt(draft: ReceiptDraft, signer: Ed25519Signer, options: SignOptions = {}): Receipt {
  const pending = prepare(draft, signer.publicKeyHex, options);
  return finish(pending, signer.sign(pending.signed), signer);
}

/**
 * The same receipt, with the Ed25519 step on libuv's thread pool: a producer serving many calls
 * at once keeps its own thread for the rest of its work. Identical bytes to `signReceipt`.
 */
export async function signReceiptAsync(
  draft: ReceiptDraft,
  signer: Ed25519Signer,
  options: SignOptions = {},
): Promise<Receipt> {
  const pending = prepare(draft, signer.publicKeyHex, options);
  return finish(pending, await signer.signAsync(pending.signed), signer);
}
