/**
 * Applying the policy's redaction to a call's parameters before they go into a receipt, and the
 * receipt's parameter_hash (docs/receipts.md, salted parameter hash):
 *  - redaction none: parameters as sent, parameter_hash = H(parameters) — unsalted, checkable by anyone;
 *  - hash_only / redact_keys: parameter_hash = sha256_hex(JCS({parameters: original, salt})) with
 *    the receipt's salt from the operator's redaction key (src/receipt/parameter-salt.ts). An
 *    unsalted hash beside redacted (or guessable) parameters would let anyone confirm a guessed
 *    secret by hashing each word of a list; the salt stops that, and disclosing it proves the value.
 * Owns: the redaction transforms and the choice of hash. Imports src/receipt, src/crypto and types.
 */
import { hashCanonical } from '../crypto/index.js';
import { saltedParameterHash } from '../receipt/index.js';
import type { ParameterSaltMarker, SaltInput } from '../receipt/index.js';
import { ChioError } from '../errors.js';
import type { RedactionKey } from './redaction-key.js';
import type { Redaction } from './policy.js';

export const REDACTED = '[REDACTED]';

export type RedactionMode = 'none' | 'summary' | 'redacted';

function redactKeys(value: unknown, keys: ReadonlySet<string>, depth = 0): unknown {
  if (depth > 128 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redactKeys(v, keys, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    // defineProperty, not assignment: a "__proto__" key stays an ordinary member.
    Object.defineProperty(out, k, {
      value: keys.has(k.toLowerCase()) ? REDACTED : redactKeys(v, keys, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** The parameters to store, and the receipt's redaction_mode. */
export function redactParameters(
  parameters: unknown,
  redaction: Redaction,
): { parameters: unknown; mode: RedactionMode } {
  switch (redaction.mode) {
    case 'none':
      return { parameters, mode: 'none' };
    case 'hash_only':
      return { parameters: null, mode: 'summary' };
    case 'redact_keys':
      return {
        parameters: redactKeys(parameters, new Set(redaction.keys.map((k) => k.toLowerCase()))),
        mode: 'redacted',
      };
  }
}

/** A receipt's action under the policy's redaction, with the marker a salted hash carries in metadata. */
export interface RedactedAction {
  action: { parameters: unknown; parameter_hash: string };
  mode: RedactionMode;
  /** metadata.chio_parameter_salt, for redaction_mode summary and redacted. */
  saltMarker?: ParameterSaltMarker;
}

/**
 * The action member of a receipt: redacted parameters and the parameter_hash of the originals,
 * salted whenever anything is redacted. `salt` names the receipt (its capability, timestamp and
 * signing nonce) and carries the operator's key. Throws CHIO-REDACTION-KEY-REQUIRED when the
 * policy redacts and there is no key; CHIO-CRYPTO-NOT-CANONICAL for parameters JCS cannot represent.
 */
export function redactAction(
  parameters: unknown,
  redaction: Redaction,
  salt: { key: RedactionKey | undefined; input: SaltInput },
): RedactedAction {
  const redacted = redactParameters(parameters, redaction);
  if (redacted.mode === 'none')
    return { action: { parameters: redacted.parameters, parameter_hash: hashCanonical(parameters) }, mode: 'none' };
  if (salt.key === undefined) {
    throw new ChioError(
      'CHIO-REDACTION-KEY-REQUIRED',
      `the policy redacts parameters (${redaction.mode}) and no redaction key was given`,
    );
  }
  const parameterHash = saltedParameterHash(salt.key.salt(salt.input), parameters);
  return {
    action: { parameters: redacted.parameters, parameter_hash: parameterHash },
    mode: redacted.mode,
    saltMarker: salt.key.marker(),
  };
}
