/**
 * Reserving a call before it runs (the kernel's fail-closed step, issue 3): in one `BEGIN
 * IMMEDIATE` transaction, count the grant's allowed receipts plus the calls already in flight in
 * every process, refuse past the budget, and record this call — with the facts its receipt needs —
 * in pending_calls. A ledger that cannot be written fails here, before the tool is invoked. The
 * receipt's append removes the row (AppendRequest.releases); a row whose receipt was never written
 * is settled later with `appendIfPending` (the kernel's recovery).
 * Budgets and revocations count only receipts signed by keys the caller trusts.
 * Also the revocation lookup. Owns: pending_calls. Must not import kernel, edges or cli.
 */
import { ChioError } from '../errors.js';
import { appendFailed, EntryInserter, prepareEntry } from './append.js';
import type { AppendRequest, AppendResult } from './append.js';
import type { Ledger } from './open.js';
import { statement } from './statements.js';

/** One grant a call counts against, with its limit if it has one. */
export interface BudgetKey {
  capabilityId: string;
  grantIndex: number;
  maxInvocations?: number | undefined;
}

export interface CallReservation {
  requestId: string;
  capabilityId: string;
  /**
   * The grants that cover the call, in order: the first whose own budget and every ancestor budget
   * (`ancestors`: the grants of the delegation chain it narrows) has invocations left is reserved.
   */
  grants: ReadonlyArray<{ index: number; maxInvocations?: number | undefined; ancestors?: readonly BudgetKey[] }>;
  /** Keys whose receipts count towards budgets (the kernel's own and the ones it trusts). */
  trustedKeys: readonly string[];
  /** The process incarnation that holds it (recovery settles only rows of provably dead owners). */
  owner: string;
  now: number;
  /** The session the receipt will be appended to. */
  sessionId?: string | null | undefined;
  toolServer?: string | undefined;
  toolName?: string | undefined;
  /** The receipt's facts as text (the kernel's receipt draft), so a receipt can be signed if this process cannot. */
  facts?: string | undefined;
}

export type ReserveOutcome =
  | { ok: true; grantIndex: number }
  /** Every grant was exhausted; the numbers are the last one's (an ancestor's when that was the one used up). */
  | { ok: false; grantIndex: number; used: number; limit: number; capabilityId?: string; ancestorGrantIndex?: number };

/** A reservation whose receipt has not been written, as stored (read from the file: check before trusting). */
export interface PendingReservation {
  requestId: string;
  capabilityId: string;
  grantIndex: number;
  reservedAt: number;
  owner: string;
  sessionId: string | null;
  toolServer: string | null;
  toolName: string | null;
  facts: string | null;
}

type PendingRow = Record<string, unknown>;

/** The row as stored, or undefined when a column has the wrong type (the ledger area has no zod: checked by hand). */
function checkRow(row: PendingRow): PendingReservation | undefined {
  const text = (v: unknown) => typeof v === 'string';
  const textOrNull = (v: unknown) => v === null || typeof v === 'string';
  const int = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v);
  if (!text(row['request_id']) || !text(row['capability_id']) || !int(row['grant_index']) || !int(row['reserved_at']) || !text(row['owner'])
    || !textOrNull(row['session_id']) || !textOrNull(row['tool_server']) || !textOrNull(row['tool_name']) || !textOrNull(row['facts'])) {
    return undefined;
  }
  return {
    requestId: row['request_id'] as string, capabilityId: row['capability_id'] as string, grantIndex: row['grant_index'] as number,
    reservedAt: row['reserved_at'] as number, owner: row['owner'] as string, sessionId: row['session_id'] as string | null,
    toolServer: row['tool_server'] as string | null, toolName: row['tool_name'] as string | null, facts: row['facts'] as string | null,
  };
}

/**
 * Allowed receipts signed by a trusted key, plus calls in flight in any process, for one grant:
 * what counts against its max_invocations. A call in flight holds its own grant and every ancestor
 * grant it narrows (pending_calls.budget_keys).
 */
export function invocationsUsed(ledger: Ledger, capabilityId: string, grantIndex: number, trustedKeys: readonly string[]): number {
  const keys = JSON.stringify(trustedKeys);
  return (statement(ledger.db,
      `SELECT coalesce((SELECT sum(invocations) FROM grant_usage WHERE capability_id = @cap AND grant_index = @idx
                        AND kernel_key IN (SELECT value FROM json_each(@keys))), 0)
            + (SELECT count(*) FROM pending_calls p WHERE
                 (p.budget_keys IS NULL AND p.capability_id = @cap AND p.grant_index = @idx)
                 OR (p.budget_keys IS NOT NULL AND EXISTS (SELECT 1 FROM json_each(p.budget_keys) k
                       WHERE k.value ->> '$.capability_id' = @cap AND k.value ->> '$.grant_index' = @idx))) AS used`)
    .get({ cap: capabilityId, idx: grantIndex, keys }) as { used: number }).used;
}

function reservationFailed(e: unknown): ChioError {
  return new ChioError('CHIO-LEDGER-APPEND-FAILED', `cannot reserve the call in the ledger, so it will not run: ${(e as Error).message}`, { cause: e });
}

