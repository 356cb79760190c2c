// A producer killed (SIGKILL) at a random moment while 16 calls are in flight, so its commits mix
// reservations of calls about to run with receipts of calls that finished: every call whose
// answer was given has its receipt in the ledger, every call whose tool ran (or was reserved to
// run) has a receipt once the next kernel has opened (recovery settles the rest as `incomplete`),
// no call has two, each
// session's receipts are in the order its calls were answered, and the chain verifies.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Kernel } from '../../src/kernel/index.js';
import { openLedger, verifyChain } from '../../src/ledger/index.js';
import { tempDir } from '../helpers/tmp.js';

const WORKER = new URL('../helpers/busy-kernel-worker.mjs', import.meta.url).pathname;
const SEED_HEX = '55'.repeat(32);

interface Row {
  seq: number;
  receipt_id: string;
  session_id: string;
  verdict: string;
  body: string;
}

async function killedRun(
  db: string,
  sync: 'full' | 'normal',
  delayMs: number,
): Promise<{ dispatched: Set<number>; acks: Array<{ n: number; id: string; seq: number }> }> {
  const child = spawn(process.execPath, [WORKER, db, SEED_HEX, '16', sync], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const closed = new Promise((r) => child.on('close', r));
  // Calls are being answered (32 of them), then the kill comes after a random further delay.
  await new Promise<void>((resolve, reject) => {
    const answered = () => {
      if ((stdout.match(/^ack /gm) ?? []).length < 32) return;
      child.stdout.off('data', answered);
      resolve();
    };
    child.stdout.on('data', answered);
    child.once('close', () => reject(new Error(`the worker ended before it answered 32 calls: ${stderr}`)));
  });
  await new Promise((r) => setTimeout(r, delayMs));
  child.kill('SIGKILL');
  await closed;
  const lines = stdout.split('\n');
  // A line cut by the kill is not counted: the caller never saw that answer.
  const dispatched = new Set(lines.flatMap((l) => /^dispatched (\d+)$/.exec(l)?.[1] ?? []).map(Number));
  const acks = lines.flatMap((l) => {
    const m = /^ack (\d+) (\S+) (\d+)$/.exec(l);
    return m === null ? [] : [{ n: Number(m[1]), id: m[2]!, seq: Number(m[3]) }];
  });
  return { dispatched, acks };
}

describe('a crash during shared commits loses nothing acknowledged', () => {
  for (const sync of ['full', 'normal'] as const) {
    it(`reservation sync ${sync}: three kills at random moments; every answered call is in the ledger, every dispatched call gets exactly one receipt, the chain verifies`, async () => {
      const dir = tempDir();
      for (let round = 0; round < 3; round++) {
        const db = join(dir, `busy-${sync}-${round}.sqlite`);
        const { dispatched, acks } = await killedRun(db, sync, Math.floor(Math.random() * 300));
        expect(acks.length, 'the worker answered calls before it was killed').toBeGreaterThanOrEqual(32);

        const before = openLedger(db, { readonly: true });
        const stored = new Map(
          (before.db.prepare('SELECT seq, receipt_id FROM ledger_entries').all() as Row[]).map((r) => [
            r.receipt_id,
            r.seq,
          ]),
        );
        before.close();
        // Acknowledged means committed: the receipt is there, at the position the caller was told.
        expect(acks.filter((a) => stored.get(a.id) !== a.seq)).toEqual([]);

        // The product started again on the file: recovery settles the killed producer's calls.
        const kernel = Kernel.open({
          ledgerPath: db,
          seed: Uint8Array.from(Buffer.from(SEED_HEX, 'hex')),
          checkpoints: false,
        });
        expect(kernel.lastRecovery.left).toEqual([]);
        await kernel.close();

        const ledger = openLedger(db, { readonly: true });
        try {
          const rows = ledger.db
            .prepare(
              "SELECT seq, receipt_id, session_id, verdict, body FROM ledger_entries WHERE kind = 'receipt' ORDER BY seq",
            )
            .all() as Row[];
          const byCall = new Map<number, Row[]>();
          for (const r of rows) {
            const n = JSON.parse(r.body).action.parameters.n as number;
            byCall.set(n, [...(byCall.get(n) ?? []), r]);
          }
          expect(
            [...byCall.values()].filter((rs) => rs.length !== 1),
            'no call has two receipts',
          ).toEqual([]);
          expect(
            [...dispatched].filter((n) => !byCall.has(n)),
            'every dispatched call has a receipt',
          ).toEqual([]);
          const acked = new Set(acks.map((a) => a.n));
          // Answered calls were allowed; a dispatched call was committed unanswered (allow) or settled by recovery
          // (incomplete); a call reserved but killed before its tool ran is settled incomplete too (recovery cannot
          // know it never ran, so it claims nothing).
          for (const [n, [r]] of byCall) {
            expect(
              acked.has(n) ? ['allow'] : dispatched.has(n) ? ['allow', 'incomplete'] : ['incomplete'],
              `call ${n}`,
            ).toContain(r!.verdict);
          }
          // Each lane's answered calls appear in its session in the order they were answered.
          for (let lane = 0; lane < 16; lane++) {
            const answered = acks
              .filter((a) => rows.find((r) => r.receipt_id === a.id)?.session_id === `lane-${lane}`)
              .map((a) => a.seq);
            expect(answered).toEqual([...answered].sort((a, b) => a - b));
          }
          expect(ledger.db.prepare('SELECT count(*) AS n FROM pending_calls').get()).toEqual({ n: 0 });
          expect(verifyChain(ledger)).toMatchObject({ ok: true });
        } finally {
          ledger.close();
        }
      }
    }, 60_000);
  }
});
