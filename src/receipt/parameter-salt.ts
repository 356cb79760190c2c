/**
 * The salted parameter_hash of a redacted receipt (docs/receipts.md, salted parameter hash):
 *
 *   key_id         = hex(HMAC-SHA-256(redaction key, "chio.redaction-key-id.v1"))
 *   salt           = hex(HMAC-SHA-256(redaction key, JCS({"capability_id", "purpose": "chio.parameter-salt.v1",
 *                                                        "signing_nonce", "timestamp"})))
 *   parameter_hash = sha256_hex(JCS({"parameters": <original parameters>, "salt": salt}))
 *
 * and the marker a salted receipt carries: metadata.chio_parameter_salt = {"key_id", "scheme"}.
 * Without the salt, the hash of a redacted receipt says nothing about the parameters (no word list
 * can be tried against it); with it, anyone can check a disclosed value exactly. The key is the
 * operator's; it and the salt never enter a receipt or the ledger.
 * Owns: these byte formats and the disclosure check. Must not import ledger, kernel, edges or cli.
 * Receipts, salts and parameters given to the check are attacker-controlled.
 */
import { createHmac } from 'node:crypto';
import { z } from 'zod';
import { canonicalJson, isHex, sha256Hex } from '../crypto/index.js';
import type { Receipt } from './schema.js';
import { SIGNING_NONCE_KEY } from './sign.js';

/** The metadata member that marks a salted parameter_hash. */
export const PARAMETER_SALT_KEY = 'chio_parameter_salt';
/** The construction above; a later one gets a new name. */
export const PARAMETER_SALT_SCHEME = 'chio.parameter-salt.v1';
/** The HMAC message whose output names a redaction key without revealing it. */
export const REDACTION_KEY_ID_LABEL = 'chio.redaction-key-id.v1';
/** A redaction key is 32 bytes. */
export const REDACTION_KEY_BYTES = 32;

const hex64 = z.string().regex(/^[0-9a-f]{64}$/, 'expected 64 lowercase hex characters');

/** metadata.chio_parameter_salt (read from receipts: attacker-controlled). */
export const ParameterSaltMarkerSchema = z.strictObject({ key_id: hex64, scheme: z.literal(PARAMETER_SALT_SCHEME) });
export type ParameterSaltMarker = z.infer<typeof ParameterSaltMarkerSchema>;

/** The receipt members the salt is derived from: together they name one receipt. */
export interface SaltInput {
  capabilityId: string;
  timestamp: number;
  signingNonce: string;
}

function hmacHex(key: Uint8Array, message: string): string {
  if (key.length !== REDACTION_KEY_BYTES) throw new RangeError(`a redaction key is ${REDACTION_KEY_BYTES} bytes`);
  return createHmac('sha256', key).update(message, 'utf8').digest('hex');
}

export function redactionKeyId(key: Uint8Array): string {
  return hmacHex(key, REDACTION_KEY_ID_LABEL);
}

/** The JCS text the salt is the HMAC of. */
export function saltInputText(input: SaltInput): string {
  return canonicalJson({
    capability_id: input.capabilityId,
    purpose: PARAMETER_SALT_SCHEME,
    signing_nonce: input.signingNonce,
    timestamp: input.timestamp,
  });
}

/** The per-receipt salt, 64 hex: the operator can disclose one receipt's salt without the key or any other salt. */
export function deriveParameterSalt(key: Uint8Array, input: SaltInput): string {
  return hmacHex(key, saltInputText(input));
}

/** sha256_hex(JCS({"parameters", "salt"})). Throws CHIO-CRYPTO-NOT-CANONICAL for parameters JCS cannot represent. */
export function saltedParameterHash(salt: string, parameters: unknown): string {
  return sha256Hex(canonicalJson({ parameters, salt }));
}

/** The marker of a salted receipt, or undefined (redaction_mode none, or a hash not made this way). */
export function parameterSaltMarker(
  receipt: Pick<Receipt, 'redaction_mode' | 'metadata'>,
): ParameterSaltMarker | undefined {
  if (receipt.redaction_mode === 'none') return undefined;
  const parsed = ParameterSaltMarkerSchema.safeParse(receipt.metadata?.[PARAMETER_SALT_KEY]);
  return parsed.success ? parsed.data : undefined;
}

/** The salt input a signed receipt names (its signing nonce must be a string). */
export function saltInputOf(receipt: Pick<Receipt, 'capability_id' | 'timestamp' | 'metadata'>): SaltInput | undefined {
  const nonce = receipt.metadata?.[SIGNING_NONCE_KEY];
  return typeof nonce === 'string'
    ? { capabilityId: receipt.capability_id, timestamp: receipt.timestamp, signingNonce: nonce }
    : undefined;
}

export type DisclosureVerdict =
  | { ok: true; parameterHash: string }
  | { ok: false; reason: 'not_salted' | 'bad_salt' | 'not_canonical' | 'mismatch'; message: string };

/**
 * Does a disclosed (salt, parameters) pair open this receipt's parameter_hash? The receipt must
 * already have been verified (signature, id) by the caller; this checks only the commitment.
 */
export function checkDisclosure(receipt: Receipt, salt: string, parameters: unknown): DisclosureVerdict {
  if (parameterSaltMarker(receipt) === undefined) {
    return {
      ok: false,
      reason: 'not_salted',
      message:
        receipt.redaction_mode === 'none'
          ? `receipt ${receipt.id} is not redacted: its parameters are in the receipt and parameter_hash = H(parameters)`
          : `receipt ${receipt.id} has no metadata.${PARAMETER_SALT_KEY}: its parameter_hash was not salted by ${PARAMETER_SALT_SCHEME}`,
    };
  }
  if (!isHex(salt, 32)) return { ok: false, reason: 'bad_salt', message: 'a salt is 64 lowercase hex characters' };
  let hash: string;
  try {
    hash = saltedParameterHash(salt, parameters);
  } catch (e) {
    return {
      ok: false,
      reason: 'not_canonical',
      message: `the disclosed parameters cannot be hashed: ${(e as Error).message}`,
    };
  }
  return hash === receipt.action.parameter_hash
    ? { ok: true, parameterHash: hash }
    : {
        ok: false,
        reason: 'mismatch',
        message: `sha256(JCS({parameters, salt})) = ${hash} is not the receipt's parameter_hash ${receipt.action.parameter_hash}`,
      };
}