/**
 * Reserves every call of `batch` in one `BEGIN IMMEDIATE` transaction (one commit, one fsync on a
 * synchronous=FULL connection). Each call is checked against the budget as it stands after the
 * ones before it, so the batch is exactly as strict as reserving them one by one. A request id
 * already reserved gets its own error; any other failure rolls the batch back and is thrown as
 * CHIO-LEDGER-APPEND-FAILED: nothing of it is reserved.
 */
export function commitReservations(ledger: Ledger, batch: readonly CallReservation[]): Array<ReserveOutcome | ChioError> {
  const db = ledger.db;
  try {
    const exists = statement(db, 'SELECT 1 AS one FROM pending_calls WHERE request_id = ?');
    const insert = statement(db,
      `INSERT INTO pending_calls (request_id, capability_id, grant_index, reserved_at, owner, session_id, tool_server, tool_name, facts, budget_keys)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    return db.transaction(() =>
      batch.map((r): ReserveOutcome | ChioError => {
        if (exists.get(r.requestId) !== undefined) {
          return new ChioError('CHIO-LEDGER-APPEND-FAILED', `cannot reserve the call: request id ${r.requestId} is already reserved by a call in flight, so it will not run`);
        }
        let refusal: ReserveOutcome | undefined;
        grants: for (const g of r.grants) {
          const keys: BudgetKey[] = [{ capabilityId: r.capabilityId, grantIndex: g.index, maxInvocations: g.maxInvocations }, ...(g.ancestors ?? [])];
          for (const k of keys) {
            if (k.maxInvocations === undefined) continue;
            const used = invocationsUsed(ledger, k.capabilityId, k.grantIndex, r.trustedKeys);
            if (used >= k.maxInvocations) {
              refusal = { ok: false, grantIndex: g.index, used, limit: k.maxInvocations, ...(k.capabilityId === r.capabilityId ? {} : { capabilityId: k.capabilityId, ancestorGrantIndex: k.grantIndex }) };
              continue grants;
            }
          }
          const budgetKeys = keys.length === 1 ? null : JSON.stringify(keys.map((k) => ({ capability_id: k.capabilityId, grant_index: k.grantIndex })));
          insert.run(r.requestId, r.capabilityId, g.index, r.now, r.owner, r.sessionId ?? null, r.toolServer ?? null, r.toolName ?? null, r.facts ?? null, budgetKeys);
          return { ok: true, grantIndex: g.index };
        }
        return refusal ?? new ChioError('CHIO-KERNEL-INVALID-REQUEST', 'a reservation needs at least one grant');
      }),
    ).immediate();
  } catch (e) {
    throw reservationFailed(e);
  }
}

/** Reserves one call in its own transaction; throws CHIO-LEDGER-APPEND-FAILED when it cannot be recorded. */
export function reserveCall(ledger: Ledger, r: CallReservation): ReserveOutcome {
  const outcome = commitReservations(ledger, [r])[0]!;
  if (outcome instanceof ChioError) throw outcome;
  return outcome;
}

/** Every reservation still pending, oldest first (reservation time, then insertion order: the call ids are random). */
export function pendingReservations(ledger: Ledger): PendingReservation[] {
  const rows = ledger.db
    .prepare('SELECT request_id, capability_id, grant_index, reserved_at, owner, session_id, tool_server, tool_name, facts FROM pending_calls ORDER BY reserved_at, rowid')
    .all();
  // A row of the wrong shape (someone else wrote the file) is left for an operator to look at.
  return rows.flatMap((row) => checkRow(row as PendingRow) ?? []);
}

/**
 * Appends `request` and removes the reservation it `releases` in one `BEGIN IMMEDIATE`
 * transaction, only if that reservation is still pending: two processes settling the same row,
 * or a receipt that did commit although its producer saw an error, never give a call two
 * receipts. Returns undefined when the row was already gone (nothing appended).
 */
export function appendIfPending(ledger: Ledger, request: AppendRequest & { releases: string }, inserter = new EntryInserter(ledger)): AppendResult | undefined {
  const entry = prepareEntry(request);
  const exists = statement(ledger.db, 'SELECT 1 AS one FROM pending_calls WHERE request_id = ?');
  try {
    return ledger.db.transaction(() => (exists.get(request.releases) === undefined ? undefined : inserter.insertLinked(entry))).immediate();
  } catch (e) {
    throw appendFailed(e);
  }
}

/** The first of `capabilityIds` that has been revoked, or undefined. */
export function firstRevoked(ledger: Ledger, capabilityIds: readonly string[], trustedKeys: readonly string[]): string | undefined {
  // Only a revocation signed by a trusted key counts: anyone can sign a receipt and append it.
  const stmt = statement(ledger.db, 'SELECT 1 AS one FROM revoked_capabilities WHERE capability_id = ? AND kernel_key IN (SELECT value FROM json_each(?))');
  const keys = JSON.stringify(trustedKeys);
  return capabilityIds.find((id) => stmt.get(id, keys) !== undefined);
}
