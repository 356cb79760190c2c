/**
 * THE CENTRE: the append-only, hash-chained receipt ledger in SQLite (DESIGN §6).
 * Imports src/crypto and src/receipt. Must not import kernel, edges, proxy or cli.
 */
export { openLedger } from './open.js';
export type { Ledger, OpenLedgerOptions, SynchronousMode } from './open.js';
export { CHIO_APPLICATION_ID, LEDGER_SCHEMA_VERSION } from './migrate.js';
export { appendReceiptSync, prepareEntry, EntryInserter } from './append.js';
export type { AppendRequest, AppendResult, PreparedEntry } from './append.js';
export { LedgerWriter } from './writer.js';
export { WalBackfiller } from './wal-backfill.js';
export type { WalBackfillStats } from './wal-backfill.js';
export type { LedgerWriterOptions, LedgerWriterStats } from './writer.js';
export { verifyChain } from './verify-chain.js';
export type { ChainVerdict, ChainCheck, ChainHead, VerifyChainOptions } from './verify-chain.js';
export { verifyChainParallel } from './verify-chain-parallel.js';
export type { VerifyChainParallelOptions } from './verify-chain-parallel.js';
export { rebuildSessions, rebuildProjections, readSessions } from './sessions.js';
export { listEntries, findEntry, ledgerStats } from './read.js';
export { readPendingCalls } from './pending.js';
export type { PendingCallsReport, UnreceiptedCall } from './pending.js';
export { quickCheck } from './integrity.js';
export type { IntegrityVerdict } from './integrity.js';
export {
  reserveCall,
  commitReservations,
  reserveInTransaction,
  pendingReservations,
  appendIfPending,
  firstRevoked,
  invocationsUsed,
} from './reservations.js';
export type { CallReservation, ReserveOutcome, PendingReservation, BudgetKey } from './reservations.js';
export { commitOps } from './write-ops.js';
export type { ReservationSync, WriteOp, OpOutcome } from './write-ops.js';
export type { EntryFilter, EntryPage, LedgerStats } from './read.js';
export {
  entryHash,
  receiptSha256,
  GENESIS_PREV_HASH,
  LEDGER_ENTRY_SCHEMA_ID,
  kindOf,
  grantsOf,
  revokedCapabilityOf,
  REVOCATION_TOOL_SERVER,
  REVOCATION_TOOL_NAME,
  GRANT_INDEX_KEY,
  ANCESTOR_GRANTS_KEY,
} from './entry.js';
export type { GrantKey } from './entry.js';
export type { EntryKind } from './entry.js';
export { ledgerEntries, ledgerSessions, revokedCapabilities, grantUsage, pendingCalls } from './schema.js';
export type { LedgerEntryRow, LedgerSessionRow, RawLedgerEntry } from './schema.js';
export { LedgerTree, TreeAppender, entryLeafHash, rebuildMerkleSubtrees } from './tree.js';
export { createCheckpoint, latestCheckpoint, listCheckpoints, ledgerOrigin } from './checkpoints.js';
export type { StoredCheckpoint, CheckpointOptions, CheckpointOutcome } from './checkpoints.js';
export { appendToAnchorFile, readAnchorFile, splitAnchorText } from './anchors.js';
export type { AnchoredNote } from './anchors.js';
export { merkleSubtrees, ledgerCheckpoints } from './schema.js';
