/**
 * The synchronous append (DESIGN §6): one `BEGIN IMMEDIATE` transaction reads the heads, links,
 * inserts and updates the sessions projection. Nothing in it awaits: better-sqlite3 runs the
 * transaction function synchronously, so no other producer in this process can interleave, and
 * the IMMEDIATE lock keeps producers in other processes out until COMMIT.
 * Owns: turning a receipt into a ledger row. Must not import kernel, edges or cli.
 *
 * Signing happens before this (a receipt does not depend on its position). A receipt this
 * process signed is appended as signed; any other receipt object is verified in full first, and
 * an invalid one is refused before the transaction starts, so nothing is appended.
 */
import type Database from 'better-sqlite3';
import { ChioError } from '../errors.js';
import { trustedBodyText, verifyReceipt } from '../receipt/index.js';
import type { Receipt } from '../receipt/index.js';
import {
  ANCESTOR_GRANTS_KEY,
  entryHash,
  GENESIS_PREV_HASH,
  grantsOf,
  kindOf,
  projectReceipt,
  receiptSha256,
  revokedCapabilityOf,
} from './entry.js';
import type { GrantKey } from './entry.js';
import type { EntryKind, ProjectedColumns } from './entry.js';
import type { Ledger } from './open.js';
import type { RawLedgerEntry } from './schema.js';
import { TreeAppender } from './tree.js';
import type { RecentSubtrees } from './tree.js';

export interface AppendRequest {
  receipt: Receipt;
  /** The session the receipt belongs to (ACP session, MCP session); omit for none. */
  sessionId?: string | null | undefined;
  /** Label for queries: which producer appended it. Not signed. */
  producer?: string | undefined;
  /** A pending call (reserved before dispatch) that this receipt settles; removed in the same transaction. */
  releases?: string | undefined;
}

export interface AppendResult {
  seq: number;
  receiptId: string;
  entryHash: string;
  prevHash: string;
  sessionId: string | null;
  sessionPrevSeq: number | null;
}

/** An append request checked and encoded outside the transaction. */
export interface PreparedEntry {
  receiptId: string;
  body: string;
  receiptSha256: string;
  sessionId: string | null;
  producer: string;
  columns: ProjectedColumns;
  kind: EntryKind;
  revokes: string | undefined;
  /** The grants the receipt counts against (its own and its ancestors'), under its kernel key. */
  grants: GrantKey[];
  releases: string | undefined;
}

const MAX_LABEL_LENGTH = 256;

function checkLabel(what: string, value: unknown): void {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_LABEL_LENGTH || !value.isWellFormed()) {
    throw new ChioError(
      'CHIO-RECEIPT-INVALID',
      `${what} must be a non-empty string of at most ${MAX_LABEL_LENGTH} characters`,
    );
  }
}

/** Validates and encodes; throws (appending nothing) for an invalid receipt or label. */
export function prepareEntry(request: AppendRequest): PreparedEntry {
  const sessionId = request.sessionId ?? null;
  if (sessionId !== null) {
    checkLabel('session_id', sessionId);
    // "." and ".." cannot be addressed as a URL path segment (clients resolve them away, even
    // percent-encoded: WHATWG URL), so the audit API could never serve such a session.
    if (sessionId === '.' || sessionId === '..')
      throw new ChioError(
        'CHIO-RECEIPT-INVALID',
        `session_id ${JSON.stringify(sessionId)} is refused: it cannot be addressed in a URL path`,
      );
  }
  const producer = request.producer ?? 'library';
  checkLabel('producer', producer);
  let receipt = request.receipt;
  let body = trustedBodyText(receipt);
  if (body !== undefined) {
    // The signer froze the containers it built (the receipt, its decision, metadata, evidence),
    // not the caller's objects inside them: action.parameters and metadata values. The projections
    // below read those only for a revocation (the capability it names) and for ancestor grants,
    // so these two read the signed text; the rest read frozen members.
    if (kindOf(receipt) === 'revocation' || receipt.metadata?.[ANCESTOR_GRANTS_KEY] !== undefined)
      receipt = JSON.parse(body) as Receipt;
  } else {
    const verdict = verifyReceipt(receipt);
    if (!verdict.ok) {
      throw new ChioError('CHIO-RECEIPT-UNVERIFIED', `receipt refused (${verdict.check}): ${verdict.message}`, {
        details: { check: verdict.check, issues: verdict.issues },
      });
    }
    body = verdict.body;
    // Projected from the text that verified, never from a second read of the caller's object.
    receipt = JSON.parse(body) as Receipt;
  }
  const kind = kindOf(receipt);
  const revokes = revokedCapabilityOf(receipt);
  if (kind === 'revocation' && revokes === undefined) {
    throw new ChioError(
      'CHIO-RECEIPT-INVALID',
      'a revocation receipt must allow and name action.parameters.capability_id',
    );
  }
  if (request.releases !== undefined) checkLabel('releases', request.releases);
  return {
    receiptId: receipt.id,
    body,
    receiptSha256: receiptSha256(body),
    sessionId,
    producer,
    columns: projectReceipt(receipt),
    kind,
    revokes,
    grants: grantsOf(receipt),
    releases: request.releases,
  };
}

