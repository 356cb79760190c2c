/**
 * Group commit (DESIGN §6): appends that arrive together are committed in one `BEGIN IMMEDIATE`
 * transaction, so one fsync (synchronous=FULL) covers many receipts. Each append's promise
 * resolves only after COMMIT returned: a producer that awaits it never answers its caller before
 * the receipt is durable. If the commit fails, every append in the batch rejects and nothing of
 * the batch is in the ledger: the governed calls fail closed.
 * The kernel's reservations (`reserve`) go through the same queue, so the reservation of a call
 * about to run and the receipts of calls that finished share commits (write-ops.ts).
 * Owns: batching and the append and reserve promise contracts. Must not import kernel, edges or cli.
 *
 * Where the transaction runs is a `BatchCommitter`: on this thread (`new LedgerWriter(ledger)`),
 * or on a dedicated writer thread (`LedgerWriter.onThread(path)`, writer-thread.ts) so that this
 * thread keeps signing while a batch waits for its fsync. Batches are handed over in order; the
 * thread commits them one after another, so seqs follow the order of `append` calls.
 */
import { ChioError } from '../errors.js';
import { EntryInserter, prepareEntry } from './append.js';
import type { AppendRequest, AppendResult, PreparedEntry } from './append.js';
import type { Ledger, OpenLedgerOptions } from './open.js';
import type { CallReservation, ReserveOutcome } from './reservations.js';
import { commitOps, faultFor } from './write-ops.js';
import type { OpOutcome, ReservationSync, WriteOp } from './write-ops.js';
import { WalBackfiller } from './wal-backfill.js';
import { ThreadCommitter } from './writer-thread-client.js';

/** Commits one batch; may finish later (another thread). Throws/rejects only for a fault. */
export interface BatchCommitter {
  commit(ops: readonly WriteOp[]): OpOutcome[] | Promise<OpOutcome[]>;
  close(): Promise<void>;
}

interface Pending {
  op: WriteOp;
  resolve: (result: never) => void;
  reject: (error: unknown) => void;
}

export interface LedgerWriterOptions {
  /** Most appends and reservations committed in one transaction. */
  maxBatch?: number;
  /** How a commit that holds only reservations reaches the disk (write-ops.ts ReservationSync); default `full`. */
  reservationSync?: ReservationSync;
  /**
   * Whether a writer committing on this thread hands SQLite's WAL checkpoints to a thread of its
   * own once it has committed a few batches (wal-backfill.ts); default true.
   */
  walBackfill?: boolean;
}

export interface LedgerWriterStats {
  appended: number;
  /** Reservations committed (granted or refused by their budget). */
  reserved: number;
  commits: number;
  largestBatch: number;
}

/** Commits after which a writer hands SQLite's WAL checkpoints to a thread (wal-backfill.ts). */
const BACKFILL_AFTER_COMMITS = 32;

/** Commits through one connection on the calling thread (also the writer thread's, writer-thread.ts). */
export class SameThreadCommitter implements BatchCommitter {
  private readonly inserter: EntryInserter;
  private commits = 0;
  private thread: WalBackfiller | undefined;
  constructor(
    private readonly ledger: Ledger,
    private readonly reservationSync: ReservationSync = 'full',
    private readonly backfill = true,
  ) {
    if (ledger.readonly) throw new ChioError('CHIO-LEDGER-APPEND-FAILED', 'the ledger was opened read-only');
    this.inserter = new EntryInserter(ledger);
  }
  commit(ops: readonly WriteOp[]): OpOutcome[] {
    const outcomes = commitOps(this.ledger, this.inserter, ops, this.reservationSync);
    if (this.thread !== undefined) this.thread.committed();
    // Started only once a writer has committed a few times: a short-lived one (a CLI command, a
    // test) never pays for the thread.
    else if (this.backfill && ++this.commits === BACKFILL_AFTER_COMMITS) this.startBackfill();
    return outcomes;
  }
  async close(): Promise<void> {
    await this.thread?.close();
  }

  /** The thread taking SQLite's WAL checkpoints off these commits, once started. */
  get backfiller(): WalBackfiller | undefined {
    return this.thread;
  }

  private startBackfill(): void {
    try {
      this.thread = new WalBackfiller(this.ledger);
    } catch {
      // No thread (a worker could not be created): checkpoints stay inside COMMIT. Never an error
      // of the batch that just committed, whose appends are durable.
    }
  }
}

export class LedgerWriter {
  private readonly committer: BatchCommitter;
  private readonly maxBatch: number;
  private queue: Pending[] = [];
  private scheduled = false;
  private inFlight = 0;
  private closed = false;
  private readonly idle: Array<() => void> = [];
  readonly stats: LedgerWriterStats = { appended: 0, reserved: 0, commits: 0, largestBatch: 0 };

