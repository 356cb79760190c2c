/**
 * One shared commit for everything a producer process writes while calls run (DESIGN §6): the
 * reservations of calls about to be dispatched and the receipts of calls that finished, in the
 * order they were handed over, in one `BEGIN IMMEDIATE` transaction. With many calls in flight,
 * call B's reservation and call A's receipt share one fsync instead of paying one each.
 * Owns: the shapes of a shared batch and its transaction. Must not import kernel, edges or cli.
 *
 * Running them in arrival order inside the transaction makes the batch exactly as strict as
 * committing them one by one: a reservation sees the budget after every receipt and reservation
 * before it (a receipt releasing its own reservation, a grant counted, a capability revoked).
 */
import { ChioError } from '../errors.js';
import { appendFailed } from './append.js';
import type { AppendResult, EntryInserter, PreparedEntry } from './append.js';
import type { Ledger } from './open.js';
import { reservationFailed, reserveInTransaction } from './reservations.js';
import type { CallReservation, ReserveOutcome } from './reservations.js';

export type WriteOp = { kind: 'append'; entry: PreparedEntry } | { kind: 'reserve'; reservation: CallReservation };

/** What happened to one op of a committed batch: appended, reserved (or refused by its budget), or refused on its own. */
export type OpOutcome =
  | { ok: true; kind: 'append'; result: AppendResult }
  | { ok: true; kind: 'reserve'; outcome: ReserveOutcome }
  | { ok: false; error: ChioError };

/**
 * How a reservation's commit reaches the disk. `full` (the default): fsynced before the tool runs,
 * so it survives a power loss. `normal`: a commit that holds only reservations is written to the
 * WAL without an fsync — it survives the death of the process (the kernel's recovery then settles
 * it), not a power loss or an OS crash; the next `full` commit on the file (the call's receipt)
 * makes it durable. A commit that holds any receipt is always made at the connection's level.
 */
export type ReservationSync = 'full' | 'normal';

/**
 * Commits `ops` in one `BEGIN IMMEDIATE` transaction. An op refused before it wrote anything (a
 * duplicate receipt, a request id already reserved) gets its own failed outcome and the rest
 * commit; any other failure is a fault that rolls the whole batch back and is thrown (raw: the
 * caller words it per op with `faultFor`).
 */
export function commitOps(
  ledger: Ledger,
  inserter: EntryInserter,
  ops: readonly WriteOp[],
  reservationSync: ReservationSync = 'full',
): OpOutcome[] {
  const run = () =>
    ledger.db
      .transaction(() => {
        // Made inside the transaction, so a retried or rolled-back batch never reuses its heads.
        const batch = inserter.batch();
        return ops.map((op): OpOutcome => {
          if (op.kind === 'reserve') {
            const outcome = reserveInTransaction(ledger, op.reservation);
            return outcome instanceof ChioError
              ? { ok: false, error: outcome }
              : { ok: true, kind: 'reserve', outcome };
          }
          try {
            return { ok: true, kind: 'append', result: inserter.insertLinked(op.entry, batch) };
          } catch (e) {
            // Only the duplicate is refused before anything is written; any other error (a corrupt
            // subtree read after the row went in) is a fault that takes the whole batch back.
            if (!(e instanceof ChioError) || e.code !== 'CHIO-LEDGER-DUPLICATE-RECEIPT') throw e;
            return { ok: false, error: e };
          }
        });
      })
      .immediate();
  if (reservationSync === 'full' || ops.some((op) => op.kind === 'append')) return run();
  return withoutFsync(ledger, run);
}

/** The error each op of a batch that could not be committed gets: it was not recorded (and a reserved call does not run). */
export function faultFor(op: WriteOp, e: unknown): ChioError {
  return op.kind === 'reserve' ? reservationFailed(e) : appendFailed(e);
}

/** Runs `commit` at synchronous=NORMAL, then back at the connection's level (nothing else runs in between: all synchronous). */
function withoutFsync<T>(ledger: Ledger, commit: () => T): T {
  const level = ledger.db.pragma('synchronous', { simple: true }) as number;
  ledger.db.pragma('synchronous = NORMAL');
  try {
    return commit();
  } finally {
    ledger.db.pragma(`synchronous = ${level}`);
  }
}
