/**
 * Verifying a receipt (DESIGN §5): schema, id, semantic rule, kernel key trust, signature,
 * parameter hash (redaction_mode none only) — in that order, stopping at the first failure and naming it.
 * Owns: the verdict shape. Must not import ledger, kernel, edges or cli.
 * The input is attacker-controlled: it may be any JSON value read from a file or a database row.
 */
import { isHex, sha256Hex, verifySignature } from '../crypto/index.js';
import { isChioError } from '../errors.js';
import { ReceiptTextParts, receiptMembers } from './encode.js';
import { describeIssues, ReceiptSchema } from './schema.js';
import type { Receipt } from './schema.js';
import { semanticViolation } from './semantics.js';

export type ReceiptCheck = 'schema' | 'canonical' | 'id' | 'semantics' | 'kernel_key' | 'signature' | 'parameter_hash';

export type ReceiptVerdict =
  | {
      ok: true;
      receipt: Receipt;
      id: string;
      /** The stored form: JCS of the whole receipt. */
      body: string;
      /** The bytes the signature covers: JCS of the receipt minus signature and algorithm. */
      signed: string;
    }
  | { ok: false; check: ReceiptCheck; message: string; id: string | undefined; issues: string[] };

export interface VerifyReceiptOptions {
  /** When given, the receipt's kernel_key must be one of these (64-hex public keys). */
  trustedKernelKeys?: ReadonlySet<string> | undefined;
  /** Skip the Ed25519 check (structure, id and hashes only). */
  signatures?: boolean;
}

function fail(check: ReceiptCheck, message: string, id: unknown, issues: string[] = []): ReceiptVerdict {
  return { ok: false, check, message, id: isHex(id, 32) ? id : undefined, issues };
}

export function verifyReceipt(input: unknown, options: VerifyReceiptOptions = {}): ReceiptVerdict {
  const claimedId = (input as { id?: unknown } | null)?.id;
  const parsed = ReceiptSchema.safeParse(input);
  if (!parsed.success) {
    const issues = describeIssues(parsed.error);
    return fail('schema', `not a valid chio.receipt.v1 receipt: ${issues.join('; ')}`, claimedId, issues);
  }
  const receipt = parsed.data;
  let members: Map<string, string>;
  let parametersText: string;
  try {
    ({ members, parametersText } = receiptMembers(receipt));
  } catch (e) {
    if (isChioError(e)) return fail('canonical', e.message, receipt.id);
    throw e;
  }
  const parts = new ReceiptTextParts(members);
  const id = sha256Hex(parts.idInput);
  if (id !== receipt.id)
    return fail('id', `id ${receipt.id} does not match the content (recomputed ${id})`, receipt.id);
  const violation = semanticViolation(receipt);
  if (violation !== null) return fail('semantics', violation, receipt.id);
  if (options.trustedKernelKeys !== undefined && !options.trustedKernelKeys.has(receipt.kernel_key)) {
    return fail('kernel_key', `kernel_key ${receipt.kernel_key} is not a trusted kernel key`, receipt.id);
  }
  // The schema requires id and signature: both members are there.
  const idText = members.get('id')!;
  const signed = parts.signed(idText);
  if (options.signatures !== false && !verifySignature(receipt.kernel_key, signed, receipt.signature)) {
    return fail('signature', `signature does not verify under kernel_key ${receipt.kernel_key}`, receipt.id);
  }
  // Only unredacted parameters are checked against the hash. A redacted receipt's parameter_hash
  // commits to the original parameters with a salt that is not in the receipt (parameter-salt.ts):
  // it cannot be checked, and is never a mismatch, without a disclosed salt (checkDisclosure).
  if (receipt.redaction_mode === 'none') {
    const hash = sha256Hex(parametersText);
    if (hash !== receipt.action.parameter_hash) {
      return fail(
        'parameter_hash',
        `parameter_hash ${receipt.action.parameter_hash} is not H(parameters) = ${hash}`,
        receipt.id,
      );
    }
  }
  return { ok: true, receipt, id, body: parts.body(idText, members.get('signature')!), signed };
}
