/**
 * The Chio SDK (`chio/sdk`): governed MCP sessions with a hosted edge, and the audit API's receipt
 * queries (DESIGN §12).
 */
export { ChioClient, ChioSession } from './chio-client.js';
export type { GovernedToolResult, ReceiptRef } from './chio-client.js';
export { ReceiptQueryClient } from './receipt-query-client.js';
export type { ReceiptQuery, ReceiptPage, ReceiptDetail, ServedReceipt } from './receipt-query-client.js';
export { ChioError, isChioError } from '../errors.js';
export type { ChioErrorCode } from '../errors.js';
