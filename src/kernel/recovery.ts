/**
 * Recovery: a reserved call whose receipt was never written (its producer crashed or was killed,
 * or the append failed on a full disk) becomes a signed `incomplete` receipt, appended under the
 * call's session in the same transaction that removes its reservation.
 * Owns: which pending rows this process may settle, and settling them. Imports the ledger,
 * receipt and crypto areas; must not import edges or cli.
 *
 * Settlement is the same walk on either store (`settleUnrecorded` on SQLite, `settleUnrecordedAsync`
 * on PostgreSQL, where rows of other hosts are the normal case and are always left to their owner).
 *
 * Never settles a call that may still be running: a row is settled only when its owner is this
 * process and the call is not in flight here, or its owner is provably dead (owner.ts). Rows of
 * live producers, other hosts and other pid namespaces are left alone and reported.
 */
import type { Ed25519Signer } from '../crypto/index.js';
import { ChioError } from '../errors.js';
import { appendIfPending, EntryInserter, pendingReservations } from '../ledger/index.js';
import type { AppendRequest, AppendResult, Ledger, PendingReservation } from '../ledger/index.js';
import { signReceipt } from '../receipt/index.js';
import type { Receipt } from '../receipt/index.js';
import { judgeOwner } from './owner.js';
import type { OwnerId } from './owner.js';
import { recoveredDraft } from './receipts.js';
import type { UnsettledCall } from './receipts.js';

/** What this process knows about one of its own calls whose receipt append failed. */
export interface OwnFailure {
  detail: string;
  toolOutcome?: UnsettledCall['toolOutcome'];
}

export interface RecoveryContext {
  signer: Ed25519Signer;
  self: OwnerId;
  selfText: string;
  now: number;
  producer: string;
  /** True for a request this process has reserved and not yet finished: never settled. */
  inFlight: (requestId: string) => boolean;
  /** This process's failed appends, by request id; entries are removed once settled. */
  failures: Map<string, OwnFailure>;
}

export interface RecoveryReport {
  settled: Array<{ requestId: string; seq: number; receipt: Receipt }>;
  /** Rows left pending, with the reason (owner alive, another host, in flight here). */
  left: Array<{ requestId: string; owner: string; why: string }>;
  /** The ledger could not be written: the remaining rows wait for the next successful append. */
  error?: ChioError | undefined;
}

/** A session label the ledger accepts, else null (the row came from the file: attacker-controlled). */
function sessionOf(row: PendingReservation): string | null {
  const s = row.sessionId;
  return s !== null && s.length > 0 && s.length <= 256 && s.isWellFormed() ? s : null;
}

function cause(row: PendingReservation, ctx: RecoveryContext): { call: UnsettledCall } | { leave: string } {
  const judged = judgeOwner(row.owner, ctx.self);
  let c: UnsettledCall['cause'];
  let toolOutcome: UnsettledCall['toolOutcome'];
  if (judged.state === 'self') {
    if (ctx.inFlight(row.requestId)) return { leave: 'in flight in this process' };
    const own = ctx.failures.get(row.requestId);
    c =
      own === undefined
        ? { kind: 'not_written', detail: 'this process reserved it and did not write its receipt' }
        : { kind: 'append_failed', detail: `the receipt append failed: ${own.detail}` };
    toolOutcome = own?.toolOutcome;
  } else if (judged.state === 'dead') {
    c = { kind: 'producer_gone', detail: `its producer is gone: ${judged.why}` };
  } else {
    return { leave: judged.why };
  }
  return {
    call: {
      requestId: row.requestId,
      capabilityId: row.capabilityId,
      grantIndex: row.grantIndex,
      reservedAt: row.reservedAt,
      owner: row.owner,
      toolServer: row.toolServer,
      toolName: row.toolName,
      facts: row.facts,
      cause: c,
      toolOutcome,
    },
  };
}

function sign(call: UnsettledCall, ctx: RecoveryContext): Receipt {
  try {
    return signReceipt(recoveredDraft(call, ctx.now, ctx.selfText), ctx.signer, { nonce: call.requestId });
  } catch (e) {
    // Stored facts that check out but still cannot be signed (e.g. a tampered value JCS refuses):
    // the receipt says they are unreadable instead.
    if (!(e instanceof ChioError)) throw e;
    return signReceipt(recoveredDraft(call, ctx.now, ctx.selfText, { ignoreFacts: true }), ctx.signer, {
      nonce: call.requestId,
    });
  }
}

/** One row to settle: its signed `incomplete` receipt, appended only if the row is still pending. */
type Settlement = { append: AppendRequest & { releases: string }; row: PendingReservation; receipt: Receipt };

