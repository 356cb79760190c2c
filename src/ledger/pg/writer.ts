/**
 * Group commit on PostgreSQL (DESIGN §6, §11): one writer per producer process. Reservations of
 * calls about to run and receipts of calls that finished, handed over while a commit is in flight,
 * are committed together in the next transaction, in arrival order (as SQLite's shared commits,
 * ../write-ops.ts), and each promise settles only after that transaction's COMMIT. Across
 * processes and hosts the append lock (append.ts) serializes the transactions, so the chain stays
 * contiguous and a reservation sees every budget use committed before it.
 * A receipt already in the ledger, or a request id already reserved, is refused alone; any other
 * fault (a lost connection, a refused insert) rolls the batch back and rejects every op in it:
 * nothing is half-written, the governed calls fail closed, and the next batch takes a fresh
 * connection.
 * Owns: batching on PostgreSQL. Must not import kernel, edges or cli.
 */
import type pg from 'pg';
import { ChioError } from '../../errors.js';
import { prepareEntry } from '../append.js';
import type { AppendRequest, AppendResult } from '../append.js';
import type { CallReservation, ReserveOutcome } from '../reservations.js';
import { faultFor } from '../write-ops.js';
import type { WriteOp } from '../write-ops.js';
import { insertLinked, lockHead } from './append.js';
import type { Head } from './append.js';
import type { PgLedger } from './open.js';
import { reserveInTransactionPg } from './reservations.js';

interface Pending {
  op: WriteOp;
  resolve(result: AppendResult | ReserveOutcome): void;
  reject(error: unknown): void;
}

export interface PgLedgerWriterStats {
  commits: number;
  appended: number;
  reserved: number;
  largestBatch: number;
}

export class PgLedgerWriter {
  private queue: Pending[] = [];
  private flushing: Promise<void> | null = null;
  private closed = false;
  readonly stats: PgLedgerWriterStats = { commits: 0, appended: 0, reserved: 0, largestBatch: 0 };

  constructor(
    readonly ledger: PgLedger,
    private readonly maxBatch = 256,
  ) {}

  /** Resolves after COMMIT with the entry's position; rejects (nothing appended) on any failure. */
  append(request: AppendRequest): Promise<AppendResult> {
    // Invalid receipts are refused here, before they could share a transaction with others.
    return this.enqueue({ kind: 'append', entry: prepareEntry(request) }) as Promise<AppendResult>;
  }

  /**
   * Reserves a call; resolves after COMMIT with the grant reserved, or the budget's refusal. Rejects
   * with CHIO-LEDGER-APPEND-FAILED when the reservation cannot be recorded: the call must not run.
   */
  reserve(reservation: CallReservation): Promise<ReserveOutcome> {
    return this.enqueue({ kind: 'reserve', reservation }) as Promise<ReserveOutcome>;
  }

  private enqueue(op: WriteOp): Promise<AppendResult | ReserveOutcome> {
    if (this.closed) return Promise.reject(new ChioError('CHIO-LEDGER-CLOSED', 'the ledger writer is closed'));
    return new Promise((resolve, reject) => {
      this.queue.push({ op, resolve, reject });
      this.flushing ??= this.flushQueue();
    });
  }

  /** Resolves when everything handed over so far has been committed or refused. */
  async flush(): Promise<void> {
    while (this.flushing !== null) await this.flushing;
  }

  private async flushQueue(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.maxBatch);
        await this.commit(batch);
      }
    } finally {
      this.flushing = null;
    }
  }

  private async commit(batch: Pending[]): Promise<void> {
    let client: pg.PoolClient;
    try {
      client = await this.ledger.pool.connect();
    } catch (e) {
      for (const p of batch) p.reject(faultFor(p.op, e));
      return;
    }
    let broken = false;
    let results: Array<AppendResult | ReserveOutcome | ChioError>;
    try {
      await client.query('BEGIN');
      results = await runOps(
        client,
        batch.map((p) => p.op),
        await lockHead(client),
      );
      await client.query('COMMIT');
    } catch (e) {
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      for (const p of batch) p.reject(faultFor(p.op, e));
      return;
    } finally {
      client.release(broken ? true : undefined);
    }
    this.stats.commits += 1;
    this.stats.largestBatch = Math.max(this.stats.largestBatch, batch.length);
    batch.forEach((p, i) => {
      const r = results[i]!;
      if (r instanceof ChioError) return p.reject(r);
      if (p.op.kind === 'append') this.stats.appended += 1;
      else if ((r as ReserveOutcome).ok) this.stats.reserved += 1;
      p.resolve(r);
    });
  }

  /** Waits for every accepted op to settle; later ones are refused. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }
}

/**
 * Runs a batch's ops in arrival order inside the transaction: each run of consecutive receipts is
 * linked and inserted set-based (one statement per table), each reservation sees everything before
 * it. Results are in op order; a refused op is its ChioError.
 */
async function runOps(
  client: pg.PoolClient,
  ops: readonly WriteOp[],
  head: Head | null,
): Promise<Array<AppendResult | ReserveOutcome | ChioError>> {
  const results: Array<AppendResult | ReserveOutcome | ChioError> = [];
  let at = head;
  for (let i = 0; i < ops.length; ) {
    const op = ops[i]!;
    if (op.kind === 'reserve') {
      results.push(await reserveInTransactionPg(client, op.reservation));
      i += 1;
      continue;
    }
    let end = i;
    while (end < ops.length && ops[end]!.kind === 'append') end += 1;
    const run = ops.slice(i, end).map((o) => (o as Extract<WriteOp, { kind: 'append' }>).entry);
    const linked = (await insertLinked(client, run, at)).results;
    for (const r of linked) {
      results.push(r);
      if (!(r instanceof ChioError)) at = { seq: r.seq, entryHash: r.entryHash };
    }
    i = end;
  }
  return results;
}
