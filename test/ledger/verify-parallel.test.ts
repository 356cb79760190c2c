// The thread-pool verifier reports exactly what the single-thread verifier reports: the first bad entry in seq order.
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { LedgerWriter, openLedger, verifyChain, verifyChainParallel } from '../../src/ledger/index.js';
import { mixedReceipt } from '../helpers/receipts.js';
import { rehashFrom, tamperedCopy } from '../helpers/tamper.js';
import type { Row } from '../helpers/tamper.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir();
const pristine = join(dir, 'pristine.sqlite');
let n = 0;

beforeAll(async () => {
  const ledger = openLedger(pristine);
  const writer = new LedgerWriter(ledger);
  await Promise.all(
    Array.from({ length: 700 }, (_, i) => writer.append({ receipt: mixedReceipt(i), sessionId: `s${i % 5}` })),
  );
  ledger.db.pragma('wal_checkpoint(TRUNCATE)');
  ledger.close();
});

/** A copy with only the edited fact wrong: the whole chain and the projection are re-hashed after `edit`. */
const corrupt = (edit: (db: Database.Database) => void): string =>
  tamperedCopy(pristine, join(dir, `c-${++n}.sqlite`), (db) => {
    edit(db);
    rehashFrom(db, 1);
  });

/** Flips the last hex digit of the signature inside the stored body of `seq`. */
const badSignature = (seq: number) => (db: Database.Database) => {
  const body = (db.prepare('SELECT body FROM ledger_entries WHERE seq = ?').get(seq) as Row).body as string;
  const flipped = body.replace(
    /("signature":"[0-9a-f]{127})([0-9a-f])/,
    (_, head, last) => head + (last === '0' ? '1' : '0'),
  );
  db.prepare('UPDATE ledger_entries SET body = ? WHERE seq = ?').run(flipped, seq);
};
const badProjection = (seq: number) => (db: Database.Database) =>
  db.prepare("UPDATE ledger_entries SET tool_server = 'x' WHERE seq = ?").run(seq);

async function both(path: string) {
  const a = openLedger(path, { readonly: true });
  const b = openLedger(path, { readonly: true });
  const sync = verifyChain(a);
  const parallel = await verifyChainParallel(b, { window: 64 });
  a.close();
  b.close();
  return { sync, parallel };
}

describe('verifyChainParallel', () => {
  it('agrees on a clean ledger', async () => {
    const { sync, parallel } = await both(pristine);
    expect(sync).toMatchObject({ ok: true, entries: 700, sessions: 5 });
    expect(parallel).toEqual(sync);
  });

  const cases: Array<[string, Array<(db: Database.Database) => void>, number, string]> = [
    ['a bad signature early, a structural fault later', [badSignature(40), badProjection(400)], 40, 'signature'],
    ['a structural fault early, a bad signature later', [badProjection(90), badSignature(600)], 90, 'projection'],
    ['a single bad signature deep in the chain', [badSignature(655)], 655, 'signature'],
    ['bad signatures in the same window: the lower seq wins', [badSignature(130), badSignature(129)], 129, 'signature'],
    ['a bad signature in the last, partial window', [badSignature(699)], 699, 'signature'],
  ];
  for (const [name, edits, seq, check] of cases) {
    it(name, async () => {
      const path = corrupt((db) => edits.forEach((e) => e(db)));
      const { sync, parallel } = await both(path);
      expect(sync).toMatchObject({ ok: false, seq, check });
      expect(parallel).toEqual(sync);
    });
  }
});
