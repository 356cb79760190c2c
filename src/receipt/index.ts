/**
 * The receipt area: `chio.receipt.v1` schema, id, signing and verification (DESIGN §5).
 * Imports src/crypto only. Must not import ledger, kernel, edges, proxy or cli.
 */
export {
  RECEIPT_SCHEMA_ID,
  ReceiptSchema,
  ReceiptDraftSchema,
  DecisionSchema,
  GuardEvidenceSchema,
  describeIssues,
} from './schema.js';
export type {
  Receipt,
  ReceiptDraft,
  Decision,
  Verdict,
  GuardEvidence,
  ReceiptKind,
  TrustLevel,
  BoundaryClass,
} from './schema.js';
export { semanticViolation } from './semantics.js';
export { signReceipt, signReceiptAsync, trustedBodyText, SIGNING_NONCE_KEY } from './sign.js';
export type { SignOptions } from './sign.js';
export { verifyReceipt } from './verify.js';
export type { ReceiptVerdict, ReceiptCheck, VerifyReceiptOptions } from './verify.js';
export {
  PARAMETER_SALT_KEY,
  PARAMETER_SALT_SCHEME,
  REDACTION_KEY_ID_LABEL,
  REDACTION_KEY_BYTES,
  ParameterSaltMarkerSchema,
  redactionKeyId,
  saltInputText,
  deriveParameterSalt,
  saltedParameterHash,
  parameterSaltMarker,
  saltInputOf,
  checkDisclosure,
} from './parameter-salt.js';
export type { ParameterSaltMarker, SaltInput, DisclosureVerdict } from './parameter-salt.js';
export { computeReceiptId, canonicalMembers, receiptMembers, idInputText, signedText, bodyText } from './encode.js';
