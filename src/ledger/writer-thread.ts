/**
 * The writer thread: owns one connection to the ledger and commits the batches it is handed, in
 * the order they arrive, each in one synchronous `BEGIN IMMEDIATE` transaction (commitOps, through
 * the same committer as a writer on the main thread, WAL backfill thread included).
 * The main thread keeps working while this one waits for fsync.
 * Owns: nothing but the loop. Must not import kernel, edges or cli.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ChioError } from '../errors.js';
import { openLedger } from './open.js';
import type { Ledger, OpenLedgerOptions } from './open.js';
import type { ReservationSync } from './write-ops.js';
import { SameThreadCommitter } from './writer.js';
import type { FromWriterThread, ToWriterThread, WireError } from './writer-thread-protocol.js';

const port = parentPort;
if (port === null) throw new Error('writer-thread.js runs only as a worker thread');

function toWire(e: unknown): WireError {
  return e instanceof ChioError
    ? { code: e.code, message: e.message }
    : { code: 'CHIO-LEDGER-APPEND-FAILED', message: String((e as Error)?.message ?? e) };
}

const send = (msg: FromWriterThread) => port.postMessage(msg);

function serve(ledger: Ledger, committer: SameThreadCommitter): void {
  port!.on('message', (msg: ToWriterThread) => {
    if (msg.type === 'close') {
      void committer.close().then(() => {
        ledger.close();
        port!.close();
      });
      return;
    }
    try {
      const outcomes = committer.commit(msg.ops);
      send({
        type: 'committed',
        id: msg.id,
        outcomes: outcomes.map((o) => (o.ok ? o : { ok: false, error: toWire(o.error) })),
      });
    } catch (e) {
      send({ type: 'failed', id: msg.id, error: toWire(e) });
    }
  });
}

const { path, options, reservationSync, walBackfill } = workerData as {
  path: string;
  options: OpenLedgerOptions;
  reservationSync: ReservationSync;
  walBackfill: boolean;
};
try {
  const ledger = openLedger(path, { ...options, readonly: false });
  serve(ledger, new SameThreadCommitter(ledger, reservationSync, walBackfill));
  send({ type: 'ready' });
} catch (e) {
  send({ type: 'fault', error: toWire(e) }); // the thread then ends: nothing keeps it alive
  port.close();
}
