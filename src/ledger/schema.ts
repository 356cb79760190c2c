/**
 * The ledger's tables as drizzle-orm definitions (DESIGN §6). drizzle-kit generates the SQL in
 * `migrations/` from this file; append-only triggers and the auditor views live in a custom
 * migration because the schema DSL cannot express them.
 * Owns: table and column names. Must not import anything but drizzle-orm (through ./drizzle.ts).
 */
import { blob, check, index, integer, primaryKey, sql, sqliteTable, text } from './drizzle.js';

/**
 * `chio.ledger.entry.v1`: one row per appended event, seq 1, 2, 3, … with no gaps. Never updated
 * or deleted (triggers abort). `body` is the signed receipt's exact RFC 8785 text; the projected
 * columns are copies of body members for indexing and are checked against the body on verify.
 */
export const ledgerEntries = sqliteTable(
  'ledger_entries',
  {
    seq: integer('seq').primaryKey(),
    kind: text('kind').notNull(),
    receiptId: text('receipt_id').notNull().unique(),
    sessionId: text('session_id'),
    sessionPrevSeq: integer('session_prev_seq'),
    prevHash: text('prev_hash').notNull(),
    entryHash: text('entry_hash').notNull(),
    body: text('body').notNull(),
    timestamp: integer('timestamp').notNull(),
    capabilityId: text('capability_id').notNull(),
    toolServer: text('tool_server').notNull(),
    toolName: text('tool_name').notNull(),
    verdict: text('verdict'),
    receiptKind: text('receipt_kind').notNull(),
    trustLevel: text('trust_level').notNull(),
    kernelKey: text('kernel_key').notNull(),
    tenantId: text('tenant_id'),
    /** Which producer appended the entry (kernel, mcp-edge, …). Not signed: a label for queries. */
    producer: text('producer').notNull(),
  },
  // Every index is one more b-tree page written by every commit (bench/README.md, "Fewer WAL
  // bytes per entry"). Schema 8: verdict has no index of its own. Most entries are allows, so a
  // full verdict index was rewritten by nearly every commit to tell apart a handful of values.
  // The rare verdicts get a partial index (an allow never touches it; `verdict = ?` with a bound
  // deny/cancelled/incomplete matches one of its OR terms, so SQLite uses it), and the timestamp
  // index carries verdict as a second column, so counting allows or grouping by verdict scans that
  // narrow index instead of the rows (a timestamp range is served as before).
  (t) => [
    index('ledger_entries_session_seq').on(t.sessionId, t.seq),
    index('ledger_entries_timestamp_verdict').on(t.timestamp, t.verdict),
    index('ledger_entries_tool').on(t.toolServer, t.toolName),
    index('ledger_entries_capability').on(t.capabilityId),
    index('ledger_entries_verdict_not_allow')
      .on(t.verdict)
      .where(sql`verdict = 'deny' OR verdict = 'cancelled' OR verdict = 'incomplete'`),
    check('ledger_entries_seq_positive', sql`${t.seq} >= 1`),
    check('ledger_entries_hashes_hex', sql`length(${t.prevHash}) = 64 AND length(${t.entryHash}) = 64`),
    check(
      'ledger_entries_session_link',
      sql`${t.sessionPrevSeq} IS NULL OR (${t.sessionId} IS NOT NULL AND ${t.sessionPrevSeq} < ${t.seq})`,
    ),
  ],
);

/**
 * Projection: one row per session, derived from ledger_entries. Updated in the append
 * transaction; can be dropped and rebuilt (`rebuildSessions`), and the rebuild equals it.
 */
export const ledgerSessions = sqliteTable('ledger_sessions', {
  sessionId: text('session_id').primaryKey(),
  firstSeq: integer('first_seq').notNull(),
  lastSeq: integer('last_seq').notNull(),
  entryCount: integer('entry_count').notNull(),
  firstTimestamp: integer('first_timestamp').notNull(),
  lastTimestamp: integer('last_timestamp').notNull(),
  headEntryHash: text('head_entry_hash').notNull(),
});

export type LedgerEntryRow = typeof ledgerEntries.$inferSelect;

/** A ledger_entries row as raw SQL returns it (snake_case column names), for the verification walks. */
export interface RawLedgerEntry {
  seq: number;
  kind: string;
  receipt_id: string;
  session_id: string | null;
  session_prev_seq: number | null;
  prev_hash: string;
  entry_hash: string;
  body: string;
  timestamp: number;
  capability_id: string;
  tool_server: string;
  tool_name: string;
  verdict: string | null;
  receipt_kind: string;
  trust_level: string;
  kernel_key: string;
  tenant_id: string | null;
  producer: string;
}
export type LedgerSessionRow = typeof ledgerSessions.$inferSelect;

/**
 * Projection: capabilities revoked by a `revocation` entry (a kernel-signed receipt of
 * `chio-kernel/revoke_capability`). Derived and rebuildable like ledger_sessions.
 */
