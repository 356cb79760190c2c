// Real child processes on one SQLite file: concurrent producers keep one contiguous chain; a SIGKILL loses no acknowledged receipt.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openLedger, verifyChain } from '../../src/ledger/index.js';
import { tempDir } from '../helpers/tmp.js';

const WORKER = fileURLToPath(new URL('../helpers/append-worker.mjs', import.meta.url));
const dir = tempDir();

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WORKER, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('multi-process', () => {
  it('4 processes appending 500 receipts each to one file at once → 2,000 contiguous, verified entries', async () => {
    const db = join(dir, 'concurrent.sqlite');
    const results = await Promise.all([1, 2, 3, 4].map((w) => run([db, String(w), 'batch', '500'])));
    for (const r of results) expect(r, r.stderr).toMatchObject({ code: 0, stdout: 'done\n' });
    const ledger = openLedger(db, { readonly: true });
    const seqs = ledger.db.prepare('SELECT min(seq) AS lo, max(seq) AS hi, count(*) AS n FROM ledger_entries').get();
    expect(seqs).toEqual({ lo: 1, hi: 2000, n: 2000 });
    const perWorker = ledger.db
      .prepare('SELECT producer, count(*) AS n FROM ledger_entries GROUP BY producer ORDER BY producer')
      .all();
    expect(perWorker).toEqual([1, 2, 3, 4].map((w) => ({ producer: `worker-${w}`, n: 500 })));
    // The chain, every signature, and every session chain (including the one all four shared).
    const verdict = verifyChain(ledger);
    expect(verdict).toMatchObject({ ok: true, entries: 2000, sessions: 9 });
    const shared = ledger.db
      .prepare("SELECT count(DISTINCT producer) AS p, count(*) AS n FROM ledger_entries WHERE session_id = 'shared'")
      .get();
    expect(shared).toEqual({ p: 4, n: 4 * 167 });
    ledger.close();
  });

  it('SIGKILL at a random moment: every id printed after its append resolved is in the ledger, and the chain verifies', async () => {
    // Rounds 0–1 commit on the producer's thread, rounds 2–3 on the writer thread.
    for (let round = 0; round < 4; round++) {
      const db = join(dir, `crash-${round}.sqlite`);
      const args = [WORKER, db, String(round), 'crash', ...(round >= 2 ? ['thread'] : [])];
      const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      child.stdout.on('data', (d) => (stdout += d));
      // Wait until it is appending, then kill it after a random further delay.
      await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
      await new Promise((r) => setTimeout(r, 50 + Math.floor(Math.random() * 400)));
      const closed = new Promise((r) => child.on('close', r));
      child.kill('SIGKILL');
      await closed;
      const printed = stdout.split('\n').filter((line) => /^[0-9a-f]{64}$/.test(line));
      expect(printed.length).toBeGreaterThan(0);
      const ledger = openLedger(db, { readonly: true });
      const stored = new Set(
        (ledger.db.prepare('SELECT receipt_id FROM ledger_entries').all() as Array<{ receipt_id: string }>).map(
          (r) => r.receipt_id,
        ),
      );
      expect(printed.filter((id) => !stored.has(id))).toEqual([]);
      expect(stored.size).toBeGreaterThanOrEqual(printed.length);
      expect(verifyChain(ledger)).toMatchObject({ ok: true, entries: stored.size });
      ledger.close();
    }
  });
});
