/**
 * The operator's redaction key: 32 secret bytes from which each redacted receipt's parameter
 * salt is derived (src/receipt/parameter-salt.ts). Kept in a file of its own (`--redaction-key-file`,
 * KernelOptions.redactionKeyFile), never in the policy (policies are shared) and never in a
 * receipt, the ledger, a log or an error message.
 * Owns: the key file format (64 hex characters), generating a key, and refusing a redacting
 * kernel without one. Imports node:crypto, src/receipt, src/input-file and src/errors only.
 */
import { randomBytes } from 'node:crypto';
import { ChioError } from '../errors.js';
import { readInputText } from '../input-file.js';
import { deriveParameterSalt, PARAMETER_SALT_SCHEME, REDACTION_KEY_BYTES, redactionKeyId } from '../receipt/index.js';
import type { ParameterSaltMarker, SaltInput } from '../receipt/index.js';

export class RedactionKey {
  /** Names the key in receipts (metadata.chio_parameter_salt.key_id) without revealing it. */
  readonly id: string;
  // A private field: not enumerable, not in JSON.stringify, not shown by util.inspect.
  readonly #key: Uint8Array;

  private constructor(key: Uint8Array) {
    this.#key = Uint8Array.from(key);
    this.id = redactionKeyId(this.#key);
  }

  static fromBytes(key: Uint8Array): RedactionKey {
    if (key.length !== REDACTION_KEY_BYTES) {
      throw new ChioError(
        'CHIO-REDACTION-KEY-INVALID',
        `a redaction key is ${REDACTION_KEY_BYTES} bytes, not ${key.length}`,
      );
    }
    return new RedactionKey(key);
  }

  /** A key file: 64 hex characters (surrounding whitespace ignored). The file's contents never appear in an error. */
  static fromFile(path: string): RedactionKey {
    const text = readInputText(path, 'seed', 'redaction key file').trim(); // regular files only, size-capped
    if (!/^[0-9a-fA-F]{64}$/.test(text)) {
      throw new ChioError('CHIO-REDACTION-KEY-INVALID', `redaction key file ${path} does not hold 64 hex characters`);
    }
    return new RedactionKey(Uint8Array.from(Buffer.from(text, 'hex')));
  }

  static generate(): RedactionKey {
    return new RedactionKey(randomBytes(REDACTION_KEY_BYTES));
  }

  /** The key file text (for `chio receipt redaction-key`); the only way the key leaves this object. */
  exportHex(): string {
    return Buffer.from(this.#key).toString('hex');
  }

  /** The salt of the receipt named by `input`. */
  salt(input: SaltInput): string {
    return deriveParameterSalt(this.#key, input);
  }

  /** The metadata.chio_parameter_salt member of a receipt salted with this key. */
  marker(): ParameterSaltMarker {
    return { key_id: this.id, scheme: PARAMETER_SALT_SCHEME };
  }

  toJSON(): { key_id: string } {
    return { key_id: this.id };
  }
}

/** The key given as bytes, a file, or neither. */
export function resolveRedactionKey(options: {
  redactionKey?: Uint8Array | RedactionKey | undefined;
  redactionKeyFile?: string | undefined;
}): RedactionKey | undefined {
  if (options.redactionKey !== undefined && options.redactionKeyFile !== undefined) {
    throw new ChioError('CHIO-REDACTION-KEY-INVALID', 'give the redaction key as bytes or as a file, not both');
  }
  if (options.redactionKey instanceof RedactionKey) return options.redactionKey;
  if (options.redactionKey !== undefined) return RedactionKey.fromBytes(options.redactionKey);
  if (options.redactionKeyFile !== undefined) return RedactionKey.fromFile(options.redactionKeyFile);
  return undefined;
}

/**
 * A kernel whose policy redacts must have a key: without one, no redacted receipt's parameters
 * could ever be disclosed to an auditor (a key generated for the run is gone when it ends).
 */
export function requireRedactionKey(mode: 'none' | 'hash_only' | 'redact_keys', key: RedactionKey | undefined): void {
  if (mode !== 'none' && key === undefined) {
    throw new ChioError(
      'CHIO-REDACTION-KEY-REQUIRED',
      `the policy redacts parameters (${mode}) and no redaction key was given`,
    );
  }
}