export const revokedCapabilities = sqliteTable(
  'revoked_capabilities',
  {
    capabilityId: text('capability_id').notNull(),
    /** Schema 6: the key that signed the revocation (a kernel honours only the keys it trusts). */
    kernelKey: text('kernel_key').notNull(),
    seq: integer('seq').notNull(),
    revokedAt: integer('revoked_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.capabilityId, t.kernelKey] })],
);

/**
 * Projection: allowed invocations per (capability, grant index, signing key), from allow receipts
 * that name their grant (metadata.chio_grant_index) and, for delegated capabilities, the ancestor
 * grants the call also counts against (metadata.chio_ancestor_grants). Budgets are read from here,
 * over the keys the kernel trusts, so they hold across restarts and processes.
 */
export const grantUsage = sqliteTable(
  'grant_usage',
  {
    capabilityId: text('capability_id').notNull(),
    grantIndex: integer('grant_index').notNull(),
    /** Schema 6: the key that signed the receipts counted here. */
    kernelKey: text('kernel_key').notNull(),
    invocations: integer('invocations').notNull(),
  },
  (t) => [primaryKey({ columns: [t.capabilityId, t.grantIndex, t.kernelKey] })],
);

/**
 * Working table, not a projection: calls the kernel has authorised and is running, reserved in a
 * committed transaction before the tool is invoked (so a ledger that cannot be written stops the
 * call, and budgets count calls in flight in every process). The receipt's append removes the row
 * in the same transaction. A row whose receipt was never written (a crash, a failed append) is
 * settled by the kernel's recovery with a signed `incomplete` receipt built from the facts stored
 * here; until then it keeps counting against its budget.
 */
export const pendingCalls = sqliteTable('pending_calls', {
  requestId: text('request_id').primaryKey(),
  capabilityId: text('capability_id').notNull(),
  grantIndex: integer('grant_index').notNull(),
  reservedAt: integer('reserved_at').notNull(),
  /** The process incarnation holding the reservation (`host:pid start=… boot=… pidns=…`; `host:pid` before schema 5). */
  owner: text('owner').notNull(),
  /** Schema 5: the session the receipt goes to (NULL: none, or a row written before schema 5). */
  sessionId: text('session_id'),
  /** Schema 5: the call's target, for operators reading the table (also inside `facts`). */
  toolServer: text('tool_server'),
  toolName: text('tool_name'),
  /**
   * Schema 5: the receipt draft as the kernel would have signed it, minus decision and
   * content_hash (RFC 8785 text): parameters already redacted by the policy, parameter_hash of
   * the originals, policy_hash, guard evidence, timestamp. NULL in rows written before schema 5.
   */
  facts: text('facts'),
  /**
   * Schema 6: every grant the reservation holds, as JSON `[{capability_id, grant_index}]` — its own
   * and the ancestor grants a delegated call also counts against. NULL: the own grant only.
   */
  budgetKeys: text('budget_keys'),
});

/**
 * Projection (schema 7): the hashes of the complete subtrees of the ledger's RFC 6962 Merkle tree
 * (DESIGN §10), levels 1 and up: level L, index i covers the leaves of seq i·2^L + 1 … (i+1)·2^L.
 * Level 0 is the leaf hash of an entry's entry_hash and is not stored. Written in the append
 * transaction (each append completes one subtree on average), so a root or a proof reads O(log n)
 * rows instead of the whole ledger. Re-derivable from ledger_entries; checked by verify.
 */
export const merkleSubtrees = sqliteTable(
  'merkle_subtrees',
  {
    level: integer('level').notNull(),
    idx: integer('idx').notNull(),
    hash: blob('hash', { mode: 'buffer' }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.level, t.idx] }),
    check('merkle_subtrees_shape', sql`${t.level} >= 1 AND ${t.idx} >= 0 AND length(${t.hash}) = 32`),
  ],
);

/**
 * Signed checkpoints (schema 7, DESIGN §10): one C2SP signed note per tree size, append-only
 * (triggers abort UPDATE and DELETE), each consistent with the one before it when it was signed.
 * Copies kept outside the ledger (anchor files) are what make a cut detectable.
 */
export const ledgerCheckpoints = sqliteTable(
  'ledger_checkpoints',
  {
    treeSize: integer('tree_size').primaryKey(),
    /** RFC 6962 root of the first tree_size entries, 64 hex. */
    rootHash: text('root_hash').notNull(),
    origin: text('origin').notNull(),
    /** Ed25519 public key (64 hex) that signed the note. */
    signerKey: text('signer_key').notNull(),
    /** The signed note, exactly as signed (C2SP signed-note). */
    note: text('note').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [
    check(
      'ledger_checkpoints_shape',
      sql`${t.treeSize} >= 1 AND length(${t.rootHash}) = 64 AND length(${t.signerKey}) = 64`,
    ),
  ],
);

export type RevokedCapabilityRow = typeof revokedCapabilities.$inferSelect;
export type GrantUsageRow = typeof grantUsage.$inferSelect;
export type PendingCallRow = typeof pendingCalls.$inferSelect;
