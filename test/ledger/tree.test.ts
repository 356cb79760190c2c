// The ledger's Merkle tree (DESIGN §10) as the append path stores it: every complete subtree equals
// the tree recomputed from the entries at every size, a root or proof costs O(log n) row reads (at
// 100,000 entries too), the subtrees of a ledger written before schema 7 are computed when it is
// upgraded, and `rebuild-projections` re-derives them.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import {
  MemoryMerkleTree,
  merkleLeafHash,
  merkleRoot,
  sha256Hex,
  toHex,
  fromHex,
  verifyConsistency,
  verifyInclusion,
} from '../../src/crypto/index.js';
import {
  appendReceiptSync,
  entryLeafHash,
  LedgerTree,
  openLedger,
  rebuildMerkleSubtrees,
  rebuildProjections,
  verifyChain,
} from '../../src/ledger/index.js';
import { signReceipt } from '../../src/receipt/index.js';
import { allowDraft, testSigner } from '../helpers/receipts.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('chio-tree-');
let n = 0;
const fresh = () => join(dir, `t-${++n}.sqlite`);

function appendMany(path: string, count: number, from = 0): void {
  const ledger = openLedger(path);
  try {
    for (let i = from; i < from + count; i++)
      appendReceiptSync(ledger, {
        receipt: signReceipt(allowDraft(i), testSigner, { nonce: `n-${i}` }),
        sessionId: `s-${i % 3}`,
      });
  } finally {
    ledger.close();
  }
}

function storedRows(path: string): Array<{ level: number; idx: number; hash: string }> {
  const ledger = openLedger(path, { readonly: true });
  try {
    return (
      ledger.db.prepare('SELECT level, idx, hash FROM merkle_subtrees ORDER BY level, idx').all() as Array<{
        level: number;
        idx: number;
        hash: Buffer;
      }>
    ).map((r) => ({ level: r.level, idx: r.idx, hash: r.hash.toString('hex') }));
  } finally {
    ledger.close();
  }
}

function entryHashes(path: string): string[] {
  const ledger = openLedger(path, { readonly: true });
  try {
    return (
      ledger.db.prepare('SELECT entry_hash FROM ledger_entries ORDER BY seq').all() as Array<{ entry_hash: string }>
    ).map((r) => r.entry_hash);
  } finally {
    ledger.close();
  }
}

