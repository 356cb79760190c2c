/**
 * Compliance certificates: a projection over the ledger. Read-only: never imports the
 * ledger's append path.
 */
export { CertificateSchema, CertificateBodySchema, CERTIFICATE_SCHEMA_ID } from './schema.js';
export type { Certificate, CertificateBody } from './schema.js';
export { certifySession, generateCertificate, generateCertificateOn, signCertificate } from './generate.js';
export type { CertificateSigner, GenerateOptions } from './generate.js';
export { verifyCertificate, verifyCertificateOn } from './verify.js';
export type { CertificateVerdict, VerifyCertificateOptions } from './verify.js';
export { readSession, readSessionPg, walkSession } from './session.js';
export type { SessionEntry, SessionRead, SessionRows } from './session.js';
