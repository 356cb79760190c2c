// Group commit: concurrent appends share a transaction, each promise resolves only after COMMIT, and a failed commit rejects everything in it.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { LedgerWriter, openLedger, rebuildMerkleSubtrees, verifyChain } from '../../src/ledger/index.js';
import type { Ledger } from '../../src/ledger/index.js';
import { signReceipt } from '../../src/receipt/index.js';
import { allowDraft, mixedReceipt, testSigner } from '../helpers/receipts.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir();
let n = 0;
const freshPath = () => join(dir, `writer-${++n}.sqlite`);

/** The stored Merkle subtrees, and the ones a rebuild from the entries derives (rolled back). */
function subtreesAndRebuilt(ledger: Ledger): [unknown[], unknown[]] {
  const read = () =>
    ledger.db.prepare('SELECT level, idx, hex(hash) AS h FROM merkle_subtrees ORDER BY level, idx').all();
  const stored = read();
  let rebuilt: unknown[] = [];
  try {
    ledger.db.transaction(() => {
      rebuildMerkleSubtrees(ledger.db);
      rebuilt = read();
      throw new Error('roll back');
    })();
  } catch {}
  return [stored, rebuilt];
}

describe('LedgerWriter (group commit)', () => {
  it('commits 300 concurrent appends in a few transactions with contiguous seqs', async () => {
    const ledger = openLedger(freshPath());
    const writer = new LedgerWriter(ledger);
    const results = await Promise.all(
      Array.from({ length: 300 }, (_, i) => writer.append({ receipt: mixedReceipt(i), sessionId: `s${i % 4}` })),
    );
    expect(results.map((r) => r.seq).sort((a, b) => a - b)).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
    expect(writer.stats.appended).toBe(300);
    expect(writer.stats.commits).toBeLessThan(10);
    expect(verifyChain(ledger)).toMatchObject({ ok: true, entries: 300, sessions: 4 });
    ledger.close();
  });

  it('resolves each append only when another connection can already read the committed row', async () => {
    const path = freshPath();
    const ledger = openLedger(path);
    const writer = new LedgerWriter(ledger);
    const observer = new Database(path, { readonly: true });
    const seen = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        writer
          .append({ receipt: mixedReceipt(i) })
          .then(
            (r) =>
              observer.prepare('SELECT receipt_id FROM ledger_entries WHERE seq = ?').get(r.seq) as
                | { receipt_id: string }
                | undefined,
          ),
      ),
    );
    expect(seen.every((row) => row !== undefined)).toBe(true);
    observer.close();
    ledger.close();
  });

  it('a duplicate inside a batch rejects alone; its neighbours commit', async () => {
    const ledger = openLedger(freshPath());
    const writer = new LedgerWriter(ledger);
    const dup = signReceipt(allowDraft(1), testSigner, { nonce: 'dup' });
    const settled = await Promise.allSettled([
      writer.append({ receipt: mixedReceipt(10) }),
      writer.append({ receipt: dup }),
      writer.append({ receipt: dup }),
      writer.append({ receipt: mixedReceipt(11) }),
    ]);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((settled[2] as PromiseRejectedResult).reason).toMatchObject({ code: 'CHIO-LEDGER-DUPLICATE-RECEIPT' });
    expect(verifyChain(ledger)).toMatchObject({ ok: true, entries: 3 });
    ledger.close();
  });

  it('a duplicate refused in the middle of a batch leaves its head alone: the entries after it link to the right head and session head', async () => {
    const ledger = openLedger(freshPath());
    const writer = new LedgerWriter(ledger);
    await writer.append({ receipt: mixedReceipt(0), sessionId: 'b' });
    const dup = signReceipt(allowDraft(1), testSigner, { nonce: 'dup' });
    const settled = await Promise.allSettled([
      writer.append({ receipt: mixedReceipt(1), sessionId: 'a' }),
      writer.append({ receipt: dup, sessionId: 'b' }),
      writer.append({ receipt: dup, sessionId: 'a' }),
      writer.append({ receipt: mixedReceipt(2), sessionId: 'a' }),
      writer.append({ receipt: mixedReceipt(3), sessionId: 'b' }),
      writer.append({ receipt: mixedReceipt(4) }),
    ]);
    expect(writer.stats.commits).toBe(2);
    expect(settled.map((s) => s.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
      'fulfilled',
    ]);
    const [a1, b1, , a2, b2, none] = settled.map((s) => (s.status === 'fulfilled' ? s.value : undefined));
    expect(a1).toMatchObject({ seq: 2, sessionPrevSeq: null });
    expect(b1).toMatchObject({ seq: 3, sessionPrevSeq: 1, prevHash: a1!.entryHash });
    expect(a2).toMatchObject({ seq: 4, sessionPrevSeq: 2, prevHash: b1!.entryHash });
    expect(b2).toMatchObject({ seq: 5, sessionPrevSeq: 3, prevHash: a2!.entryHash });
    expect(none).toMatchObject({ seq: 6, sessionPrevSeq: null, prevHash: b2!.entryHash });
    expect(verifyChain(ledger)).toMatchObject({ ok: true, entries: 6, sessions: 2 });
    const [stored, rebuilt] = subtreesAndRebuilt(ledger);
    expect(stored).toEqual(rebuilt);
    ledger.close();
  });

  it('after a batch that was rolled back, the next batch links to the committed head, session heads and subtrees', async () => {
    const path = freshPath();
    const ledger = openLedger(path);
    const writer = new LedgerWriter(ledger);
    await Promise.all([0, 1, 2].map((i) => writer.append({ receipt: mixedReceipt(i), sessionId: `s${i % 2}` })));
    const other = new Database(path);
    // A fault on the third row of the next batch: its first two rows (and their subtrees) go back too.
    other.exec(
      "CREATE TRIGGER fail_fifth BEFORE INSERT ON ledger_entries WHEN NEW.seq = 6 BEGIN SELECT RAISE(ABORT, 'injected disk fault'); END",
    );
    const failed = await Promise.allSettled(
      [3, 4, 5, 6].map((i) => writer.append({ receipt: mixedReceipt(i), sessionId: `s${i % 2}` })),
    );
    expect(failed.every((s) => s.status === 'rejected')).toBe(true);
    other.exec('DROP TRIGGER fail_fifth');
    other.close();
    const later = await Promise.all(
      [7, 8, 9, 10, 11].map((i) => writer.append({ receipt: mixedReceipt(i), sessionId: `s${i % 2}` })),
    );
    expect(later.map((r) => [r.seq, r.sessionPrevSeq])).toEqual([
      [4, 2],
      [5, 3],
      [6, 4],
      [7, 5],
      [8, 6],
    ]);
    expect(verifyChain(ledger)).toMatchObject({ ok: true, entries: 8, sessions: 2 });
    const [stored, rebuilt] = subtreesAndRebuilt(ledger);
    expect(stored).toEqual(rebuilt);
    expect(stored.length).toBe(7); // 8 leaves: 4 + 2 + 1 subtrees above the leaves
    ledger.close();
  });

  it('fails closed: when the commit cannot happen every append in the batch rejects and nothing is written', async () => {
    const path = freshPath();
    const ledger = openLedger(path, { busyTimeoutMs: 200 });
    const writer = new LedgerWriter(ledger);
    await writer.append({ receipt: mixedReceipt(0) });
    const blocker = new Database(path);
    blocker.exec('BEGIN IMMEDIATE'); // another writer holds the lock past our busy timeout
    const settled = await Promise.allSettled([1, 2, 3].map((i) => writer.append({ receipt: mixedReceipt(i) })));
    blocker.exec('ROLLBACK');
    blocker.close();
    expect(settled.every((s) => s.status === 'rejected')).toBe(true);
    expect((settled[0] as PromiseRejectedResult).reason).toMatchObject({ code: 'CHIO-LEDGER-APPEND-FAILED' });
    expect(verifyChain(ledger)).toMatchObject({ ok: true, entries: 1 });
    // The writer recovers once the lock is gone.
    await expect(writer.append({ receipt: mixedReceipt(4) })).resolves.toMatchObject({ seq: 2 });
    ledger.close();
  });

  it('rejects an invalid receipt at once without queueing it, and refuses appends after close', async () => {
    const ledger = openLedger(freshPath());
    const writer = new LedgerWriter(ledger);
    await expect(writer.append({ receipt: { ...mixedReceipt(1), tool_server: 'evil' } })).rejects.toMatchObject({
      code: 'CHIO-RECEIPT-UNVERIFIED',
    });
    await writer.close();
    await expect(writer.append({ receipt: mixedReceipt(2) })).rejects.toMatchObject({ code: 'CHIO-LEDGER-CLOSED' });
    expect(verifyChain(ledger)).toMatchObject({ ok: true, entries: 0 });
    ledger.close();
  });
});