describe('the stored Merkle tree', () => {
  it("after every append of 70 real receipts, the stored root equals the RFC 6962 root recomputed from the entries, and every stored subtree is one of the tree's", () => {
    const path = fresh();
    const ledger = openLedger(path);
    const mem = new MemoryMerkleTree();
    try {
      for (let i = 0; i < 70; i++) {
        const r = appendReceiptSync(ledger, {
          receipt: signReceipt(allowDraft(i), testSigner, { nonce: `n-${i}` }),
          sessionId: 's',
        });
        mem.append(merkleLeafHash(fromHex(r.entryHash)));
        const tree = new LedgerTree(ledger.db);
        expect(toHex(tree.root(i + 1)), `size ${i + 1}`).toBe(toHex(mem.root()));
      }
    } finally {
      ledger.close();
    }
    const rows = storedRows(path);
    // floor(70/2) + floor(70/4) + … = 35 + 17 + 8 + 4 + 2 + 1
    expect(rows).toHaveLength(67);
    for (const r of rows) expect(r.hash, `${r.level}/${r.idx}`).toBe(toHex(mem.read(r.level, r.idx)));
  });

  it('inclusion and consistency proofs from the stored tree verify against the recomputed roots, at every size of a 40-entry ledger', () => {
    const path = fresh();
    appendMany(path, 40);
    const hashes = entryHashes(path);
    const leaves = hashes.map((h) => merkleLeafHash(fromHex(h)));
    const ledger = openLedger(path, { readonly: true });
    try {
      const tree = new LedgerTree(ledger.db);
      for (let size = 1; size <= 40; size++) {
        const root = merkleRoot(size, (level, index) => {
          const mem = new MemoryMerkleTree();
          for (const l of leaves.slice(index * 2 ** level, (index + 1) * 2 ** level)) mem.append(l);
          return mem.root();
        });
        for (let i = 0; i < size; i++)
          expect(verifyInclusion(leaves[i]!, i, size, tree.inclusion(i, size), root), `${i} in ${size}`).toBe(true);
        for (let old = 1; old <= size; old++) {
          expect(
            verifyConsistency(old, size, tree.consistency(old, size), tree.root(old), root),
            `${old} → ${size}`,
          ).toBe(true);
        }
      }
    } finally {
      ledger.close();
    }
  });

  it('a ledger of 100,000 entries proves any entry in O(log n) row reads (counted), and each proof leads to the root', () => {
    // The entries are linked rows written straight into the table (the tree reads only seq and
    // entry_hash; signing 100,000 receipts would only slow the test), then the subtrees are derived.
    const path = fresh();
    appendMany(path, 1);
    const size = 100_000;
    const ledger = openLedger(path);
    const mem = new MemoryMerkleTree();
    try {
      const first = ledger.db.prepare('SELECT * FROM ledger_entries WHERE seq = 1').get() as Record<string, unknown>;
      mem.append(entryLeafHash(first.entry_hash as string));
      const insert =
        ledger.db.prepare(`INSERT INTO ledger_entries (seq, kind, receipt_id, session_id, session_prev_seq, prev_hash, entry_hash, body, timestamp, capability_id, tool_server, tool_name, verdict, receipt_kind, trust_level, kernel_key, tenant_id, producer)
        VALUES (@seq, @kind, @receipt_id, NULL, NULL, @prev_hash, @entry_hash, @body, @timestamp, @capability_id, @tool_server, @tool_name, @verdict, @receipt_kind, @trust_level, @kernel_key, NULL, @producer)`);
      ledger.db
        .transaction(() => {
          let prev = first.entry_hash as string;
          for (let seq = 2; seq <= size; seq++) {
            const entryHash = sha256Hex(`${seq}:${prev}`);
            insert.run({ ...first, seq, receipt_id: sha256Hex(`r${seq}`), prev_hash: prev, entry_hash: entryHash });
            mem.append(entryLeafHash(entryHash));
            prev = entryHash;
          }
          rebuildMerkleSubtrees(ledger.db);
        })
        .immediate();
      const tree = new LedgerTree(ledger.db);
      const root = mem.root();
      const bound = 2 * Math.ceil(Math.log2(size)) + 2;
      for (const seq of [1, 2, 777, 50_000, 65_536, 65_537, 99_999, 100_000]) {
        tree.reads = 0;
        const proof = tree.inclusion(seq - 1, size);
        expect(tree.reads, `reads for seq ${seq}`).toBeLessThanOrEqual(bound);
        expect(verifyInclusion(mem.read(0, seq - 1), seq - 1, size, proof, root)).toBe(true);
      }
      tree.reads = 0;
      expect(toHex(tree.root(size))).toBe(toHex(root));
      expect(tree.reads).toBeLessThanOrEqual(bound);
      tree.reads = 0;
      expect(verifyConsistency(31_337, size, tree.consistency(31_337, size), merkleRoot(31_337, mem.read), root)).toBe(
        true,
      );
    } finally {
      ledger.close();
    }
  }, 120_000);

  it('rebuild-projections re-derives a damaged subtree table, and a schema-6 ledger gets its subtrees when it is upgraded', () => {
    const path = fresh();
    appendMany(path, 37);
    const before = storedRows(path);
    const raw = new Database(path);
    raw.prepare('DELETE FROM merkle_subtrees WHERE level = 2').run();
    raw.prepare('UPDATE merkle_subtrees SET hash = zeroblob(32) WHERE level = 1 AND idx = 3').run();
    raw.close();
    expect(storedRows(path)).not.toEqual(before);
    const ledger = openLedger(path);
    try {
      expect(rebuildProjections(ledger).subtrees).toBe(before.length);
      expect(verifyChain(ledger).ok).toBe(true);
    } finally {
      ledger.close();
    }
    expect(storedRows(path)).toEqual(before);

    // Back to schema 6: no tree tables, and the verdict and timestamp indexes schema 8 replaced;
    // opening it for writing migrates and computes them.
    const old = new Database(path);
    old.exec('DROP TABLE merkle_subtrees; DROP TABLE ledger_checkpoints;');
    old.exec(`DROP INDEX ledger_entries_timestamp_verdict; DROP INDEX ledger_entries_verdict_not_allow;
      CREATE INDEX ledger_entries_timestamp ON ledger_entries (timestamp); CREATE INDEX ledger_entries_verdict ON ledger_entries (verdict);`);
    old.pragma('user_version = 6');
    old.close();
    openLedger(path).close();
    expect(storedRows(path)).toEqual(before);
    appendMany(path, 5, 37);
    const mem = new MemoryMerkleTree();
    for (const h of entryHashes(path)) mem.append(merkleLeafHash(fromHex(h)));
    const l = openLedger(path, { readonly: true });
    try {
      expect(toHex(new LedgerTree(l.db).root(42))).toBe(toHex(mem.root()));
    } finally {
      l.close();
    }
  });
});
