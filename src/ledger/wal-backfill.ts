/**
 * WAL backfill off the commit path. In WAL mode SQLite copies the log into the database file (a
 * "checkpoint", https://sqlite.org/wal.html#ckpt) inside whichever COMMIT takes the log past
 * `wal_autocheckpoint` pages (1,000 by default): with ~10 pages per lone receipt, one governed call
 * in ~100 waits for a thousand page copies and an fsync of the database file. A busy writer hands
 * that copy to a thread of its own (wal-backfill-thread.ts, its own connection) and raises its own
 * `wal_autocheckpoint` to a backstop, so its commits checkpoint only when the thread cannot keep up.
 * Owns: the thread's lifetime and the writer connection's autocheckpoint setting while it runs.
 * Must not import kernel, edges or cli.
 *
 * Nothing durable depends on the thread: a checkpoint only copies what is already committed, an
 * interrupted one is redone by the next (SQLite keeps the log until the copy is synced). If the
 * thread fails or ends, the writer's connection goes back to the default `wal_autocheckpoint`, so
 * the log is bounded whether the thread runs or not.
 */
import { Worker } from 'node:worker_threads';
import type { Ledger } from './open.js';

/** What the thread is started with (structured-clone data). */
export interface BackfillThreadData {
  path: string;
  /** Int32 slots: [0] commits by the writer, [1] passes the thread made. */
  counters: SharedArrayBuffer;
  intervalMs: number;
}

export type FromBackfillThread = { type: 'ready' } | { type: 'fault'; message: string };

/** SQLite's default, restored whenever the thread is not running. */
const DEFAULT_AUTOCHECKPOINT = 1000;
/** The writer's own checkpoints while the thread runs: only when the log reaches 16 MiB. */
const BACKSTOP_AUTOCHECKPOINT = 4000;
const INTERVAL_MS = 50;

const WORKER_URL = import.meta.url.endsWith('.ts')
  ? new URL('../../dist/src/ledger/wal-backfill-thread.js', import.meta.url)
  : new URL('./wal-backfill-thread.js', import.meta.url);

export interface WalBackfillStats {
  /** Whether the thread is running and the writer's own checkpoints wait for the backstop. */
  running: boolean;
  /** Passes the thread made over a log with new commits. */
  passes: number;
}

export class WalBackfiller {
  private readonly counters = new Int32Array(new SharedArrayBuffer(8));
  private readonly worker: Worker;
  private running = false;
  private ended = false;
  /** Resolves when the thread has ended (closed, failed, or terminated). */
  readonly exited: Promise<void>;

  /** Starts the thread for `ledger`'s file; the writer's commits checkpoint as before until it is ready. */
  constructor(
    private readonly ledger: Ledger,
    intervalMs = INTERVAL_MS,
  ) {
    const data: BackfillThreadData = {
      path: ledger.path,
      counters: this.counters.buffer as SharedArrayBuffer,
      intervalMs,
    };
    this.worker = new Worker(WORKER_URL, { workerData: data });
    this.worker.on('message', (msg: FromBackfillThread) => {
      if (msg.type === 'ready' && !this.ended) this.setAutocheckpoint(BACKSTOP_AUTOCHECKPOINT, true);
      else if (msg.type === 'fault') this.stopped();
    });
    this.worker.on('error', () => this.stopped());
    this.exited = new Promise((resolve) =>
      this.worker.once('exit', () => {
        this.stopped();
        resolve();
      }),
    );
    // Never keeps a process alive: the work it skips is redone by the next COMMIT. (After the
    // listeners: adding a 'message' listener refs the worker again.)
    this.worker.unref();
  }

  /** Called by the writer after each commit (one atomic add). */
  committed(): void {
    Atomics.add(this.counters, 0, 1);
  }

  get stats(): WalBackfillStats {
    return { running: this.running, passes: Atomics.load(this.counters, 1) };
  }

  /** Ends the thread (its connection closes) and gives the writer back its own checkpoints. */
  async close(): Promise<void> {
    this.stopped();
    this.worker.ref(); // the process waits for the connection to close
    this.worker.postMessage({ type: 'close' });
    await this.exited;
  }

  /** Ends the thread at once, as a crash in it would (no orderly close of its connection). */
  async terminate(): Promise<void> {
    await this.worker.terminate();
    await this.exited;
  }

  private stopped(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.running) this.setAutocheckpoint(DEFAULT_AUTOCHECKPOINT, false);
  }

  private setAutocheckpoint(pages: number, running: boolean): void {
    // Runs between commits: the writer's transactions are synchronous on this thread.
    if (!this.ledger.db.open) return;
    this.ledger.db.pragma(`wal_autocheckpoint = ${pages}`);
    this.running = running;
  }
}