/**
 * What the appends of one write transaction learn from each other: the head, each session's last
 * seq and the Merkle subtrees the previous append left, all of which the next append would
 * otherwise read back. Made by `EntryInserter.batch()` for one transaction and dropped with it:
 * after a rollback it describes rows the file no longer holds. An append updates it only once all
 * its rows are written, so a refused duplicate leaves it as it was.
 */
export class AppendBatch {
  /** The last entry appended in this transaction; undefined until the first one. */
  head: { seq: number; entryHash: string } | undefined = undefined;
  /** Last seq of each session appended to in this transaction. */
  readonly sessionHeads = new Map<string, number>();
  constructor(readonly subtrees: RecentSubtrees) {}
}

/** The columns of a ledger_entries row, in the order INSERT_ENTRY_SQL binds them. */
export const ENTRY_COLUMNS =
  'seq, kind, receipt_id, session_id, session_prev_seq, prev_hash, entry_hash, body, timestamp, capability_id, ' +
  'tool_server, tool_name, verdict, receipt_kind, trust_level, kernel_key, tenant_id, producer';
/** One ledger_entries row (the link trigger checks it continues the chain). */
export const INSERT_ENTRY_SQL = `INSERT INTO ledger_entries (${ENTRY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
/** The sessions projection after an entry of the session (@sessionId, @seq, @timestamp, @entryHash). */
export const UPSERT_SESSION_SQL = `INSERT INTO ledger_sessions (session_id, first_seq, last_seq, entry_count, first_timestamp, last_timestamp, head_entry_hash)
   VALUES (@sessionId, @seq, @seq, 1, @timestamp, @timestamp, @entryHash)
   ON CONFLICT (session_id) DO UPDATE SET
     last_seq = excluded.last_seq,
     entry_count = entry_count + 1,
     first_timestamp = min(first_timestamp, excluded.first_timestamp),
     last_timestamp = max(last_timestamp, excluded.last_timestamp),
     head_entry_hash = excluded.head_entry_hash`;

/** Prepared statements for one connection; the append itself is `insertLinked`. */
export class EntryInserter {
  private readonly head: Database.Statement<[], { seq: number; entry_hash: string }>;
  private readonly exists: Database.Statement<[string], { one: number }>;
  private readonly sessionHead: Database.Statement<[string], { seq: number | null }>;
  private readonly insert: Database.Statement;
  private readonly upsertSession: Database.Statement;
  private readonly revoke: Database.Statement;
  private readonly countGrant: Database.Statement;
  private readonly release: Database.Statement;
  private readonly tree: TreeAppender;

  constructor(readonly ledger: Ledger) {
    const db = ledger.db;
    this.tree = new TreeAppender(db);
    this.head = db.prepare('SELECT seq, entry_hash FROM ledger_entries ORDER BY seq DESC LIMIT 1');
    this.exists = db.prepare('SELECT 1 AS one FROM ledger_entries WHERE receipt_id = ?');
    this.sessionHead = db.prepare('SELECT max(seq) AS seq FROM ledger_entries WHERE session_id = ?');
    this.insert = db.prepare(INSERT_ENTRY_SQL);
    this.upsertSession = db.prepare(UPSERT_SESSION_SQL);
    // The first revocation of a capability is the one that counts; later ones change nothing.
    // Projections are kept per signing key: a kernel counts only the keys it trusts (its own and
    // configured ones), so a receipt anyone could sign moves no budget and revokes nothing.
    this.revoke = db.prepare(
      'INSERT OR IGNORE INTO revoked_capabilities (capability_id, kernel_key, seq, revoked_at) VALUES (?, ?, ?, ?)',
    );
    this.countGrant = db.prepare(
      `INSERT INTO grant_usage (capability_id, grant_index, kernel_key, invocations) VALUES (?, ?, ?, 1)
       ON CONFLICT (capability_id, grant_index, kernel_key) DO UPDATE SET invocations = invocations + 1`,
    );
    this.release = db.prepare('DELETE FROM pending_calls WHERE request_id = ?');
  }

  /**
   * Inserts a row copied from another ledger exactly as it is (seq, links, hashes) and the
   * projections its receipt implies. Must run inside a write transaction; the link trigger refuses
   * a row that does not continue this ledger's chain, and a copy verifies the result.
   */
  insertRow(row: RawLedgerEntry): void {
    const receipt = JSON.parse(row.body) as Receipt;
    this.insert.run(
      row.seq,
      row.kind,
      row.receipt_id,
      row.session_id,
      row.session_prev_seq,
      row.prev_hash,
      row.entry_hash,
      row.body,
      row.timestamp,
      row.capability_id,
      row.tool_server,
      row.tool_name,
      row.verdict,
      row.receipt_kind,
      row.trust_level,
      row.kernel_key,
      row.tenant_id,
      row.producer,
    );
    this.tree.appended(row.seq, row.entry_hash);
    if (row.session_id !== null)
      this.upsertSession.run({
        sessionId: row.session_id,
        seq: row.seq,
        timestamp: row.timestamp,
        entryHash: row.entry_hash,
      });
    // The same projections as an append (prepareEntry): the verify walk derives them the same way.
    const revokes = revokedCapabilityOf(receipt);
    if (revokes !== undefined) this.revoke.run(revokes, row.kernel_key, row.seq, row.timestamp);
    for (const g of grantsOf(receipt)) this.countGrant.run(g.capabilityId, g.grantIndex, row.kernel_key);
  }

  /** State shared by the appends of one write transaction; create it inside the transaction. */
  batch(): AppendBatch {
    return new AppendBatch(this.tree.recentSubtrees());
  }

  /**
   * Links and inserts one entry. Must run inside a write transaction; `batch`, if given, was made
   * for that same transaction (the link trigger still checks every link against the file). A
   * duplicate receipt is refused before anything is written, so a batch can skip it without a savepoint.
   */
  insertLinked(entry: PreparedEntry, batch?: AppendBatch): AppendResult {
    if (this.exists.get(entry.receiptId) !== undefined) {
      throw new ChioError('CHIO-LEDGER-DUPLICATE-RECEIPT', `receipt ${entry.receiptId} is already in the ledger`);
    }
    let seq: number;
    let prevHash: string;
    if (batch?.head !== undefined) {
      seq = batch.head.seq + 1;
      prevHash = batch.head.entryHash;
    } else {
      const head = this.head.get();
      seq = (head?.seq ?? 0) + 1;
      prevHash = head?.entry_hash ?? GENESIS_PREV_HASH;
    }
    const sessionId = entry.sessionId;
    const sessionPrevSeq =
      sessionId === null ? null : (batch?.sessionHeads.get(sessionId) ?? this.sessionHead.get(sessionId)?.seq ?? null);
    const hash = entryHash({
      seq,
      prevHash,
      receiptSha256: entry.receiptSha256,
      sessionId: entry.sessionId,
      sessionPrevSeq,
    });
    const c = entry.columns;
    this.insert.run(
      seq,
      entry.kind,
      entry.receiptId,
      entry.sessionId,
      sessionPrevSeq,
      prevHash,
      hash,
      entry.body,
      c.timestamp,
      c.capabilityId,
      c.toolServer,
      c.toolName,
      c.verdict,
      c.receiptKind,
      c.trustLevel,
      c.kernelKey,
      c.tenantId,
      entry.producer,
    );
    this.tree.appended(seq, hash, batch?.subtrees);
    if (entry.sessionId !== null)
      this.upsertSession.run({ sessionId: entry.sessionId, seq, timestamp: c.timestamp, entryHash: hash });
    if (entry.revokes !== undefined) this.revoke.run(entry.revokes, c.kernelKey, seq, c.timestamp);
    for (const g of entry.grants) this.countGrant.run(g.capabilityId, g.grantIndex, c.kernelKey);
    if (entry.releases !== undefined) this.release.run(entry.releases);
    if (batch !== undefined) {
      batch.head = { seq, entryHash: hash };
      if (sessionId !== null) batch.sessionHeads.set(sessionId, seq);
    }
    return { seq, receiptId: entry.receiptId, entryHash: hash, prevHash, sessionId: entry.sessionId, sessionPrevSeq };
  }
}

export function appendFailed(e: unknown): ChioError {
  if (e instanceof ChioError) return e;
  return new ChioError('CHIO-LEDGER-APPEND-FAILED', `append not committed: ${(e as Error).message}`, { cause: e });
}

/**
 * Appends one receipt in its own `BEGIN IMMEDIATE` transaction and returns after COMMIT.
 * For many producers use `LedgerWriter`, which commits concurrent appends together.
 */
export function appendReceiptSync(
  ledger: Ledger,
  request: AppendRequest,
  inserter = new EntryInserter(ledger),
): AppendResult {
  const entry = prepareEntry(request);
  try {
    return ledger.db.transaction(() => inserter.insertLinked(entry)).immediate();
  } catch (e) {
    throw appendFailed(e);
  }
}
