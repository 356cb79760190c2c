/**
 * Group commit on PostgreSQL (DESIGN §6, §11): one writer per producer process. Appends that
 * arrive while a commit is in flight are committed together in the next transaction, in arrival
 * order, and each promise resolves only after that transaction's COMMIT. Across processes and
 * hosts the append lock (append.ts) serializes the transactions, so the chain stays contiguous.
 * A receipt already in the ledger is refused alone; any other fault (a lost connection, a
 * refused insert) rolls the batch back and rejects every append in it: nothing is half-written,
 * the governed calls fail closed, and the next batch takes a fresh connection.
 * Owns: batching on PostgreSQL. Must not import kernel, edges or cli.
 */
import type pg from 'pg';
import { ChioError } from '../../errors.js';
import { appendFailed, prepareEntry } from '../append.js';
import type { AppendRequest, AppendResult, PreparedEntry } from '../append.js';
import { insertLinked, lockHead } from './append.js';
import type { PgLedger } from './open.js';

interface Pending {
  entry: PreparedEntry;
  resolve(result: AppendResult): void;
  reject(error: unknown): void;
}

export interface PgLedgerWriterStats {
  commits: number;
  appended: number;
  largestBatch: number;
}

export class PgLedgerWriter {
  private queue: Pending[] = [];
  private flushing: Promise<void> | null = null;
  private closed = false;
  readonly stats: PgLedgerWriterStats = { commits: 0, appended: 0, largestBatch: 0 };

  constructor(readonly ledger: PgLedger, private readonly maxBatch = 256) {}

  /** Resolves after COMMIT with the entry's position; rejects (nothing appended) on any failure. */
  append(request: AppendRequest): Promise<AppendResult> {
    if (this.closed) return Promise.reject(new ChioError('CHIO-LEDGER-CLOSED', 'the ledger writer is closed'));
    // Invalid receipts are refused here, before they could share a transaction with others.
    const entry = prepareEntry(request);
    return new Promise((resolve, reject) => {
      this.queue.push({ entry, resolve, reject });
      this.flushing ??= this.flush();
    });
  }

  private async flush(): Promise<void> {
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
      for (const p of batch) p.reject(appendFailed(e));
      return;
    }
    let broken = false;
    let results: Array<AppendResult | ChioError>;
    try {
      await client.query('BEGIN');
      // A duplicate is found by a SELECT before anything is written: it is refused alone.
      ({ results } = await insertLinked(client, batch.map((p) => p.entry), await lockHead(client)));
      await client.query('COMMIT');
    } catch (e) {
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      for (const p of batch) p.reject(appendFailed(e));
      return;
    } finally {
      client.release(broken ? true : undefined);
    }
    const done = results.filter((r) => !(r instanceof ChioError)).length;
    this.stats.commits += 1;
    this.stats.appended += done;
    this.stats.largestBatch = Math.max(this.stats.largestBatch, batch.length);
    batch.forEach((p, i) => {
      const r = results[i]!;
      if (r instanceof ChioError) p.reject(r);
      else p.resolve(r);
    });
  }

  /** Waits for every accepted append to settle; later appends are refused. */
  async close(): Promise<void> {
    this.closed = true;
    while (this.flushing !== null) await this.flushing;
  }
}
