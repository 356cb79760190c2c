/**
 * `node dist/bench/reservations.js`: what durable reservations cost. A reservation is committed
 * before every allowed call is dispatched; this measures the commit alone, on the real disk:
 *   one reservation per transaction, synchronous=OFF   (before schema 5: survives a crash, not power loss)
 *   one reservation per transaction, synchronous=FULL  (one fsync each: a lone caller's cost)
 *   64 reservations per transaction, synchronous=FULL  (the kernel's group commit under load)
 * Each reservation is released again (as its receipt's commit would) on a second, synchronous=OFF
 * connection, so the table stays small and the release adds no fsync of its own. Printed as
 * reservations per second and the ratio to the OFF figure of the same run (rule 6: measured here,
 * never asserted in tests).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commitReservations, openLedger } from '../src/ledger/index.js';
import type { CallReservation, SynchronousMode } from '../src/ledger/index.js';

const FACTS = JSON.stringify({
  tool_server: 'fs',
  tool_name: 'read_file',
  action: { parameters: { path: '/home/dev/project/src/x.ts' } },
});

function measure(dir: string, sync: SynchronousMode, perCommit: number, total: number): number {
  const path = join(dir, `r-${sync}-${perCommit}.sqlite`);
  openLedger(path).close();
  const ledger = openLedger(path, { synchronous: sync, create: false });
  const releaser = openLedger(path, { synchronous: 'OFF', create: false });
  const release = releaser.db.prepare('DELETE FROM pending_calls WHERE request_id = ?');
  let id = 0;
  const start = performance.now();
  for (let done = 0; done < total; done += perCommit) {
    const batch: CallReservation[] = Array.from({ length: perCommit }, () => ({
      requestId: `r-${++id}`,
      capabilityId: 'cap-1',
      grants: [{ index: 0, maxInvocations: 1_000_000 }],
      trustedKeys: ['00'.repeat(32)],
      owner: 'bench:1',
      now: 1_800_000_000,
      facts: FACTS,
    }));
    commitReservations(ledger, batch);
    releaser.db.transaction(() => batch.forEach((r) => release.run(r.requestId)))();
  }
  const seconds = (performance.now() - start) / 1000;
  releaser.close();
  ledger.close();
  return total / seconds;
}

const dir = mkdtempSync(join(tmpdir(), 'chio-bench-reservations-'));
try {
  const off = measure(dir, 'OFF', 1, 2000);
  const rows: Array<[string, number]> = [
    ['1 per transaction, synchronous=OFF (before schema 5)', off],
    ['1 per transaction, synchronous=FULL', measure(dir, 'FULL', 1, 300)],
    ['64 per transaction, synchronous=FULL (group commit)', measure(dir, 'FULL', 64, 6400)],
  ];
  for (const [label, rate] of rows) {
    process.stdout.write(
      `${label.padEnd(56)} ${Math.round(rate).toLocaleString('en-US').padStart(8)} /s   ×${(rate / off).toFixed(2)}\n`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
