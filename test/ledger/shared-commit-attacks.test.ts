// A shared commit's outcome is exactly what the file holds afterwards: every acknowledged receipt is
// in the ledger once, nothing refused or rolled back is, and the chain (links, session links,
// Merkle subtrees, projections) verifies — whatever mix of duplicates, repeats, reservations and
// faults the batch held.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LedgerWriter, openLedger, verifyChain } from '../../src/ledger/index.js';
import type { CallReservation, Ledger } from '../../src/ledger/index.js';
import { signReceipt } from '../../src/receipt/index.js';
import type { Receipt } from '../../src/receipt/index.js';
import { chio } from '../helpers/cli.js';
import { allowDraft, testSigner } from '../helpers/receipts.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir();
let n = 0;
const receipt = (i: number) => signReceipt(allowDraft(i), testSigner, { nonce: `batch-${i}` });
const reservation = (requestId: string): CallReservation => ({
  requestId,
  capabilityId: 'cap-test',
  grants: [{ index: 0, maxInvocations: 100 }],
  trustedKeys: [testSigner.publicKeyHex],
  owner: 'host:1 start=1',
  now: 1_790_000_000,
});

function chainVerdict(ledger: Ledger): { ok: boolean; check?: string; message?: string } {
  const v = verifyChain(ledger) as { ok: boolean; check?: string; message?: string };
  return v.ok ? { ok: true } : { ok: false, check: v.check, message: v.message };
}
const ids = (ledger: Ledger) =>
  (ledger.db.prepare('SELECT receipt_id FROM ledger_entries ORDER BY seq').all() as Array<{ receipt_id: string }>).map(
    (r) => r.receipt_id,
  );
const pending = (ledger: Ledger) =>
  (ledger.db.prepare('SELECT request_id FROM pending_calls ORDER BY rowid').all() as Array<{ request_id: string }>).map(
    (r) => r.request_id,
  );

async function settle<T>(promises: Array<Promise<T>>) {
  return (await Promise.allSettled(promises)).map((s) =>
    s.status === 'fulfilled' ? { ok: true as const, value: s.value } : { ok: false as const, error: s.reason },
  );
}

describe('shared commits hold exactly what they acknowledge', () => {
  for (const onThread of [false, true]) {
    it(`duplicates and repeats inside one batch are refused alone (${onThread ? 'writer thread' : 'this thread'})`, async () => {
      const path = join(dir, `dup-${++n}.sqlite`);
      const ledger = openLedger(path);
      const writer = onThread ? await LedgerWriter.onThread(path) : new LedgerWriter(ledger, { walBackfill: false });
      try {
        const earlier: Receipt[] = [];
        for (let i = 0; i < 5; i++) earlier.push(receipt(i));
        await Promise.all(
          earlier.map((r, i) => writer.append({ receipt: r, sessionId: i % 2 === 0 ? 's-even' : 's-odd' })),
        );
        const a = receipt(100);
        const b = receipt(101);
        const c = receipt(102);
        const copyOfEarlier = JSON.parse(JSON.stringify(earlier[2])) as Receipt;
        const outcomes = await settle<unknown>([
          writer.append({ receipt: a, sessionId: 's-even' }),
          writer.append({ receipt: earlier[1]!, sessionId: 's-odd' }), // already in the ledger
          writer.append({ receipt: a, sessionId: 's-odd' }), // the same receipt twice in one batch
          writer.reserve(reservation('r-1')),
          writer.append({ receipt: b, sessionId: 's-odd', releases: 'r-1' }),
          writer.append({ receipt: copyOfEarlier, sessionId: 's-new' }), // a verified copy of one already in
          writer.reserve(reservation('r-1')), // released just before, in the same batch
          writer.append({ receipt: c }),
          writer.append({ receipt: b }),
        ]);
        expect(outcomes.map((o) => o.ok)).toEqual([true, false, false, true, true, false, true, true, false]);
        for (const i of [1, 2, 5, 8])
          expect((outcomes[i] as { error: { code: string } }).error.code).toBe('CHIO-LEDGER-DUPLICATE-RECEIPT');
        expect(ids(ledger)).toEqual([...earlier.map((r) => r.id), a.id, b.id, c.id]);
        expect(new Set(ids(ledger)).size).toBe(ids(ledger).length);
        expect(pending(ledger)).toEqual(['r-1']);
        const acknowledged = outcomes.flatMap((o, i) =>
          o.ok && typeof (o.value as { seq?: unknown }).seq === 'number' ? [[i, (o.value as { seq: number }).seq]] : [],
        );
        expect(acknowledged).toEqual([
          [0, 6],
          [4, 7],
          [7, 8],
        ]);
        expect(chainVerdict(ledger)).toEqual({ ok: true });
      } finally {
        await writer.close();
        ledger.close();
      }
      const cli = chio(['ledger', 'verify', '--receipt-db', path, '--pending-max-age', '1e12']);
      expect(cli.status, cli.stdout + cli.stderr).toBe(0);
    });

    it(`a fault in the middle of a batch takes every op back, and the next batch continues the chain (${onThread ? 'writer thread' : 'this thread'})`, async () => {
      const path = join(dir, `fault-${++n}.sqlite`);
      const ledger = openLedger(path);
      const writer = onThread ? await LedgerWriter.onThread(path) : new LedgerWriter(ledger, { walBackfill: false });
      try {
        // Seven entries: the tree has subtrees of levels 1 and 2 the next appends build on.
        const earlier = Array.from({ length: 7 }, (_, i) => receipt(200 + i));
        await Promise.all(earlier.map((r) => writer.append({ receipt: r, sessionId: 's' })));
        const rolledBack = [receipt(300), receipt(301)];
        // A reservation that fails inside the transaction for a reason other than a refusal: a fault.
        const broken = { ...reservation('r-x'), now: { not: 'a number' } as unknown as number };
        const outcomes = await settle<unknown>([
          writer.append({ receipt: rolledBack[0]!, sessionId: 's' }),
          writer.reserve(reservation('r-ok')),
          writer.reserve(broken),
          writer.append({ receipt: rolledBack[1]!, sessionId: 's' }),
        ]);
        expect(outcomes.map((o) => o.ok)).toEqual([false, false, false, false]);
        expect(ids(ledger)).toEqual(earlier.map((r) => r.id));
        expect(pending(ledger)).toEqual([]);
        // The same receipts again, in a batch of their own: appended after the seven, chain intact.
        const again = await settle<unknown>(rolledBack.map((r) => writer.append({ receipt: r, sessionId: 's' })));
        expect(again.map((o) => o.ok)).toEqual([true, true]);
        expect(ids(ledger)).toEqual([...earlier, ...rolledBack].map((r) => r.id));
        expect(chainVerdict(ledger)).toEqual({ ok: true });
      } finally {
        await writer.close();
        ledger.close();
      }
      const cli = chio(['ledger', 'verify', '--receipt-db', path]);
      expect(cli.status, cli.stdout + cli.stderr).toBe(0);
    });
  }
});
