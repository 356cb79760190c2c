/**
 * The ledger on PostgreSQL (DESIGN §11): the same tables, rows and entry hashes as on SQLite, for
 * producers on many hosts. Imports src/crypto, src/receipt and the SQLite ledger's pure parts
 * (entry encoding, the chain checker). Must not import kernel, edges, proxy or cli.
 */
export { openPgLedger, isPostgresUrl, redactUrl, shownLocation } from './open.js';
export type { PgLedger, OpenPgLedgerOptions } from './open.js';
export { PG_LEDGER_SCHEMA_VERSION } from './migrate.js';
export { appendReceiptsPg } from './append.js';
export { verifyChainPg, pgSnapshot, entryPages, pgHead, readPendingCallsPg } from './read.js';
export { listEntriesPg, findEntryPg, ledgerStatsPg } from './query.js';
export { copyLedger } from './copy.js';
export type { CopyResult } from './copy.js';
export { openAnyLedger, closeAnyLedger, verifyAnyChain, appendAny, headOf, isPg } from './any.js';
/**
 * `openLedger` of `chio/postgres`: either store by its --receipt-db value, asynchronously (a
 * postgres:// URL or an SQLite path). The root export's `openLedger` stays the synchronous SQLite
 * open the kernel's hot path is built on.
 */
export { openAnyLedger as openLedger } from './any.js';
export type { AnyLedger } from './any.js';
export { PgLedgerWriter } from './writer.js';
export type { PgLedgerWriterStats } from './writer.js';
export { createCheckpointPg, latestCheckpointPg, listCheckpointsPg } from './checkpoints.js';
export { withStoredTree, appendSubtrees, rebuildSubtreesPg, treeSizePg } from './tree.js';
export { rebuildProjectionsPg } from './rebuild.js';
