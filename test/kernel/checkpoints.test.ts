// A producer checkpoints the ledger while it appends (DESIGN §10): every N entries, every T seconds
// while the ledger grows, and at a clean shutdown, appending each new note to the anchor file. A
// checkpoint the ledger no longer supports (it was cut) is refused and reported, and governed calls
// go on.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { fromHex, signerFromSeed, verifyCheckpointNote } from '../../src/crypto/index.js';
import { Kernel } from '../../src/kernel/index.js';
import { listCheckpoints, openLedger, readAnchorFile, rebuildProjections } from '../../src/ledger/index.js';
import { verifyTree } from '../../src/projections/checkpoints/index.js';
import { tempDir } from '../helpers/tmp.js';
import { CountingToolServer } from '../helpers/tool-server.js';

const SEED = fromHex('c4'.repeat(32));
const KEY = signerFromSeed(SEED).publicKeyHex;
const agent = signerFromSeed(fromHex('c5'.repeat(32)));
const dir = tempDir('chio-kernel-checkpoints-');
let n = 0;

function open(options: Partial<Parameters<typeof Kernel.open>[0]> = {}) {
  const path = join(dir, `k-${++n}.sqlite`);
  const logged: string[] = [];
  const kernel = Kernel.open({ ledgerPath: path, seed: SEED, log: (m) => logged.push(m), ...options });
  kernel.registerToolServer(new CountingToolServer());
  const cap = kernel.issueCapability({ subject: agent.publicKeyHex });
  const call = (i: number) =>
    kernel.evaluateToolCall({
      capability: cap,
      caller: agent.publicKeyHex,
      serverId: 'fs',
      toolName: 'read_file',
      arguments: { path: `/workspace/${i}` },
      sessionId: 's',
    });
  return { kernel, path, call, logged };
}

function storedSizes(path: string): number[] {
  const ledger = openLedger(path, { readonly: true });
  try {
    return listCheckpoints(ledger).map((c) => c.treeSize);
  } finally {
    ledger.close();
  }
}

describe('checkpoints while a kernel appends', () => {
  it('every 5 entries and at close; every new note is in the anchor file and verifies under the kernel key against the entries', async () => {
    const anchor = join(dir, 'anchor-1.txt');
    const { kernel, path, call } = open({ checkpoints: { everyEntries: 5, anchorFile: anchor } });
    for (let i = 0; i < 12; i++) expect((await call(i)).ok).toBe(true);
    expect(storedSizes(path)).toEqual([5, 10]);
    await kernel.close();
    expect(storedSizes(path)).toEqual([5, 10, 12]);
    const { notes, malformed } = readAnchorFile(anchor);
    expect(malformed).toEqual([]);
    expect(
      notes.map((x) => verifyCheckpointNote(x.note, [KEY])).map((v) => (v.ok ? v.body.treeSize : v.reason)),
    ).toEqual([5, 10, 12]);
    const ledger = openLedger(path, { readonly: true });
    try {
      const v = verifyTree(ledger, {
        trustedKeys: new Set([KEY]),
        external: notes.map((x) => ({ source: `anchor:${x.line}`, note: x.note })),
      });
      expect(v).toMatchObject({ ok: true, treeSize: 12, checkpoints: 3, anchors: 3, failures: [] });
    } finally {
      ledger.close();
    }
  });

  it('while the ledger grows, a checkpoint every interval even below the entry count', async () => {
    const { kernel, path, call } = open({ checkpoints: { everyEntries: 1000, everySeconds: 1 } });
    await call(0);
    await call(1);
    const deadline = Date.now() + 20_000;
    while (storedSizes(path).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(storedSizes(path)).toEqual([2]);
    await kernel.close();
    expect(storedSizes(path)).toEqual([2]);
  });

  it('checkpoints: false signs none; a kernel that appended nothing leaves none at close', async () => {
    const off = open({ checkpoints: false });
    for (let i = 0; i < 3; i++) await off.call(i);
    await off.kernel.close();
    expect(storedSizes(off.path)).toEqual([]);
    const idle = open();
    await idle.kernel.close();
    expect(storedSizes(idle.path)).toEqual([]);
  });

  it("a ledger cut behind the kernel's back: the next checkpoint is refused and logged (CHIO-CHECKPOINT-INCONSISTENT), nothing is signed, and calls still run", async () => {
    const { kernel, path, call, logged } = open({ checkpoints: { everyEntries: 4 } });
    for (let i = 0; i < 4; i++) await call(i);
    expect(storedSizes(path)).toEqual([4]);
    // The operator's cut: the delete trigger dropped, the tail deleted, the projections (the
    // stored subtrees among them) re-derived from what is left.
    const raw = new Database(path);
    raw.exec('DROP TRIGGER ledger_entries_no_delete');
    raw.prepare('DELETE FROM ledger_entries WHERE seq >= 3').run();
    raw.close();
    const ledger = openLedger(path);
    rebuildProjections(ledger);
    ledger.close();
    for (let i = 4; i < 12; i++) expect((await call(i)).ok).toBe(true);
    expect(kernel.checkpointer?.lastError?.code).toBe('CHIO-CHECKPOINT-INCONSISTENT');
    expect(logged.some((m) => m.includes('CHIO-CHECKPOINT-INCONSISTENT'))).toBe(true);
    expect(storedSizes(path)).toEqual([4]);
    await kernel.close();
    expect(storedSizes(path)).toEqual([4]);
  });
});
