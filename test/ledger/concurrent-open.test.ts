// Producers that start together never fail: many real processes opening (creating, migrating,
// switching to WAL) one fresh file at the same moment, beside readers and a writer mid-append.
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { appendReceiptSync, openLedger, verifyChain } from '../../src/ledger/index.js';
import { mixedReceipt } from '../helpers/receipts.js';
import { tempDir } from '../helpers/tmp.js';

const WORKER = fileURLToPath(new URL('../helpers/open-race-worker.mjs', import.meta.url));
const dir = tempDir();

type Outcome = { ok: true; seq?: number; entries?: number } | { ok: false; code: string; message: string };

type Result = { mode: string; outcome: Outcome; stderr: string };

/** Starts every worker and waits until all are loaded; `go()` releases them at once. */
async function start(db: string, modes: Array<'kernel' | 'verify'>): Promise<{ go: () => Promise<Result[]> }> {
  const children = modes.map((mode, i) => {
    const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [WORKER, db, mode, String(i)], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const ready = new Promise<void>((resolve) => {
      child.stdout.on('data', (d) => {
        stdout += d;
        if (stdout.startsWith('ready\n')) resolve();
      });
      child.on('close', () => resolve()); // died while loading: reported as NO-OUTPUT below
    });
    child.stderr.on('data', (d) => (stderr += d));
    const done = new Promise<Result>((resolve) => {
      child.on('close', () => {
        const line = stdout.split('\n')[1] ?? '';
        let outcome: Outcome;
        try {
          outcome = JSON.parse(line) as Outcome;
        } catch {
          outcome = { ok: false, code: 'NO-OUTPUT', message: stderr };
        }
        resolve({ mode, outcome, stderr });
      });
    });
    return { child, ready, done };
  });
  await Promise.all(children.map((c) => c.ready));
  return {
    go: () => {
      for (const c of children) c.child.stdin.end('go\n');
      return Promise.all(children.map((c) => c.done));
    },
  };
}

const race = async (db: string, modes: Array<'kernel' | 'verify'>) => (await start(db, modes)).go();

/**
 * Starts `n` kernels, takes the write lock on `holder` (BEGIN IMMEDIATE, as an append or a WAL
 * switch does), releases the kernels, keeps the lock a moment while they open, then lets go.
 */
async function racersAgainstLock(db: string, holder: Database.Database, n: number): Promise<Result[]> {
  const racers = await start(db, Array(n).fill('kernel'));
  holder.prepare('BEGIN IMMEDIATE').run();
  try {
    const running = racers.go();
    await new Promise((r) => setTimeout(r, 300));
    holder.prepare('COMMIT').run();
    return await running;
  } finally {
    if (holder.inTransaction) holder.prepare('ROLLBACK').run();
  }
}

function expectAllOk(results: Result[]): void {
  expect(results.filter((r) => !r.outcome.ok)).toEqual([]);
}

function expectLedger(db: string, producers: number): void {
  const ledger = openLedger(db, { readonly: true });
  try {
    expect(verifyChain(ledger)).toMatchObject({ ok: true, entries: producers });
    const seqs = ledger.db
      .prepare('SELECT min(seq) AS lo, max(seq) AS hi, count(DISTINCT producer) AS p FROM ledger_entries')
      .get();
    expect(seqs).toEqual({ lo: 1, hi: producers, p: producers });
  } finally {
    ledger.close();
  }
}

describe('producers that start together', () => {
  it('12 kernels started at the same moment on a path that does not exist yet, 3 rounds: every start succeeds and the chain verifies', async () => {
    for (let round = 0; round < 3; round++) {
      const db = join(dir, `fresh-${round}.sqlite`);
      const results = await race(db, Array(12).fill('kernel'));
      expectAllOk(results);
      expectLedger(db, 12);
    }
    // Nothing of the build-and-link creation is left beside the ledgers.
    expect(readdirSync(dir).filter((f) => f.includes('.creating-'))).toEqual([]);
  });

  it('12 kernels on a zero-byte file (initialised in place, where the WAL switch races): every start succeeds', async () => {
    const db = join(dir, 'touched.sqlite');
    writeFileSync(db, '');
    const results = await race(db, Array(12).fill('kernel'));
    expectAllOk(results);
    expectLedger(db, 12);
  });

  it('read-only verifiers racing the creation of a fresh file see either no file yet or a whole ledger, never a damaged or foreign one', async () => {
    const db = join(dir, 'watched.sqlite');
    const results = await race(db, [...Array(8).fill('kernel'), ...Array(4).fill('verify')]);
    expectAllOk(results);
    expect(results.filter((r) => r.mode === 'verify')).toHaveLength(4);
    expectLedger(db, 8);
  });

  it('kernels that open while another connection is mid-append (holding the write lock) wait and succeed', async () => {
    const db = join(dir, 'busy.sqlite');
    const holder = openLedger(db);
    appendReceiptSync(holder, { receipt: mixedReceipt(1) });
    let results: Result[];
    try {
      // The racers' opens, migration check, recovery and appends must wait for the lock, not fail.
      results = await racersAgainstLock(db, holder.db, 8);
    } finally {
      holder.close();
    }
    expectAllOk(results);
    const ledger = openLedger(db, { readonly: true });
    expect(verifyChain(ledger)).toMatchObject({ ok: true, entries: 9 });
    ledger.close();
  });

  it('kernels that open a zero-byte file while another process holds its lock (as when it switches the file to WAL) wait and succeed', async () => {
    // The switch to WAL reads the header under a shared lock and then needs the write lock; SQLite
    // answers SQLITE_BUSY at once there instead of calling the busy handler. Before the open
    // retried, every racer here died with "database is locked".
    const db = join(dir, 'switching.sqlite');
    writeFileSync(db, '');
    const holder = new Database(db);
    let results: Result[];
    try {
      results = await racersAgainstLock(db, holder, 4);
    } finally {
      holder.close();
    }
    expectAllOk(results);
    expectLedger(db, 4);
  });
});

describe('an open that cannot get the lock', () => {
  it('retries until the busy timeout is spent, then fails with CHIO-LEDGER-BUSY and leaves the file unchanged', () => {
    const db = join(dir, 'locked.sqlite');
    writeFileSync(db, '');
    // Another program holds an exclusive lock on the (not yet WAL) file: the WAL switch cannot happen.
    const other = new Database(db);
    other.exec('BEGIN EXCLUSIVE');
    const before = createHash('sha256').update(readFileSync(db)).digest('hex');
    try {
      expect(() => openLedger(db, { busyTimeoutMs: 200 })).toThrowError(
        expect.objectContaining({ code: 'CHIO-LEDGER-BUSY' }),
      );
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    expect(createHash('sha256').update(readFileSync(db)).digest('hex')).toBe(before);
    expect(existsSync(`${db}-wal`)).toBe(false);
  });
});
