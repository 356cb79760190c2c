// The group-commit writer on its own thread keeps every promise of the same-thread writer: durable before resolve, fail closed, refusals isolated.
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { LedgerWriter, openLedger, verifyChain } from '../../src/ledger/index.js';
import { signReceipt, signReceiptAsync } from '../../src/receipt/index.js';
import { allowDraft, mixedReceipt, testSigner } from '../helpers/receipts.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir();
let n = 0;
const freshPath = () => join(dir, `thread-${++n}.sqlite`);

describe('LedgerWriter.onThread', () => {
  it('commits 64 concurrent producers with contiguous seqs, in several overlapping batches', async () => {
    const path = freshPath();
    const writer = await LedgerWriter.onThread(path);
    const results = await Promise.all(
      Array.from({ length: 64 }, async (_, p) => {
        const out = [];
        for (let i = 0; i < 10; i++) {
          const receipt = await signReceiptAsync(allowDraft(p * 10 + i), testSigner, { nonce: `t-${p}-${i}` });
          out.push(await writer.append({ receipt, sessionId: `s${p % 4}` }));
        }
        return out;
      }),
    );
    await writer.close();
    const seqs = results
      .flat()
      .map((r) => r.seq)
      .sort((a, b) => a - b);
    expect(seqs).toEqual(Array.from({ length: 640 }, (_, i) => i + 1));
    expect(writer.stats.largestBatch).toBeLessThanOrEqual(32);
    const ledger = openLedger(path, { readonly: true });
    expect(verifyChain(ledger)).toMatchObject({ ok: true, entries: 640, sessions: 4 });
    ledger.close();
  });

  it('resolves each append only when another connection can already read the row', async () => {
    const path = freshPath();
    const writer = await LedgerWriter.onThread(path);
    const observer = new Database(path, { readonly: true });
    const seen = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        writer
          .append({ receipt: mixedReceipt(i) })
          .then((r) => observer.prepare('SELECT 1 AS one FROM ledger_entries WHERE seq = ?').get(r.seq)),
      ),
    );
    expect(seen.every((row) => row !== undefined)).toBe(true);
    observer.close();
    await writer.close();
  });

  it('a duplicate rejects alone with its own code; neighbours commit', async () => {
    const path = freshPath();
    const writer = await LedgerWriter.onThread(path);
    const dup = signReceipt(allowDraft(1), testSigner, { nonce: 'dup' });
    const settled = await Promise.allSettled([
      writer.append({ receipt: dup }),
      writer.append({ receipt: dup }),
      writer.append({ receipt: mixedReceipt(5) }),
    ]);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((settled[1] as PromiseRejectedResult).reason).toMatchObject({
      name: 'ChioError',
      code: 'CHIO-LEDGER-DUPLICATE-RECEIPT',
    });
    await writer.close();
  });

  it('fails closed while another writer holds the lock, and recovers after', async () => {
    const path = freshPath();
    const writer = await LedgerWriter.onThread(path, { busyTimeoutMs: 200 });
    await writer.append({ receipt: mixedReceipt(0) });
    const blocker = new Database(path);
    blocker.exec('BEGIN IMMEDIATE');
    const settled = await Promise.allSettled([1, 2, 3].map((i) => writer.append({ receipt: mixedReceipt(i) })));
    blocker.exec('ROLLBACK');
    blocker.close();
    expect(settled.every((s) => s.status === 'rejected')).toBe(true);
    expect((settled[0] as PromiseRejectedResult).reason).toMatchObject({ code: 'CHIO-LEDGER-APPEND-FAILED' });
    await expect(writer.append({ receipt: mixedReceipt(4) })).resolves.toMatchObject({ seq: 2 });
    await writer.close();
    const ledger = openLedger(path, { readonly: true });
    expect(verifyChain(ledger)).toMatchObject({ ok: true, entries: 2 });
    ledger.close();
  });

  it('refuses to start on a file that is not a ledger, with the ledger error code', async () => {
    const path = join(dir, 'not-a-ledger.txt');
    writeFileSync(path, 'hello\n'.repeat(50));
    await expect(LedgerWriter.onThread(path)).rejects.toMatchObject({ code: 'CHIO-LEDGER-NOT-SQLITE' });
  });

  it('after close, appends are refused', async () => {
    const writer = await LedgerWriter.onThread(freshPath());
    await writer.close();
    await expect(writer.append({ receipt: mixedReceipt(1) })).rejects.toMatchObject({ code: 'CHIO-LEDGER-CLOSED' });
  });
});
