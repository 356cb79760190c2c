/**
 * Reserving a call before it runs (the kernel's fail-closed step): in one `BEGIN
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
export function checkPendingRow(row: PendingRow): PendingReservation | undefined {
  const text = (v: unknown) => typeof v === 'string';
  const textOrNull = (v: unknown) => v === null || typeof v === 'string';
  const int = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v);
  if (
    !text(row.request_id) ||
    !text(row.capability_id) ||
    !int(row.grant_index) ||
    !int(row.reserved_at) ||
    !text(row.owner) ||
    !textOrNull(row.session_id) ||
    !textOrNull(row.tool_server) ||
    !textOrNull(row.tool_name) ||
    !textOrNull(row.facts)
  ) {
    return undefined;
  }
  return {
    requestId: row.request_id as string,
    capabilityId: row.capability_id as string,
    grantIndex: row.grant_index as number,
    reservedAt: row.reserved_at as number,
    owner: row.owner as string,
    sessionId: row.session_id as string | null,
    toolServer: row.tool_server as string | null,
    toolName: row.tool_name as string | null,
    facts: row.facts as string | null,
  };
}

/**
 * Allowed receipts signed by a trusted key, plus calls in flight in any process, for one grant:
 * what counts against its max_invocations. A call in flight holds its own grant and every ancestor
 * grant it narrows (pending_calls.budget_keys).
 */
export function invocationsUsed(
  ledger: Ledger,
  capabilityId: string,
  grantIndex: number,
  trustedKeys: readonly string[],
): number {
  // The trusted keys as a bound list (`kernel_key IN (@k0, @k1, …)`, one statement per key count):
  // SQLite searches the primary key for each, where `IN (SELECT value FROM json_each(?))` parsed
  // the JSON and built a bloom filter on every call (~12 µs). More keys than any kernel is
  // configured with go through json_each, with the same meaning.
  const bound = trustedKeys.length <= 16;
  const params: Record<string, string | number> = { cap: capabilityId, idx: grantIndex };
  if (bound) trustedKeys.forEach((k, i) => (params[`k${i}`] = k));
  else params.keys = JSON.stringify(trustedKeys);
  const keyList = bound ? trustedKeys.map((_, i) => `@k${i}`).join(', ') : 'SELECT value FROM json_each(@keys)';
  return (
    statement(
      ledger.db,
      `SELECT coalesce((SELECT sum(invocations) FROM grant_usage WHERE capability_id = @cap AND grant_index = @idx
                        AND kernel_key IN (${keyList})), 0)
            + (SELECT count(*) FROM pending_calls p WHERE
                 (p.budget_keys IS NULL AND p.capability_id = @cap AND p.grant_index = @idx)
                 OR (p.budget_keys IS NOT NULL AND EXISTS (SELECT 1 FROM json_each(p.budget_keys) k
                       WHERE k.value ->> '$.capability_id' = @cap AND k.value ->> '$.grant_index' = @idx))) AS used`,
    ).get(params) as { used: number }
  ).used;
}

