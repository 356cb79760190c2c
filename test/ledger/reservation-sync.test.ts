// How a reservation reaches the disk (ReservationQueue's sync): `full` and `normal` record the same
// reservation and refuse the same over-budget call; `normal` commits it without an fsync and leaves
// the connection at synchronous=FULL afterwards, so whatever that connection commits next (a
// recovered receipt, a revocation) is fsynced as before.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openLedger, ReservationQueue } from '../../src/ledger/index.js';
import type { CallReservation } from '../../src/ledger/index.js';
import { tempDir } from '../helpers/tmp.js';

const reservation = (requestId: string): CallReservation => ({
  requestId, capabilityId: 'cap-1', grants: [{ index: 0, maxInvocations: 1 }], trustedKeys: ['a'.repeat(64)], owner: 'host:1 start=1', now: 1_790_000_000,
});

describe('reservation sync', () => {
  for (const sync of ['full', 'normal'] as const) {
    it(`${sync}: the reservation is recorded, the next one past the budget refused, and the connection is at synchronous=FULL afterwards`, async () => {
      const ledger = openLedger(join(tempDir(), `${sync}.sqlite`));
      try {
        const queue = new ReservationQueue(ledger, undefined, sync);
        expect(await queue.reserve(reservation('r-1'))).toEqual({ ok: true, grantIndex: 0 });
        expect(await queue.reserve(reservation('r-2'))).toMatchObject({ ok: false, used: 1, limit: 1 });
        expect(ledger.db.prepare('SELECT request_id FROM pending_calls').all()).toEqual([{ request_id: 'r-1' }]);
        expect(ledger.db.pragma('synchronous', { simple: true })).toBe(2); // FULL
      } finally {
        ledger.close();
      }
    });
  }
});
