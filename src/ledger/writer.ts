/**
 * Group commit (DESIGN §6): appends that arrive together are committed in one `BEGIN IMMEDIATE`
 * transaction, so one fsync (synchronous=FULL) covers many receipts. Each append's promise
 * resolves only after COMMIT returned: a producer that awaits it never answers its caller before
 * the receipt is durable. If the commit fails, every append in the batch rejects and nothing of
 * the batch is in the ledger: the governed calls fail closed.
 * Owns: batching and the append promise contract. Must not import kernel, edges or cli.
 *
 * One entry that cannot be inserted (a duplicate receipt id) must not sink its neighbours: the
 * inserter refuses a duplicate before writing anything for it, so the batch simply skips it.
 * Any other failure is a fault and aborts the whole batch.
 */
import { ChioError } from '../errors.js';
import { appendFailed, EntryInserter, prepareEntry } from './append.js';
import type { AppendRequest, AppendResult, PreparedEntry } from './append.js';
import type { Ledger } from './open.js';

interface Pending {
  entry: PreparedEntry;
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
}

export interface LedgerWriterOptions {
  /** Most entries committed in one transaction. */
  maxBatch?: number;
}

export interface LedgerWriterStats {
  appended: number;
  commits: number;
  largestBatch: number;
}

export class LedgerWriter {
  private readonly inserter: EntryInserter;
  private readonly maxBatch: number;
  private queue: Pending[] = [];
  private scheduled = false;
  private closed = false;
  private readonly idle: Array<() => void> = [];
  readonly stats: LedgerWriterStats = { appended: 0, commits: 0, largestBatch: 0 };

  constructor(readonly ledger: Ledger, options: LedgerWriterOptions = {}) {
    if (ledger.readonly) throw new ChioError('CHIO-LEDGER-APPEND-FAILED', 'the ledger was opened read-only');
    this.inserter = new EntryInserter(ledger);
    this.maxBatch = options.maxBatch ?? 512;
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
      this.queue.push({ entry, resolve, reject });
      this.schedule();
    });
  }

  /** Resolves when everything queued so far has been committed (or rejected). */
  flush(): Promise<void> {
    if (this.queue.length === 0 && !this.scheduled) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /** Commits what is queued, then refuses further appends. Does not close the ledger. */
  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // setImmediate runs after the I/O and promise callbacks of this turn, so every producer that
    // is ready now gets into the batch.
    setImmediate(() => this.commitBatch());
  }

  private commitBatch(): void {
    this.scheduled = false;
    const batch = this.queue.splice(0, this.maxBatch);
    if (batch.length > 0) this.commit(batch);
    if (this.queue.length > 0) {
      this.schedule();
    } else {
      for (const done of this.idle.splice(0)) done();
    }
  }

  private commit(batch: Pending[]): void {
    const outcomes: Array<{ ok: true; result: AppendResult } | { ok: false; error: unknown }> = [];
    const inserter = this.inserter;
    const db = this.ledger.db;
    try {
      db.transaction(() => {
        outcomes.length = 0;
        for (const p of batch) {
          try {
            outcomes.push({ ok: true, result: inserter.insertLinked(p.entry) });
          } catch (e) {
            if (!(e instanceof ChioError)) throw e; // an I/O fault aborts the whole batch
            outcomes.push({ ok: false, error: e });
          }
        }
      }).immediate();
    } catch (e) {
      const error = appendFailed(e);
      for (const p of batch) p.reject(error);
      return;
    }
    this.stats.commits += 1;
    this.stats.largestBatch = Math.max(this.stats.largestBatch, batch.length);
    batch.forEach((p, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) {
        this.stats.appended += 1;
        p.resolve(outcome.result);
      } else {
        p.reject(outcome.error);
      }
    });
  }
}
