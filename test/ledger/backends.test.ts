// One ledger contract, run on both stores (SQLite file, PostgreSQL server) through the same
// async face (chio/postgres `openAnyLedger`, `appendAny`, `verifyAnyChain`): the golden ledger
// vectors reproduced byte for byte, batches that are all-or-nothing, duplicates and hostile
// session ids refused with nothing appended, read-only handles that cannot append, trusted keys
// enforced by verification, and two handles appending at once keeping one chain.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendAny, closeAnyLedger, headOf, openAnyLedger, verifyAnyChain } from '../../src/ledger/pg/index.js';
import type { AnyLedger } from '../../src/ledger/pg/index.js';
import { signerFromSeed } from '../../src/crypto/index.js';
import { mixedReceipt, testSigner } from '../helpers/receipts.js';
import { freshPgDatabase } from '../helpers/postgres.js';
import { tempDir } from '../helpers/tmp.js';

const vectors = JSON.parse(readFileSync('test/vectors/receipt/chio-v1.json', 'utf8'));
const dir = tempDir();
let n = 0;

const backends: Array<[string, () => Promise<string>]> = [
  ['SQLite', async () => join(dir, `contract-${++n}.sqlite`)],
  ['PostgreSQL', async () => (await freshPgDatabase()).url],
];

async function withLedger<T>(location: string, use: (l: AnyLedger) => Promise<T>, readonly = false): Promise<T> {
  const ledger = await openAnyLedger(location, { readonly });
  try {
    return await use(ledger);
  } finally {
    await closeAnyLedger(ledger);
  }
}

describe.each(backends)('the ledger contract on %s', (_name, fresh) => {
  it('reproduces the golden ledger vectors: the same receipts in the same sessions give the same entry hashes', async () => {
    await withLedger(await fresh(), async (ledger) => {
      const entries = vectors.ledger.entries as Array<{
        seq: number;
        session_id: string | null;
        body: string;
        entry_hash: string;
        prev_hash: string;
      }>;
      const results = await appendAny(
        ledger,
        entries.map((e) => ({ receipt: JSON.parse(e.body), sessionId: e.session_id })),
      );
      expect(results.map((r) => [r.seq, r.prevHash, r.entryHash])).toEqual(
        entries.map((e) => [e.seq, e.prev_hash, e.entry_hash]),
      );
      expect(
        await verifyAnyChain(ledger, { trustedKernelKeys: new Set([vectors.ed25519_public_key_hex]) }),
      ).toMatchObject({ ok: true, entries: entries.length });
    });
  });

  it('a batch with an invalid receipt, a duplicate or session id ".." appends nothing', async () => {
    await withLedger(await fresh(), async (ledger) => {
      await appendAny(ledger, [{ receipt: mixedReceipt(1) }]);
      const head = await headOf(ledger);
      const forged = { ...mixedReceipt(2), tool_name: 'rewritten' };
      await expect(appendAny(ledger, [{ receipt: mixedReceipt(3) }, { receipt: forged }])).rejects.toMatchObject({
        code: 'CHIO-RECEIPT-UNVERIFIED',
      });
      await expect(
        appendAny(ledger, [{ receipt: mixedReceipt(4) }, { receipt: mixedReceipt(1) }]),
      ).rejects.toMatchObject({ code: 'CHIO-LEDGER-DUPLICATE-RECEIPT' });
      await expect(appendAny(ledger, [{ receipt: mixedReceipt(5), sessionId: '..' }])).rejects.toMatchObject({
        code: 'CHIO-RECEIPT-INVALID',
      });
      expect(await headOf(ledger)).toEqual(head);
      expect(await verifyAnyChain(ledger)).toMatchObject({ ok: true, entries: 1 });
    });
  });

  it('a read-only handle cannot append; verification enforces the trusted kernel keys', async () => {
    const location = await fresh();
    await withLedger(location, (l) =>
      appendAny(l, [
        { receipt: mixedReceipt(1), sessionId: 's' },
        { receipt: mixedReceipt(2), sessionId: 's' },
      ]),
    );
    await withLedger(
      location,
      async (ledger) => {
        await expect(appendAny(ledger, [{ receipt: mixedReceipt(3) }])).rejects.toMatchObject({
          code: 'CHIO-LEDGER-APPEND-FAILED',
        });
        expect(await verifyAnyChain(ledger, { trustedKernelKeys: new Set([testSigner.publicKeyHex]) })).toMatchObject({
          ok: true,
          entries: 2,
          sessions: 1,
        });
        const stranger = signerFromSeed(new Uint8Array(32).fill(99)).publicKeyHex;
        expect(await verifyAnyChain(ledger, { trustedKernelKeys: new Set([stranger]) })).toMatchObject({
          ok: false,
          seq: 1,
          check: 'untrusted_key',
        });
      },
      true,
    );
  });

  it('two handles appending at once keep one contiguous chain', async () => {
    const location = await fresh();
    await withLedger(location, async () => {}); // created once before the two handles open it
    const [a, b] = await Promise.all([openAnyLedger(location), openAnyLedger(location)]);
    try {
      await Promise.all(
        [a!, b!].map(async (l, k) => {
          for (let i = 0; i < 10; i++)
            await appendAny(l, [{ receipt: mixedReceipt(100 * (k + 1) + i), sessionId: `h${k}` }]);
        }),
      );
      expect(await verifyAnyChain(a!)).toMatchObject({ ok: true, entries: 20, sessions: 2 });
    } finally {
      await closeAnyLedger(a!);
      await closeAnyLedger(b!);
    }
  });
});

describe('opening a ledger in the library', () => {
  it('openLedger of chio/postgres opens either store; the root openLedger is the synchronous SQLite open and names it for a URL', async () => {
    const { openLedger: openEither } = await import('../../src/ledger/pg/index.js');
    const { openLedger: openSqlite } = await import('../../src/ledger/index.js');
    for (const location of [join(dir, 'either.sqlite'), (await freshPgDatabase()).url]) {
      const ledger = await openEither(location);
      try {
        await appendAny(ledger, [{ receipt: mixedReceipt(1), sessionId: 's' }]);
        expect(await headOf(ledger)).toMatchObject({ seq: 1 });
      } finally {
        await closeAnyLedger(ledger);
      }
    }
    expect(() => openSqlite('postgres://chio@127.0.0.1:1/x')).toThrow(
      expect.objectContaining({
        code: 'CHIO-LEDGER-POSTGRES-UNSUPPORTED',
        message: expect.stringContaining('openLedger from chio/postgres'),
      }),
    );
  });
});
