// The sessions projection: the incremental state kept by appends equals a rebuild from the entries, for any interleaving.
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { appendReceiptSync, openLedger, readSessions, rebuildSessions, verifyChain } from '../../src/ledger/index.js';
import { mixedReceipt } from '../helpers/receipts.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir();
let n = 0;

describe('sessions projection', () => {
  it('rebuild equals the incremental state for random interleavings of sessions', () => {
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.constantFrom('s1', 's2', 's3', 'weird "session" ☃'), { nil: null }), {
          minLength: 1,
          maxLength: 40,
        }),
        (sessions) => {
          const ledger = openLedger(join(dir, `p-${++n}.sqlite`));
          try {
            sessions.forEach((s, i) =>
              appendReceiptSync(ledger, { receipt: mixedReceipt(i, undefined, `p${n}-${i}`), sessionId: s }),
            );
            const incremental = readSessions(ledger);
            expect(incremental.reduce((a, s) => a + s.entryCount, 0)).toBe(sessions.filter((s) => s !== null).length);
            rebuildSessions(ledger);
            expect(readSessions(ledger)).toEqual(incremental);
          } finally {
            ledger.close();
          }
        },
      ),
      { numRuns: 25 },
    );
  });

  it('verify notices a projection that no longer matches the entries, and a rebuild repairs it', () => {
    const ledger = openLedger(join(dir, 'drift.sqlite'));
    ['a', 'b', 'a'].forEach((s, i) => appendReceiptSync(ledger, { receipt: mixedReceipt(i), sessionId: s }));
    ledger.db.prepare("UPDATE ledger_sessions SET entry_count = 7 WHERE session_id = 'a'").run();
    expect(verifyChain(ledger)).toMatchObject({ ok: false, check: 'sessions_projection', seq: null });
    ledger.db.prepare('DELETE FROM ledger_sessions').run();
    expect(verifyChain(ledger)).toMatchObject({ ok: false, check: 'sessions_projection' });
    expect(rebuildSessions(ledger)).toBe(2);
    expect(verifyChain(ledger)).toMatchObject({ ok: true, sessions: 2 });
    ledger.close();
  });
});
