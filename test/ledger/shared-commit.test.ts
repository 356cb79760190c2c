// The writer's shared commits: the reservations of calls about to run and the receipts of calls
// that finished, handed over in the same turn, are committed together in one transaction, in the
// order they were handed over — exactly as strict as committing them one by one — and a commit
// that fails takes all of them back. How a reservation-only commit reaches the disk (`full`,
// `normal`) leaves the connection at its own level afterwards.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LedgerWriter, openLedger } from '../../src/ledger/index.js';
import type { CallReservation } from '../../src/ledger/index.js';
import { signReceipt } from '../../src/receipt/index.js';
import { allowDraft, testSigner } from '../helpers/receipts.js';
import { tempDir } from '../helpers/tmp.js';

const reservation = (requestId: string, maxInvocations = 1): CallReservation => ({
  requestId,
  capabilityId: 'cap-1',
  grants: [{ index: 0, maxInvocations }],
  trustedKeys: ['a'.repeat(64)],
  owner: 'host:1 start=1',
  now: 1_790_000_000,
});
// Signed by a key the reservations do not trust: it releases its reservation and counts towards no budget.
const receipt = (i: number) => signReceipt(allowDraft(i), testSigner, { nonce: `n-${i}` });

function fresh(name: string, options: ConstructorParameters<typeof LedgerWriter>[1] = {}) {
  const ledger = openLedger(join(tempDir(), `${name}.sqlite`));
  return { ledger, writer: new LedgerWriter(ledger, options) };
}
const pendingIds = (ledger: ReturnType<typeof openLedger>) =>
  (ledger.db.prepare('SELECT request_id FROM pending_calls ORDER BY rowid').all() as Array<{ request_id: string }>).map(
    (r) => r.request_id,
  );

