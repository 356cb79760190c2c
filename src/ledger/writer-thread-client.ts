/**
 * The main-thread side of the writer thread: starts it, hands it batches in order, and turns its
 * answers back into outcomes and ChioErrors. If the thread dies, every batch it held rejects with
 * CHIO-LEDGER-APPEND-FAILED and so does every later one: appends fail closed.
 * Owns: the message protocol with writer-thread.ts. Must not import kernel, edges or cli.
 */
import { Worker } from 'node:worker_threads';
import { ChioError } from '../errors.js';
import type { ChioErrorCode } from '../errors.js';
import type { OpOutcome, ReservationSync, WriteOp } from './write-ops.js';
import type { OpenLedgerOptions } from './open.js';
import type { FromWriterThread, WireError, WireOutcome } from './writer-thread-protocol.js';

/**
 * The thread runs compiled JavaScript. Under the test runner this module is TypeScript source, so
 * the thread is taken from the build (`npm test` builds first); in the package it sits beside us.
 */
const WORKER_URL = import.meta.url.endsWith('.ts')
  ? new URL('../../dist/src/ledger/writer-thread.js', import.meta.url)
  : new URL('./writer-thread.js', import.meta.url);

function fromWire(e: WireError): ChioError {
  return new ChioError(e.code as ChioErrorCode, e.message);
}

export class ThreadCommitter {
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (o: OpOutcome[]) => void; reject: (e: ChioError) => void }>();
  private dead: ChioError | null = null;
  private closing: (() => void) | null = null;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (msg: FromWriterThread) => this.receive(msg));
    worker.on('error', (e) =>
      this.die(new ChioError('CHIO-LEDGER-APPEND-FAILED', `the writer thread failed: ${e.message}`, { cause: e })),
    );
    worker.on('exit', (code) => {
      this.die(new ChioError('CHIO-LEDGER-APPEND-FAILED', `the writer thread exited (code ${code})`));
      this.closing?.();
    });
    worker.unref();
  }

  /** Starts the thread and waits until it has opened (and if need be created) the ledger. */
  static start(
    path: string,
    options: OpenLedgerOptions,
    reservationSync: ReservationSync = 'full',
    walBackfill = true,
  ): Promise<ThreadCommitter> {
    const worker = new Worker(WORKER_URL, { workerData: { path, options, reservationSync, walBackfill } });
    return new Promise((resolve, reject) => {
      const onMessage = (msg: FromWriterThread) => {
        worker.off('error', onError);
        if (msg.type === 'ready') resolve(new ThreadCommitter(worker));
        else if (msg.type === 'fault') {
          reject(fromWire(msg.error));
          void worker.terminate();
        }
      };
      const onError = (e: Error) =>
        reject(
          new ChioError('CHIO-LEDGER-APPEND-FAILED', `the writer thread failed to start: ${e.message}`, { cause: e }),
        );
      worker.once('message', onMessage);
      worker.once('error', onError);
    });
  }

  commit(ops: readonly WriteOp[]): Promise<OpOutcome[]> {
    if (this.dead !== null) return Promise.reject(this.dead);
    const id = this.nextId++;
    if (this.waiting.size === 0) this.worker.ref(); // keep the process alive while a batch is out
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ type: 'commit', id, ops });
    });
  }

  close(): Promise<void> {
    if (this.dead !== null) return Promise.resolve();
    return new Promise((resolve) => {
      this.closing = resolve;
      this.worker.ref();
      this.worker.postMessage({ type: 'close' });
    });
  }

  private receive(msg: FromWriterThread): void {
    if (msg.type !== 'committed' && msg.type !== 'failed') return;
    const waiter = this.waiting.get(msg.id);
    if (waiter === undefined) return;
    this.waiting.delete(msg.id);
    if (this.waiting.size === 0) this.worker.unref();
    if (msg.type === 'failed') waiter.reject(fromWire(msg.error));
    else
      waiter.resolve(
        msg.outcomes.map((o: WireOutcome): OpOutcome => (o.ok ? o : { ok: false, error: fromWire(o.error) })),
      );
  }

  private die(error: ChioError): void {
    if (this.dead !== null) return;
    this.dead = error;
    for (const waiter of this.waiting.values()) waiter.reject(error);
    this.waiting.clear();
  }
}
