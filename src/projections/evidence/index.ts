/** Evidence bundles (DESIGN §10): one session, checkable offline with only a public key. */
export { EvidenceBundleSchema, BundleEntrySchema, EVIDENCE_BUNDLE_SCHEMA_ID } from './schema.js';
export type { EvidenceBundle, BundleEntry } from './schema.js';
export { exportEvidence, exportEvidencePg } from './export.js';
export type { ExportEvidenceOptions } from './export.js';
export { verifyEvidenceBundle } from './verify.js';
export type { EvidenceVerdict, EvidenceCheck, VerifyEvidenceOptions } from './verify.js';