describe('reservations and receipts share commits', () => {
  it('a reservation and a receipt handed over in the same turn are committed in one transaction', async () => {
    const { ledger, writer } = fresh('one-commit', { reservationSync: 'full' });
    try {
      const [reserved, appended] = await Promise.all([
        writer.reserve(reservation('r-1')),
        writer.append({ receipt: receipt(1), sessionId: 's' }),
      ]);
      expect(reserved).toEqual({ ok: true, grantIndex: 0 });
      expect(appended).toMatchObject({ seq: 1 });
      expect(writer.stats).toEqual({ appended: 1, reserved: 1, commits: 1, largestBatch: 2 });
      expect(pendingIds(ledger)).toEqual(['r-1']);
    } finally {
      await writer.close();
      ledger.close();
    }
  });

  it('inside one commit each reservation sees the budget after everything handed over before it, and nothing after', async () => {
    const { ledger, writer } = fresh('order');
    try {
      expect(await writer.reserve(reservation('r-1'))).toEqual({ ok: true, grantIndex: 0 });
      // The receipt that settles r-1 first, then r-2: r-1's place in the budget is free again.
      const [, granted] = await Promise.all([
        writer.append({ receipt: receipt(1), releases: 'r-1' }),
        writer.reserve(reservation('r-2')),
      ]);
      expect(granted).toEqual({ ok: true, grantIndex: 0 });
      // r-3 before the receipt that settles r-2: r-2 still holds the only invocation when r-3 is judged.
      const [refused] = await Promise.all([
        writer.reserve(reservation('r-3')),
        writer.append({ receipt: receipt(2), releases: 'r-2' }),
      ]);
      expect(refused).toMatchObject({ ok: false, used: 1, limit: 1 });
      expect(writer.stats.commits).toBe(3);
      expect(pendingIds(ledger)).toEqual([]);
      expect(ledger.db.prepare('SELECT count(*) AS n FROM ledger_entries').get()).toEqual({ n: 2 });
    } finally {
      await writer.close();
      ledger.close();
    }
  });

  it('a request id already reserved is refused on its own; the receipt and the other reservation in its commit stand', async () => {
    const { ledger, writer } = fresh('duplicate');
    try {
      await writer.reserve(reservation('r-1', 5));
      const results = await Promise.allSettled([
        writer.reserve(reservation('r-1', 5)),
        writer.append({ receipt: receipt(1) }),
        writer.reserve(reservation('r-2', 5)),
      ]);
      expect(results[0]).toMatchObject({
        status: 'rejected',
        reason: { code: 'CHIO-LEDGER-APPEND-FAILED', message: expect.stringContaining('already reserved') },
      });
      expect(results[1]).toMatchObject({ status: 'fulfilled', value: { seq: 1 } });
      expect(results[2]).toMatchObject({ status: 'fulfilled', value: { ok: true } });
      expect(pendingIds(ledger)).toEqual(['r-1', 'r-2']);
    } finally {
      await writer.close();
      ledger.close();
    }
  });

  it('a shared commit that fails takes back every reservation and receipt in it: the calls do not run, nothing is half-written', async () => {
    const path = join(tempDir(), 'fault.sqlite');
    const ledger = openLedger(path);
    const writer = new LedgerWriter(ledger);
    try {
      await writer.append({ receipt: receipt(0), sessionId: 's' });
      // A fault inside the transaction, after the reservation was written: the session head cannot be updated.
      const other = new Database(path);
      other.exec(
        "CREATE TRIGGER fail_session BEFORE UPDATE ON ledger_sessions BEGIN SELECT RAISE(ABORT, 'injected disk fault'); END",
      );
      const results = await Promise.allSettled([
        writer.reserve(reservation('r-1')),
        writer.append({ receipt: receipt(1), sessionId: 's' }),
      ]);
      expect(results[0]).toMatchObject({
        status: 'rejected',
        reason: {
          code: 'CHIO-LEDGER-APPEND-FAILED',
          message: 'cannot reserve the call in the ledger, so it will not run: injected disk fault',
        },
      });
      expect(results[1]).toMatchObject({
        status: 'rejected',
        reason: { code: 'CHIO-LEDGER-APPEND-FAILED', message: 'append not committed: injected disk fault' },
      });
      expect(pendingIds(ledger)).toEqual([]);
      expect(ledger.db.prepare('SELECT count(*) AS n FROM ledger_entries').get()).toEqual({ n: 1 });
      other.exec('DROP TRIGGER fail_session');
      other.close();
      // The writer goes on: the next commit holds both.
      const [reserved, appended] = await Promise.all([
        writer.reserve(reservation('r-1')),
        writer.append({ receipt: receipt(1), sessionId: 's' }),
      ]);
      expect(reserved).toEqual({ ok: true, grantIndex: 0 });
      expect(appended).toMatchObject({ seq: 2 });
    } finally {
      await writer.close();
      ledger.close();
    }
  });

  for (const sync of ['full', 'normal'] as const) {
    it(`reservation sync ${sync}: the reservation is recorded, the next one past the budget refused, and the connection is at synchronous=FULL afterwards`, async () => {
      const { ledger, writer } = fresh(`sync-${sync}`, { reservationSync: sync });
      try {
        expect(await writer.reserve(reservation('r-1'))).toEqual({ ok: true, grantIndex: 0 });
        expect(await writer.reserve(reservation('r-2'))).toMatchObject({ ok: false, used: 1, limit: 1 });
        await writer.append({ receipt: receipt(1) });
        expect(pendingIds(ledger)).toEqual(['r-1']);
        expect(ledger.db.pragma('synchronous', { simple: true })).toBe(2); // FULL
      } finally {
        await writer.close();
        ledger.close();
      }
    });
  }

  it('a closed writer refuses reservations', async () => {
    const { ledger, writer } = fresh('closed');
    await writer.close();
    await expect(writer.reserve(reservation('r-1'))).rejects.toMatchObject({ code: 'CHIO-LEDGER-CLOSED' });
    ledger.close();
  });
});
