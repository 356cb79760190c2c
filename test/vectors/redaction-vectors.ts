// Builds the salted parameter_hash golden vector (test/vectors/redaction/chio-redaction-v1.json) from
// the kernel's own draft builder and redaction key, with the shared vector seed (bytes 0x01..0x20),
// a fixed redaction key (bytes 0x21..0x40) and a fixed clock: one redact_keys receipt and one
// hash_only receipt, each with its salt input, salt and salted hash input.
import { canonicalJson, fromHex, hashCanonical, signerFromSeed } from '../../src/crypto/index.js';
import { normalizePolicy, RedactionKey } from '../../src/kernel/index.js';
import { outcomeDraft } from '../../src/kernel/receipts.js';
import { PARAMETER_SALT_SCHEME, REDACTION_KEY_ID_LABEL, saltInputText, signReceipt } from '../../src/receipt/index.js';
import type { Receipt } from '../../src/receipt/index.js';

const SEED = '0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20';
export const REDACTION_KEY_HEX = '2122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f40';
const CAPABILITY = 'cap-01937f5e-0000-7000-8000-000000000002';
const TIMESTAMP = 1796000000;
/** Guessable on purpose: the password a word list would find against an unsalted hash. */
export const ORIGINAL_PARAMETERS = { user: 'ada', password: 'hunter2', host: 'db.internal.example' };

function receiptVector(mode: 'redact_keys' | 'hash_only', nonce: string) {
  const key = RedactionKey.fromBytes(fromHex(REDACTION_KEY_HEX));
  const policy = normalizePolicy(mode === 'redact_keys' ? { redaction: { mode, keys: ['password'] } } : { redaction: { mode } });
  const draft = outcomeDraft(
    { now: TIMESTAMP, capabilityId: CAPABILITY, serverId: 'db', toolName: 'login', parameters: ORIGINAL_PARAMETERS, evidence: [], policy, nonce, redactionKey: key },
    0,
    { kind: 'output', output: { ok: true } },
  );
  const receipt: Receipt = signReceipt(draft, signerFromSeed(fromHex(SEED)), { nonce });
  const { id: _id, signature: _sig, ...idInput } = receipt;
  const { signature, ...signedInput } = receipt;
  const saltInput = saltInputText({ capabilityId: CAPABILITY, timestamp: TIMESTAMP, signingNonce: nonce });
  const salt = key.salt({ capabilityId: CAPABILITY, timestamp: TIMESTAMP, signingNonce: nonce });
  const saltedInput = canonicalJson({ parameters: ORIGINAL_PARAMETERS, salt });
  return {
    nonce,
    receipt,
    id_input_jcs: canonicalJson(idInput),
    id: receipt.id,
    signed_jcs: canonicalJson(signedInput),
    signature,
    salt_input_jcs: saltInput,
    salt,
    salted_hash_input_jcs: saltedInput,
    parameter_hash: receipt.action.parameter_hash,
    unsalted_hash_of_original: hashCanonical(ORIGINAL_PARAMETERS),
  };
}

export function buildRedactionVectors() {
  const key = RedactionKey.fromBytes(fromHex(REDACTION_KEY_HEX));
  return {
    description: 'Salted parameter_hash of redacted receipts: key_id = HMAC-SHA-256(key, key_id_label); salt = HMAC-SHA-256(key, salt_input_jcs); parameter_hash = sha256_hex(JCS({parameters: original, salt})). Receipts signed with the chio-v1 seed. See test/vectors/README.md.',
    ed25519_seed_hex: SEED,
    ed25519_public_key_hex: signerFromSeed(fromHex(SEED)).publicKeyHex,
    sha256_of_null_bytes: '74234e98afe7498fb5daf1f36ac2d78acc339464f950703b8c019892f982b90b',
    redaction_key_hex: REDACTION_KEY_HEX,
    key_id_label: REDACTION_KEY_ID_LABEL,
    key_id: key.id,
    scheme: PARAMETER_SALT_SCHEME,
    original_parameters: ORIGINAL_PARAMETERS,
    redacted_keys: ['password'],
    receipts: {
      redacted: receiptVector('redact_keys', 'req-redacted-0001'),
      summary: receiptVector('hash_only', 'req-summary-0001'),
    },
  };
}
