// SQLite's WAL checkpoints off the commit path: a busy writer's log is copied into the database file by a thread of its own, the writer keeps a backstop, and nothing acknowledged is lost when the process dies mid-copy.
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { LedgerWriter, openLedger, verifyChain, WalBackfiller } from '../../src/ledger/index.js';
import type { Ledger } from '../../src/ledger/index.js';
import { waitFor } from '../helpers/acp-proxy-client.js';
import { mixedReceipt } from '../helpers/receipts.js';
import { tempDir } from '../helpers/tmp.js';

const WORKER = fileURLToPath(new URL('../helpers/append-worker.mjs', import.meta.url));
const dir = tempDir();
let n = 0;
const freshPath = () => join(dir, `backfill-${++n}.sqlite`);
const autocheckpoint = (ledger: Ledger) => ledger.db.pragma('wal_autocheckpoint', { simple: true });

/** Lone appends, one commit each (~10 WAL pages apiece). */
async function appendLone(writer: LedgerWriter, from: number, count: number): Promise<void> {
  for (let i = from; i < from + count; i++) await writer.append({ receipt: mixedReceipt(i), sessionId: `s${i % 3}` });
}

describe('WAL backfill thread', () => {
  it('a writer that has committed 32 batches copies its log into the database file on another thread; its own commits wait for a 4000-page backstop', async () => {
    const path = freshPath();
    const ledger = openLedger(path);
    const writer = new LedgerWriter(ledger);
    await appendLone(writer, 0, 31);
    expect(writer.walBackfiller).toBeUndefined(); // a short-lived writer never starts the thread
    expect(autocheckpoint(ledger)).toBe(1000);
    await appendLone(writer, 31, 1);
    const backfiller = await waitFor(() => writer.walBackfiller?.stats.running && writer.walBackfiller, 'the thread');
    expect(autocheckpoint(ledger)).toBe(4000);

    // 250 lone commits write ~2,500 pages: under the writer's backstop, so any growth of the
    // database file is the thread's copy.
    const before = statSync(path).size;
    const passesBefore = backfiller.stats.passes;
    await appendLone(writer, 32, 250);
    await waitFor(() => statSync(path).size > before + 400_000, 'the database file to grow');
    expect(backfiller.stats.passes).toBeGreaterThan(passesBefore);

    expect(verifyChain(ledger)).toMatchObject({ ok: true, entries: 282 });
    await writer.close();
    expect(backfiller.stats.running).toBe(false);
    expect(autocheckpoint(ledger)).toBe(1000);
    ledger.close();
    // The thread's connection was closed with the writer: the ledger's close was the last one, so
    // SQLite folded the log into the file and removed it.
    expect(existsSync(`${path}-wal`)).toBe(false);
    const reopened = openLedger(path, { readonly: true });
    expect(verifyChain(reopened)).toMatchObject({ ok: true, entries: 282, sessions: 3 });
    reopened.close();
  });

  it('a writer opened without it never starts the thread and keeps SQLite’s own checkpoints', async () => {
    const ledger = openLedger(freshPath());
    const writer = new LedgerWriter(ledger, { walBackfill: false });
    await appendLone(writer, 0, 60);
    expect(writer.walBackfiller).toBeUndefined();
    expect(autocheckpoint(ledger)).toBe(1000);
    await writer.close();
    ledger.close();
  });

  it('a thread that dies gives the writer back its own checkpoints, and appends go on', async () => {
    const path = freshPath();
    const ledger = openLedger(path);
    const writer = new LedgerWriter(ledger);
    await appendLone(writer, 0, 32);
    const backfiller = await waitFor(() => writer.walBackfiller?.stats.running && writer.walBackfiller, 'the thread');
    expect(autocheckpoint(ledger)).toBe(4000);
    await backfiller.terminate(); // as a crash inside the thread would end it
    expect(backfiller.stats.running).toBe(false);
    expect(autocheckpoint(ledger)).toBe(1000);
    // With the default back, the writer's commits copy the log themselves: ~1,500 pages pass its
    // 1,000-page threshold, so the file grows.
    const before = statSync(path).size;
    await appendLone(writer, 32, 150);
    expect(statSync(path).size).toBeGreaterThan(before);
    const observer = new Database(path, { readonly: true });
    expect(observer.prepare('SELECT count(*) AS n FROM ledger_entries').get()).toEqual({ n: 182 });
    observer.close();
    expect(verifyChain(ledger)).toMatchObject({ ok: true, entries: 182 });
    await writer.close();
    ledger.close();
  });

  it('the thread leaves alone a file swapped in under the ledger’s name (not a Chio ledger)', async () => {
    const ledger = openLedger(freshPath());
    const foreign = join(dir, 'foreign.sqlite');
    const db = new Database(foreign);
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE t (x)');
    db.close();
    // The thread opens the file by name: give it a ledger whose name now leads elsewhere.
    const backfiller = new WalBackfiller({ ...ledger, db: ledger.db, path: foreign } as Ledger);
    backfiller.committed();
    await backfiller.exited;
    expect(backfiller.stats).toEqual({ running: false, passes: 0 });
    expect(autocheckpoint(ledger)).toBe(1000);
    await backfiller.close();
    ledger.close();
  }, 20_000);

  it('a process that ends without closing its writer exits: the thread never keeps it alive', async () => {
    const db = freshPath();
    const child = spawn(process.execPath, [WORKER, db, '9', 'unclosed', '100'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      child.on('close', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    expect({ code, stdout, stderr }).toEqual({ code: 0, stdout: 'appended\n', stderr: '' });
    const ledger = openLedger(db, { readonly: true });
    expect(verifyChain(ledger)).toMatchObject({ ok: true, entries: 100 });
    ledger.close();
  }, 30_000);

  it('SIGKILL while the thread copies the log: every id printed after its append resolved is in the ledger, and the chain verifies', async () => {
    for (let round = 0; round < 3; round++) {
      const db = freshPath();
      const child = spawn(process.execPath, [WORKER, db, String(round), 'crash'], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      await waitFor(() => stdout.includes('backfilling\n'), `the thread in round ${round}: ${stderr}`, 20_000);
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 300)));
      const closed = new Promise((r) => child.on('close', r));
      child.kill('SIGKILL');
      await closed;
      const printed = stdout.split('\n').filter((line) => /^[0-9a-f]{64}$/.test(line));
      const ledger = openLedger(db, { readonly: true });
      const stored = new Set(
        (ledger.db.prepare('SELECT receipt_id FROM ledger_entries').all() as Array<{ receipt_id: string }>).map(
          (r) => r.receipt_id,
        ),
      );
      expect(printed.length).toBeGreaterThan(32);
      expect(printed.filter((id) => !stored.has(id))).toEqual([]);
      expect(verifyChain(ledger)).toMatchObject({ ok: true, entries: stored.size });
      ledger.close();
    }
  }, 60_000);
});
