/** The audit API (DESIGN §12): read-only receipt queries over HTTP, and the answers' shapes. */
export { auditApi } from './http-api.js';
export type { AuditApiOptions } from './http-api.js';
export {
  queryReceipts,
  receiptById,
  listSessions,
  sessionReceipts,
  ledgerHead,
  sessionCertificate,
  sessionEvidence,
  checkpoint,
  receiptProof,
} from './routes.js';
export type { ReceiptPage, SessionSummary } from './routes.js';
export { ReceiptQuerySchema, PageSchema, parseQuery, MAX_PAGE } from './params.js';
export type { ReceiptQuery, PageQuery } from './params.js';
