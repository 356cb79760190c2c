/**
 * The WAL backfill thread: copies committed WAL frames into the database file on its own
 * connection while the writer goes on committing, so that the writer's COMMIT does not have to.
 * SQLite calls this copy a checkpoint (https://sqlite.org/wal.html#checkpointing); it has nothing
 * to do with the ledger's signed tree checkpoints (checkpoints.ts).
 * Owns: the timer loop of wal-backfill.ts's thread. Imports better-sqlite3 and the ledger's
 * application id only; must not import the rest of the ledger, kernel, edges or cli.
 *
 * Each tick that follows a commit (the writer counts its commits in shared memory) runs
 * `PRAGMA wal_checkpoint(PASSIVE)`, which never takes the write lock and never waits for a writer
 * or a reader. It cannot restart the log while commits keep coming (SQLite rewinds the log only
 * when a write begins on a fully copied one): the writer's own backstop checkpoint does that, and
 * finds almost nothing left to copy. A `RESTART` checkpoint here was tried and left out: under a
 * zero busy timeout it almost never found the write lock free, and with one it would stall commits.
 */
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { CHIO_APPLICATION_ID } from './application-id.js';
import type { BackfillThreadData, FromBackfillThread } from './wal-backfill.js';

const port = parentPort;
if (port === null) throw new Error('wal-backfill-thread.js runs only as a worker thread');

const { path, counters, intervalMs } = workerData as BackfillThreadData;
const shared = new Int32Array(counters);
const send = (msg: FromBackfillThread) => port.postMessage(msg);

function open(): Database.Database {
  const db = new Database(path, { fileMustExist: true });
  try {
    // Only the file the writer opened as a ledger is worked on: a file swapped in under its name
    // since then is left alone.
    if (db.pragma('application_id', { simple: true }) !== CHIO_APPLICATION_ID)
      throw new Error(`${path} is no longer a Chio ledger`);
    if (db.pragma('journal_mode', { simple: true }) !== 'wal') throw new Error(`${path} is not in WAL mode`);
    db.pragma('busy_timeout = 0');
    db.pragma('synchronous = FULL'); // the copy is fsynced before the WAL can be reused
    return db;
  } catch (e) {
    db.close();
    throw e;
  }
}

function pass(db: Database.Database): void {
  db.pragma('wal_checkpoint(PASSIVE)');
  Atomics.add(shared, 1, 1);
}

function run(db: Database.Database): void {
  let seen = Atomics.load(shared, 0);
  const timer = setInterval(() => {
    const commits = Atomics.load(shared, 0);
    if (commits === seen) return;
    seen = commits;
    try {
      pass(db);
    } catch (e) {
      // A pass that failed (an I/O error, the file gone) ends the thread; the writer then goes
      // back to checkpointing inside its own commits.
      clearInterval(timer);
      db.close();
      send({ type: 'fault', message: String((e as Error)?.message ?? e) });
      port!.close();
    }
  }, intervalMs);
  port!.on('message', (msg: { type: 'close' }) => {
    if (msg.type !== 'close') return;
    clearInterval(timer);
    db.close();
    port!.close();
  });
  send({ type: 'ready' });
}

try {
  run(open());
} catch (e) {
  send({ type: 'fault', message: String((e as Error)?.message ?? e) }); // the thread then ends
  port.close();
}