/**
 * The recovery walk over `rows`, oldest first: yields each row's settlement (to be appended only if
 * still pending, in its own transaction) and is resumed with the result or the append's error.
 * Stops at the first append that fails and reports it; what was settled before stays settled.
 */
function* settlements(
  rows: PendingReservation[],
  ctx: RecoveryContext,
  report: RecoveryReport,
): Generator<Settlement, RecoveryReport, { entry: AppendResult | undefined } | { error: unknown }> {
  for (const row of rows) {
    const judged = cause(row, ctx);
    if ('leave' in judged) {
      report.left.push({ requestId: row.requestId, owner: row.owner, why: judged.leave });
      continue;
    }
    let receipt: Receipt;
    try {
      receipt = sign(judged.call, ctx);
    } catch (e) {
      report.left.push({
        requestId: row.requestId,
        owner: row.owner,
        why: `cannot sign its receipt: ${(e as Error).message}`,
      });
      continue;
    }
    const done = yield {
      append: { receipt, sessionId: sessionOf(row), producer: ctx.producer, releases: row.requestId },
      row,
      receipt,
    };
    if ('error' in done) {
      const e = done.error;
      report.error =
        e instanceof ChioError
          ? e
          : new ChioError('CHIO-LEDGER-APPEND-FAILED', String((e as Error)?.message ?? e), { cause: e });
      return report;
    }
    ctx.failures.delete(row.requestId);
    if (done.entry !== undefined) report.settled.push({ requestId: row.requestId, seq: done.entry.seq, receipt });
  }
  return report;
}

const unreadable = (e: unknown) =>
  new ChioError('CHIO-LEDGER-APPEND-FAILED', `cannot read pending reservations: ${(e as Error).message}`, { cause: e });

/**
 * Settles every pending row this process may settle on an SQLite ledger, oldest first, each in its
 * own transaction. Synchronous (Kernel.open is).
 */
export function settleUnrecorded(ctx: RecoveryContext & { ledger: Ledger }): RecoveryReport {
  const report: RecoveryReport = { settled: [], left: [] };
  let rows: PendingReservation[];
  try {
    rows = pendingReservations(ctx.ledger);
  } catch (e) {
    report.error = unreadable(e);
    return report;
  }
  const inserter = new EntryInserter(ctx.ledger);
  const walk = settlements(rows, ctx, report);
  for (let step = walk.next(); ; ) {
    if (step.done === true) return step.value;
    let result: { entry: AppendResult | undefined } | { error: unknown };
    try {
      result = { entry: appendIfPending(ctx.ledger, step.value.append, inserter) };
    } catch (error) {
      result = { error };
    }
    step = walk.next(result);
  }
}

/** The same walk on a ledger reached asynchronously (PostgreSQL): `pending` reads the rows, `appendIfPending` settles one. */
export async function settleUnrecordedAsync(
  ctx: RecoveryContext,
  io: {
    pending(): Promise<PendingReservation[]>;
    appendIfPending(request: AppendRequest & { releases: string }): Promise<AppendResult | undefined>;
  },
): Promise<RecoveryReport> {
  const report: RecoveryReport = { settled: [], left: [] };
  let rows: PendingReservation[];
  try {
    rows = await io.pending();
  } catch (e) {
    report.error = unreadable(e);
    return report;
  }
  const walk = settlements(rows, ctx, report);
  for (let step = walk.next(); ; ) {
    if (step.done === true) return step.value;
    let result: { entry: AppendResult | undefined } | { error: unknown };
    try {
      result = { entry: await io.appendIfPending(step.value.append) };
    } catch (error) {
      result = { error };
    }
    step = walk.next(result);
  }
}

/**
 * Request ids reserved and not yet finished by any kernel in this process (a count each: two
 * kernels on two ledgers may use one id). Process-wide, and shared by every copy of this module
 * loaded in the process, because the owner column names the process, not the Kernel object: a
 * kernel must not settle the call another kernel of its own process is running.
 */
const IN_FLIGHT_KEY = Symbol.for('chio.kernel.reservations-in-flight');
const processWide = globalThis as Record<symbol, unknown>;
processWide[IN_FLIGHT_KEY] ??= new Map<string, number>();
const inFlight = processWide[IN_FLIGHT_KEY] as Map<string, number>;

export const reservationsInFlight = {
  add(requestId: string): void {
    inFlight.set(requestId, (inFlight.get(requestId) ?? 0) + 1);
  },
  delete(requestId: string): void {
    const n = (inFlight.get(requestId) ?? 0) - 1;
    if (n > 0) inFlight.set(requestId, n);
    else inFlight.delete(requestId);
  },
  has(requestId: string): boolean {
    return inFlight.has(requestId);
  },
  /** How many distinct calls are between reservation and receipt in this process. */
  get size(): number {
    return inFlight.size;
  },
};
