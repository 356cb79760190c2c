/**
 * The ledger's tables on PostgreSQL (DESIGN §6, §11), as drizzle-orm pg-core definitions: the same
 * tables, columns and meanings as the SQLite schema (../schema.ts), so a ledger copied between the
 * two holds the same rows and the same entry hashes. drizzle-kit generates `migrations-pg/` from
 * this file (drizzle-pg.config.ts); triggers and auditor views are a custom migration there.
 * Integers that can outgrow 32 bits (seq, Unix seconds) are BIGINT, read back as JS numbers (safe
 * up to 2^53, DESIGN §4).
 * Owns: table and column names on PostgreSQL. Must not import anything but drizzle-orm (through its doors).
 */
import { sql } from '../drizzle.js';
import { bigint, check, customType, index, integer, pgTable, primaryKey, text } from './drizzle.js';

const big = (name: string) => bigint(name, { mode: 'number' });
const bytea = customType<{ data: Buffer }>({ dataType: () => 'bytea' });

export const ledgerEntries = pgTable(
  'ledger_entries',
  {
    seq: big('seq').primaryKey(),
    kind: text('kind').notNull(),
    receiptId: text('receipt_id').notNull().unique(),
    sessionId: text('session_id'),
    sessionPrevSeq: big('session_prev_seq'),
    prevHash: text('prev_hash').notNull(),
    entryHash: text('entry_hash').notNull(),
    body: text('body').notNull(),
    timestamp: big('timestamp').notNull(),
    capabilityId: text('capability_id').notNull(),
    toolServer: text('tool_server').notNull(),
    toolName: text('tool_name').notNull(),
    verdict: text('verdict'),
    receiptKind: text('receipt_kind').notNull(),
    trustLevel: text('trust_level').notNull(),
    kernelKey: text('kernel_key').notNull(),
    tenantId: text('tenant_id'),
    producer: text('producer').notNull(),
  },
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

export const ledgerSessions = pgTable('ledger_sessions', {
  sessionId: text('session_id').primaryKey(),
  firstSeq: big('first_seq').notNull(),
  lastSeq: big('last_seq').notNull(),
  entryCount: big('entry_count').notNull(),
  firstTimestamp: big('first_timestamp').notNull(),
  lastTimestamp: big('last_timestamp').notNull(),
  headEntryHash: text('head_entry_hash').notNull(),
});

export const revokedCapabilities = pgTable(
  'revoked_capabilities',
  {
    capabilityId: text('capability_id').notNull(),
    kernelKey: text('kernel_key').notNull(),
    seq: big('seq').notNull(),
    revokedAt: big('revoked_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.capabilityId, t.kernelKey] })],
);

export const grantUsage = pgTable(
  'grant_usage',
  {
    capabilityId: text('capability_id').notNull(),
    grantIndex: integer('grant_index').notNull(),
    kernelKey: text('kernel_key').notNull(),
    invocations: big('invocations').notNull(),
  },
  (t) => [primaryKey({ columns: [t.capabilityId, t.grantIndex, t.kernelKey] })],
);

export const pendingCalls = pgTable('pending_calls', {
  requestId: text('request_id').primaryKey(),
  capabilityId: text('capability_id').notNull(),
  grantIndex: integer('grant_index').notNull(),
  reservedAt: big('reserved_at').notNull(),
  owner: text('owner').notNull(),
  sessionId: text('session_id'),
  toolServer: text('tool_server'),
  toolName: text('tool_name'),
  facts: text('facts'),
  budgetKeys: text('budget_keys'),
});

export const merkleSubtrees = pgTable(
  'merkle_subtrees',
  {
    level: integer('level').notNull(),
    idx: big('idx').notNull(),
    hash: bytea('hash').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.level, t.idx] }),
    check('merkle_subtrees_shape', sql`${t.level} >= 1 AND ${t.idx} >= 0 AND length(${t.hash}) = 32`),
  ],
);

export const ledgerCheckpoints = pgTable(
  'ledger_checkpoints',
  {
    treeSize: big('tree_size').primaryKey(),
    rootHash: text('root_hash').notNull(),
    origin: text('origin').notNull(),
    signerKey: text('signer_key').notNull(),
    note: text('note').notNull(),
    createdAt: big('created_at').notNull(),
  },
  (t) => [
    check(
      'ledger_checkpoints_shape',
      sql`${t.treeSize} >= 1 AND length(${t.rootHash}) = 64 AND length(${t.signerKey}) = 64`,
    ),
  ],
);

/**
 * The ledger's identity and schema version (SQLite keeps them in PRAGMA application_id and
 * user_version): one row, written by the migrating transaction.
 */
export const chioLedgerMeta = pgTable(
  'chio_ledger_meta',
  {
    id: integer('id').primaryKey(),
    application: text('application').notNull(),
    schemaVersion: integer('schema_version').notNull(),
  },
  (t) => [check('chio_ledger_meta_one_row', sql`${t.id} = 1`)],
);

/**
 * One row that appenders lock (`SELECT … FOR UPDATE`) to serialize appends across processes and
 * hosts, held until COMMIT or ROLLBACK. A row lock rather than an advisory lock: taking it needs
 * UPDATE on this table (producers have it, auditors do not) and is refused in a read-only
 * transaction, so a reader cannot stall the producers.
 */
export const chioAppendLock = pgTable('chio_append_lock', { id: integer('id').primaryKey() }, (t) => [
  check('chio_append_lock_one_row', sql`${t.id} = 1`),
]);
