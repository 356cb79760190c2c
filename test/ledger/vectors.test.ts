import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendReceiptSync, openLedger, verifyChain } from '../../src/ledger/index.js';
import { tempDir } from '../helpers/tmp.js';
import { loadVector } from '../helpers/vectors.js';

const v = loadVector('receipt/chio-v1.json');

describe('chio.ledger.entry.v1 golden vectors', () => {
  it('appending the three vector receipts in two interleaved sessions reproduces every entry byte for byte', () => {
    const ledger = openLedger(join(tempDir(), 'vectors.sqlite'));
    const receipts = [v.receipts.allow.receipt, v.receipts.deny.receipt, v.receipts.trace_observation.receipt];
    v.ledger.entries.forEach((entry: any, i: number) => {
      const result = appendReceiptSync(ledger, { receipt: receipts[i], sessionId: entry.session_id });
      expect(result).toMatchObject({
        seq: entry.seq,
        prevHash: entry.prev_hash,
        entryHash: entry.entry_hash,
        sessionId: entry.session_id,
        sessionPrevSeq: entry.session_prev_seq,
      });
    });
    const rows = ledger.db
      .prepare('SELECT seq, prev_hash, entry_hash, body, session_id, session_prev_seq FROM ledger_entries ORDER BY seq')
      .all();
    expect(rows).toEqual(
      v.ledger.entries.map((e: any) => ({
        seq: e.seq,
        prev_hash: e.prev_hash,
        entry_hash: e.entry_hash,
        body: e.body,
        session_id: e.session_id,
        session_prev_seq: e.session_prev_seq,
      })),
    );
    expect(verifyChain(ledger)).toMatchObject({
      ok: true,
      entries: 3,
      sessions: 2,
      head: { seq: 3, entryHash: v.ledger.entries[2].entry_hash },
    });
    ledger.close();
  });
});