  /** A writer that commits on this thread, through `ledger`'s connection. */
  constructor(ledger: Ledger, options?: LedgerWriterOptions);
  constructor(committer: BatchCommitter, options?: LedgerWriterOptions);
  constructor(target: Ledger | BatchCommitter, options: LedgerWriterOptions = {}) {
    this.committer =
      'commit' in target
        ? target
        : new SameThreadCommitter(target, options.reservationSync ?? 'full', options.walBackfill ?? true);
    this.maxBatch = options.maxBatch ?? 512;
  }

  /**
   * A writer whose transactions run on a dedicated thread with its own connection to `path`.
   * Smaller batches (default 32) keep two in flight: one committing while the next is signed.
   */
  static async onThread(path: string, options: LedgerWriterOptions & OpenLedgerOptions = {}): Promise<LedgerWriter> {
    const { maxBatch: _maxBatch, reservationSync, walBackfill, ...openOptions } = options;
    const committer = await ThreadCommitter.start(path, openOptions, reservationSync, walBackfill);
    return new LedgerWriter(committer, { maxBatch: options.maxBatch ?? 32 });
  }

  /** The thread taking SQLite's WAL checkpoints off this writer's commits, once started (wal-backfill.ts). */
  get walBackfiller(): WalBackfiller | undefined {
    return this.committer instanceof SameThreadCommitter ? this.committer.backfiller : undefined;
  }

  /**
   * Queues a receipt; resolves with its position after the batch holding it has committed.
   * An invalid receipt rejects at once and is never queued.
   */
  append(request: AppendRequest): Promise<AppendResult> {
    if (this.closed) return Promise.reject(new ChioError('CHIO-LEDGER-CLOSED', 'the ledger writer is closed'));
    let entry: PreparedEntry;
    try {
      entry = prepareEntry(request);
    } catch (e) {
      return Promise.reject(e);
    }
    return new Promise<AppendResult>((resolve, reject) => {
      this.queue.push({ op: { kind: 'append', entry }, resolve: resolve as (r: never) => void, reject });
      this.schedule();
    });
  }

  /**
   * Queues a call's reservation (reservations.ts); resolves after the commit holding it, with the
   * grant reserved or the budget's refusal. Rejects CHIO-LEDGER-APPEND-FAILED when it cannot be
   * committed (or the request id is already reserved): the call must not run.
   */
  reserve(reservation: CallReservation): Promise<ReserveOutcome> {
    if (this.closed) return Promise.reject(new ChioError('CHIO-LEDGER-CLOSED', 'the ledger writer is closed'));
    return new Promise<ReserveOutcome>((resolve, reject) => {
      this.queue.push({ op: { kind: 'reserve', reservation }, resolve: resolve as (r: never) => void, reject });
      this.schedule();
    });
  }

  /** Resolves when everything queued so far has been committed (or rejected). */
  flush(): Promise<void> {
    if (this.queue.length === 0 && !this.scheduled && this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /** Commits what is queued, then refuses further appends and releases the committer. */
  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
    await this.committer.close();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // setImmediate runs after the I/O and promise callbacks of this turn, so every producer that
    // is ready now gets into the batch.
    setImmediate(() => this.dispatch());
  }

  private dispatch(): void {
    this.scheduled = false;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      this.inFlight += 1;
      let outcomes: OpOutcome[] | Promise<OpOutcome[]>;
      try {
        outcomes = this.committer.commit(batch.map((p) => p.op));
      } catch (e) {
        this.settle(batch, e);
        continue;
      }
      if (Array.isArray(outcomes)) this.settle(batch, outcomes);
      else
        outcomes.then(
          (o) => this.settle(batch, o),
          (e: unknown) => this.settle(batch, e),
        );
    }
  }

  private settle(batch: Pending[], outcomes: OpOutcome[] | unknown): void {
    this.inFlight -= 1;
    if (!Array.isArray(outcomes)) {
      for (const p of batch) p.reject(faultFor(p.op, outcomes));
    } else {
      this.stats.commits += 1;
      this.stats.largestBatch = Math.max(this.stats.largestBatch, batch.length);
      batch.forEach((p, i) => {
        const outcome = outcomes[i] as OpOutcome;
        if (!outcome.ok) {
          p.reject(outcome.error);
        } else if (outcome.kind === 'append') {
          this.stats.appended += 1;
          p.resolve(outcome.result as never);
        } else {
          this.stats.reserved += 1;
          p.resolve(outcome.outcome as never);
        }
      });
    }
    if (this.queue.length === 0 && !this.scheduled && this.inFlight === 0) {
      for (const done of this.idle.splice(0)) done();
    }
  }
}
