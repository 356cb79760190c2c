/**
 * Reserving calls on a PostgreSQL ledger (DESIGN §7, §11): the same pending_calls rows, budget
 * counts and revocation lookups as ../reservations.ts on SQLite, for kernels on many hosts. A
 * reservation runs inside an append transaction, after the chio_append_lock row is locked
 * (append.ts `lockHead`): producers' reservations and receipts are serialized like SQLite's
 * `BEGIN IMMEDIATE` ones, so two hosts can never both take a grant's last invocation.
 * Owns: pending_calls and the budget and revocation reads on PostgreSQL. Must not import kernel,
 * edges or cli.
 * Every row read here is attacker-controlled: whoever can write the database can write anything.
 */
import type pg from 'pg';
import { ChioError } from '../../errors.js';
import { appendFailed, prepareEntry } from '../append.js';
import type { AppendRequest, AppendResult } from '../append.js';
import { alreadyReserved, checkPendingRow, grantChoice } from '../reservations.js';
import type { CallReservation, PendingReservation, ReserveOutcome } from '../reservations.js';
import { insertLinked, lockHead } from './append.js';
import type { PgLedger } from './open.js';
import { inTransaction } from './transaction.js';

type Queryable = pg.Pool | pg.PoolClient;

/**
 * Allowed receipts signed by a trusted key, plus calls in flight on any host, for one grant: what
 * counts against its max_invocations (the SQLite query's meaning, budget_keys read as JSON). A
 * budget_keys value that is not JSON makes the query fail: the call is refused, never let through.
 */
export async function invocationsUsedPg(
  db: Queryable,
  capabilityId: string,
  grantIndex: number,
  trustedKeys: readonly string[],
): Promise<number> {
  const row = (
    await db.query(
      `SELECT coalesce((SELECT sum(invocations) FROM grant_usage WHERE capability_id = $1 AND grant_index = $2 AND kernel_key = ANY($3::text[])), 0)
          + (SELECT count(*) FROM pending_calls p WHERE
               (p.budget_keys IS NULL AND p.capability_id = $1 AND p.grant_index = $2)
               OR (p.budget_keys IS NOT NULL AND EXISTS (SELECT 1 FROM jsonb_array_elements(p.budget_keys::jsonb) k
                     WHERE k ->> 'capability_id' = $1 AND k ->> 'grant_index' = $4))) AS used`,
      [capabilityId, grantIndex, trustedKeys, String(grantIndex)],
    )
  ).rows[0] as { used: number | string };
  // sum() of BIGINT is NUMERIC (text in the driver): a count of receipts, well within 2^53.
  return Number(row.used);
}

/** The first of `capabilityIds` revoked by a trusted key, or undefined. */
export async function firstRevokedPg(
  db: Queryable,
  capabilityIds: readonly string[],
  trustedKeys: readonly string[],
): Promise<string | undefined> {
  if (capabilityIds.length === 0 || trustedKeys.length === 0) return undefined;
  const rows = (
    await db.query(
      'SELECT capability_id FROM revoked_capabilities WHERE capability_id = ANY($1::text[]) AND kernel_key = ANY($2::text[])',
      [capabilityIds, trustedKeys],
    )
  ).rows as Array<{ capability_id: string }>;
  const revoked = new Set(rows.map((r) => r.capability_id));
  return capabilityIds.find((id) => revoked.has(id));
}

/**
 * Reserves one call; must run inside an append transaction that holds the append lock, after the
 * ops before it, exactly as on SQLite (../reservations.ts `reserveInTransaction`).
 */
export async function reserveInTransactionPg(
  client: pg.PoolClient,
  r: CallReservation,
): Promise<ReserveOutcome | ChioError> {
  if ((await client.query('SELECT 1 FROM pending_calls WHERE request_id = $1', [r.requestId])).rowCount !== 0)
    return alreadyReserved(r.requestId);
  const choice = grantChoice(r);
  let step = choice.next();
  while (step.done !== true)
    step = choice.next(await invocationsUsedPg(client, step.value.capabilityId, step.value.grantIndex, r.trustedKeys));
  const c = step.value;
  if (!('take' in c)) return c;
  await client.query(
    `INSERT INTO pending_calls (request_id, capability_id, grant_index, reserved_at, owner, session_id, tool_server, tool_name, facts, budget_keys)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
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
    ],
  );
  return { ok: true, grantIndex: c.take };
}

/**
 * Every reservation still pending, oldest first. PostgreSQL keeps no insertion order, so calls
 * reserved in the same second are ordered by request id (random): recovery settles each in its
 * own transaction, and their order among themselves carries no meaning.
 */
export async function pendingReservationsPg(ledger: PgLedger): Promise<PendingReservation[]> {
  const rows = (
    await ledger.pool.query(
      'SELECT request_id, capability_id, grant_index, reserved_at, owner, session_id, tool_server, tool_name, facts FROM pending_calls ORDER BY reserved_at, request_id',
    )
  ).rows as Array<Record<string, unknown>>;
  // A row of the wrong shape (someone else wrote the database) is left for an operator to look at.
  return rows.flatMap((row) => checkPendingRow(row) ?? []);
}

/**
 * Appends `request` and removes the reservation it `releases` in one transaction, only if that
 * reservation is still pending (another host settling the same row, or a receipt that committed
 * although its producer saw an error, never gives a call two receipts). Undefined when it was gone.
 */
export async function appendIfPendingPg(
  ledger: PgLedger,
  request: AppendRequest & { releases: string },
): Promise<AppendResult | undefined> {
  const entry = prepareEntry(request);
  try {
    return await inTransaction(ledger.pool, async (client) => {
      const head = await lockHead(client);
      if ((await client.query('SELECT 1 FROM pending_calls WHERE request_id = $1', [request.releases])).rowCount === 0)
        return undefined;
      const result = (await insertLinked(client, [entry], head)).results[0]!;
      if (result instanceof ChioError) throw result;
      return result;
    });
  } catch (e) {
    throw appendFailed(e);
  }
}
