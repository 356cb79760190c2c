/**
 * Group commit for reservations: calls reserved in the same turn of the event loop are committed
 * in one `BEGIN IMMEDIATE` transaction, so on a synchronous=FULL connection one fsync makes many
 * reservations durable. Each `reserve` resolves only after COMMIT returned: the kernel dispatches a
 * tool only once its reservation would survive a crash or a power loss.
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

export class ReservationQueue {
  private queue: Waiting[] = [];
  private scheduled = false;

  constructor(private readonly ledger: Ledger, private readonly maxBatch = 256) {
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
        outcomes = commitReservations(this.ledger, batch.map((w) => w.reservation));
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
}