/** The statements a reservation runs, prepared once per connection. */
function reservationStatements(ledger: Ledger) {
  return {
    exists: statement(ledger.db, 'SELECT 1 AS one FROM pending_calls WHERE request_id = ?'),
    insert: statement(
      ledger.db,
      `INSERT INTO pending_calls (request_id, capability_id, grant_index, reserved_at, owner, session_id, tool_server, tool_name, facts, budget_keys)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
  };
}

/**
 * Reserves one call; must run inside a write transaction, after the reservations and receipts
 * before it there, so the budget it sees is exactly what reserving one by one would see. A
 * request id already reserved gets its own error and writes nothing; a database fault throws.
 */
export function reserveInTransaction(ledger: Ledger, r: CallReservation): ReserveOutcome | ChioError {
  const { exists, insert } = reservationStatements(ledger);
  if (exists.get(r.requestId) !== undefined) return alreadyReserved(r.requestId);
  const choice = grantChoice(r);
  let step = choice.next();
  while (step.done !== true)
    step = choice.next(invocationsUsed(ledger, step.value.capabilityId, step.value.grantIndex, r.trustedKeys));
  const c = step.value;
  if (!('take' in c)) return c;
  insert.run(
    r.requestId,
    r.capabilityId,
    c.take,
    r.now,
    r.owner,
    r.sessionId ?? null,
    r.toolServer ?? null,
    r.toolName ?? null,
    r.facts ?? null,
    c.budgetKeys,
  );
  return { ok: true, grantIndex: c.take };
}

/** The refusal of a request id already reserved: it gets its own error and writes nothing. */
export function alreadyReserved(requestId: string): ChioError {
  return new ChioError(
    'CHIO-LEDGER-APPEND-FAILED',
    `cannot reserve the call: request id ${requestId} is already reserved by a call in flight, so it will not run`,
  );
}

/** A grant to take (and its pending_calls.budget_keys value), or why none can be. */
export type GrantChoice = { take: number; budgetKeys: string | null } | ReserveOutcome | ChioError;

/**
 * Which grant a reservation takes, on either store: the first covering grant whose own budget and
 * every ancestor budget have invocations left. Yields each budgeted key to count and is resumed
 * with its count (read synchronously on SQLite, asynchronously on PostgreSQL).
 */
export function* grantChoice(r: CallReservation): Generator<BudgetKey, GrantChoice, number> {
  let refusal: ReserveOutcome | undefined;
  grants: for (const g of r.grants) {
    const keys: BudgetKey[] = [
      { capabilityId: r.capabilityId, grantIndex: g.index, maxInvocations: g.maxInvocations },
      ...(g.ancestors ?? []),
    ];
    for (const k of keys) {
      if (k.maxInvocations === undefined) continue;
      const used = yield k;
      if (used >= k.maxInvocations) {
        refusal = {
          ok: false,
          grantIndex: g.index,
          used,
          limit: k.maxInvocations,
          ...(k.capabilityId === r.capabilityId
            ? {}
            : { capabilityId: k.capabilityId, ancestorGrantIndex: k.grantIndex }),
        };
        continue grants;
      }
    }
    return {
      take: g.index,
      budgetKeys:
        keys.length === 1
          ? null
          : JSON.stringify(keys.map((k) => ({ capability_id: k.capabilityId, grant_index: k.grantIndex }))),
    };
  }
  return refusal ?? new ChioError('CHIO-KERNEL-INVALID-REQUEST', 'a reservation needs at least one grant');
}

/** A reservation that could not be committed: the call does not run. */
export function reservationFailed(e: unknown): ChioError {
  return new ChioError(
    'CHIO-LEDGER-APPEND-FAILED',
    `cannot reserve the call in the ledger, so it will not run: ${(e as Error).message}`,
    { cause: e },
  );
}

/**
 * Reserves every call of `batch` in one `BEGIN IMMEDIATE` transaction (one commit, one fsync on a
 * synchronous=FULL connection). Any failure but a repeated request id rolls the batch back and is
 * thrown as CHIO-LEDGER-APPEND-FAILED: nothing of it is reserved. (The kernel reserves through
 * its LedgerWriter, whose commits carry reservations and receipts together.)
 */
export function commitReservations(
  ledger: Ledger,
  batch: readonly CallReservation[],
): Array<ReserveOutcome | ChioError> {
  try {
    return ledger.db.transaction(() => batch.map((r) => reserveInTransaction(ledger, r))).immediate();
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
    .prepare(
      'SELECT request_id, capability_id, grant_index, reserved_at, owner, session_id, tool_server, tool_name, facts FROM pending_calls ORDER BY reserved_at, rowid',
    )
    .all();
  // A row of the wrong shape (someone else wrote the file) is left for an operator to look at.
  return rows.flatMap((row) => checkPendingRow(row as PendingRow) ?? []);
}

/**
 * Appends `request` and removes the reservation it `releases` in one `BEGIN IMMEDIATE`
 * transaction, only if that reservation is still pending: two processes settling the same row,
 * or a receipt that did commit although its producer saw an error, never give a call two
 * receipts. Returns undefined when the row was already gone (nothing appended).
 */
export function appendIfPending(
  ledger: Ledger,
  request: AppendRequest & { releases: string },
  inserter = new EntryInserter(ledger),
): AppendResult | undefined {
  const entry = prepareEntry(request);
  const exists = statement(ledger.db, 'SELECT 1 AS one FROM pending_calls WHERE request_id = ?');
  try {
    return ledger.db
      .transaction(() => (exists.get(request.releases) === undefined ? undefined : inserter.insertLinked(entry)))
      .immediate();
  } catch (e) {
    throw appendFailed(e);
  }
}

/** The first of `capabilityIds` that has been revoked, or undefined. */
export function firstRevoked(
  ledger: Ledger,
  capabilityIds: readonly string[],
  trustedKeys: readonly string[],
): string | undefined {
  // Only a revocation signed by a trusted key counts: anyone can sign a receipt and append it.
  if (capabilityIds.length === 0 || trustedKeys.length === 0) return undefined;
  if (capabilityIds.length <= 16 && trustedKeys.length <= 16) {
    // A token and its ancestors in one statement (one read snapshot: each statement outside a
    // transaction opens its own, ~5 µs), ids and keys bound as lists so SQLite searches the
    // primary key (capability_id, kernel_key) for each pair. One prepared statement per pair of
    // list lengths (at most 16 × 16 per connection).
    const list = (n: number) => `${'?, '.repeat(n - 1)}?`;
    const stmt = statement(
      ledger.db,
      `SELECT capability_id FROM revoked_capabilities WHERE capability_id IN (${list(capabilityIds.length)}) AND kernel_key IN (${list(trustedKeys.length)})`,
    );
    const revoked = stmt.pluck().all(...capabilityIds, ...trustedKeys);
    return revoked.length === 0 ? undefined : capabilityIds.find((id) => revoked.includes(id));
  }
  // Longer lists than a chain (MAX_DELEGATION_DEPTH + 1 ids) or a kernel's configured keys: one id at a time.
  const stmt = statement(
    ledger.db,
    'SELECT 1 AS one FROM revoked_capabilities WHERE capability_id = ? AND kernel_key IN (SELECT value FROM json_each(?))',
  );
  const keys = JSON.stringify(trustedKeys);
  return capabilityIds.find((id) => stmt.get(id, keys) !== undefined);
}
