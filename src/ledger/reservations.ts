/**
 * Reserving a call before it runs (the kernel's fail-closed step, issue 3): in one `BEGIN
 * IMMEDIATE` transaction, count the grant's allowed receipts plus the calls already in flight in
 * every process, refuse past the budget, and record this call in pending_calls. A ledger that
 * cannot be written fails here, before the tool is invoked. The receipt's append removes the row
 * (AppendRequest.releases).
 * Also the revocation lookup. Owns: pending_calls. Must not import kernel, edges or cli.
 */
import { ChioError } from '../errors.js';
import type { Ledger } from './open.js';

export interface CallReservation {
  requestId: string;
  capabilityId: string;
  grantIndex: number;
  /** The grant's max_invocations, if it has one. */
  maxInvocations?: number | undefined;
  /** Which process holds it (for an operator looking at stale rows). */
  owner: string;
  now: number;
}

export type ReserveOutcome = { ok: true } | { ok: false; used: number; limit: number };

/** Allowed receipts plus calls in flight for one grant: what counts against its max_invocations. */
export function invocationsUsed(ledger: Ledger, capabilityId: string, grantIndex: number): number {
  return (ledger.db
    .prepare(
      `SELECT coalesce((SELECT invocations FROM grant_usage WHERE capability_id = @cap AND grant_index = @idx), 0)
            + (SELECT count(*) FROM pending_calls WHERE capability_id = @cap AND grant_index = @idx) AS used`,
    )
    .get({ cap: capabilityId, idx: grantIndex }) as { used: number }).used;
}

export function reserveCall(ledger: Ledger, r: CallReservation): ReserveOutcome {
  const db = ledger.db;
  try {
    return db.transaction((): ReserveOutcome => {
      if (r.maxInvocations !== undefined) {
        const used = invocationsUsed(ledger, r.capabilityId, r.grantIndex);
        if (used >= r.maxInvocations) return { ok: false, used, limit: r.maxInvocations };
      }
      db.prepare('INSERT INTO pending_calls (request_id, capability_id, grant_index, reserved_at, owner) VALUES (?, ?, ?, ?, ?)')
        .run(r.requestId, r.capabilityId, r.grantIndex, r.now, r.owner);
      return { ok: true };
    }).immediate();
  } catch (e) {
    throw new ChioError('CHIO-LEDGER-APPEND-FAILED', `cannot reserve the call in the ledger, so it will not run: ${(e as Error).message}`, { cause: e });
  }
}

/** The first of `capabilityIds` that has been revoked, or undefined. */
export function firstRevoked(ledger: Ledger, capabilityIds: readonly string[]): string | undefined {
  const stmt = ledger.db.prepare('SELECT 1 AS one FROM revoked_capabilities WHERE capability_id = ?');
  return capabilityIds.find((id) => stmt.get(id) !== undefined);
}
