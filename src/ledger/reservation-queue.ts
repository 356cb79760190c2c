/**
 * Group commit for reservations: calls reserved in the same turn of the event loop are committed
 * in one `BEGIN IMMEDIATE` transaction, so on a synchronous=FULL connection one fsync makes many
 * reservations durable. Each `reserve` resolves only after COMMIT returned: the kernel dispatches a
 * tool only once its reservation would survive a crash or a power loss (or, with `normal`
 * sync, the death of its process: ReservationSync).
 * Owns: batching reservations. Must not import kernel, edges or cli.
 */
import { ChioError } from '../errors.js';
import type { Ledger } from './open.js';
import { commitReservations } from './reservations.js';
import type { CallReservation, ReserveOutcome } from './reservations.js';

interface Waiting {
  reservation: CallReservation;
  resolve: (outcome: ReserveOutcome) => void;
  reject: (error: unknown) => void;
}

/**
 * How a reservation's commit reaches the disk. `full` (the default): fsynced before the tool runs,
 * so it survives a power loss. `normal`: written to the WAL without an fsync — it survives the
 * death of the process (the kernel's recovery then settles it), not a power loss or an OS crash;
 * the next `full` commit on the file (the call's receipt) makes it durable. One fsync per call
 * instead of two.
 */
export type ReservationSync = 'full' | 'normal';

export class ReservationQueue {
  private queue: Waiting[] = [];
  private scheduled = false;

  constructor(private readonly ledger: Ledger, private readonly maxBatch = 256, private readonly sync: ReservationSync = 'full') {
    if (ledger.readonly) throw new ChioError('CHIO-LEDGER-APPEND-FAILED', 'the ledger was opened read-only');
  }

  /** Resolves after the reservation (or its budget refusal) is committed; rejects CHIO-LEDGER-APPEND-FAILED when it cannot be. */
  reserve(reservation: CallReservation): Promise<ReserveOutcome> {
    return new Promise((resolve, reject) => {
      this.queue.push({ reservation, resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      // After this turn's I/O and promise callbacks, so every call that is ready now shares the commit.
      setImmediate(() => this.commit());
    });
  }

  private commit(): void {
    this.scheduled = false;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      let outcomes: Array<ReserveOutcome | ChioError>;
      try {
        outcomes = this.sync === 'full' ? commitReservations(this.ledger, batch.map((w) => w.reservation)) : this.withoutFsync(() => commitReservations(this.ledger, batch.map((w) => w.reservation)));
      } catch (e) {
        for (const w of batch) w.reject(e);
        continue;
      }
      batch.forEach((w, i) => {
        const o = outcomes[i]!;
        if (o instanceof ChioError) w.reject(o);
        else w.resolve(o);
      });
    }
  }

  /** Runs `commit` on this connection at synchronous=NORMAL, then back at FULL (nothing else runs in between: all synchronous). */
  private withoutFsync<T>(commit: () => T): T {
    this.ledger.db.pragma('synchronous = NORMAL');
    try {
      return commit();
    } finally {
      this.ledger.db.pragma('synchronous = FULL');
    }
  }
}
