// Checkpoints, anchors and proofs through the built CLI, attacked the way an operator who wants a
// receipt gone would: cut the tail (dropping the delete trigger and rebuilding projections), remove
// the stored checkpoints too, or rebuild a ledger from the original signed receipts without one.
// The chain alone says OK to all of these; a checkpoint kept outside the ledger does not.
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { Kernel } from '../../src/kernel/index.js';
import { appendReceiptSync, openLedger } from '../../src/ledger/index.js';
import { kernelKeyFiles } from '../helpers/acp-proxy-ledger.js';
import { chio, errorCode } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { CountingToolServer } from '../helpers/tool-server.js';

const dir = tempDir('chio-checkpoints-cli-');
const keys = kernelKeyFiles(dir, 'd1');
const other = kernelKeyFiles(dir, 'd2');
const agent = kernelKeyFiles(dir, 'd3');

/** 12 governed calls in two sessions, every fourth denied (forbidden path); no automatic checkpoints. */
async function governedLedger(path: string, calls = 12): Promise<void> {
  const kernel = Kernel.open({ ledgerPath: path, seedFile: keys.seedFile, checkpoints: false });
  kernel.registerToolServer(new CountingToolServer());
  const cap = kernel.issueCapability({ subject: agent.publicKeyHex });
  for (let i = 0; i < calls; i++) {
    await kernel.evaluateToolCall({
      capability: cap,
      caller: agent.publicKeyHex,
      serverId: 'fs',
      toolName: 'read_file',
      arguments: { path: i % 4 === 3 ? '/etc/shadow' : `/workspace/f-${i}` },
      sessionId: i % 2 === 0 ? 'sess-a' : 'sess-b',
    });
  }
  await kernel.close();
}

const verifyAnchored = (db: string, ...extra: string[]) =>
  chio(['--receipt-db', db, 'ledger', 'verify', '--trusted-kernel-pubkey', keys.pubFile, ...extra]);

/** Removes the delete trigger and deletes entries (and, with `checkpoints`, the stored checkpoints), then rebuilds the projections: the operator's cut. */
function cut(db: string, fromSeq: number, options: { checkpoints?: boolean } = {}): void {
  const raw = new Database(db);
  raw.exec('DROP TRIGGER ledger_entries_no_delete');
  raw.prepare('DELETE FROM ledger_entries WHERE seq >= ?').run(fromSeq);
  if (options.checkpoints === true) {
    raw.exec('DROP TRIGGER ledger_checkpoints_no_delete');
    raw.exec('DELETE FROM ledger_checkpoints');
  }
  raw.close();
  expect(chio(['--receipt-db', db, 'ledger', 'rebuild-projections']).status).toBe(0);
}

describe('chio ledger checkpoint and verify against anchors', () => {
  const db = join(dir, 'ledger.sqlite');
  const anchor = join(dir, 'anchor.txt');
  beforeAll(async () => {
    await governedLedger(db, 6);
    expect(
      chio(['--receipt-db', db, 'ledger', 'checkpoint', '--kernel-seed-file', keys.seedFile, '--anchor-file', anchor])
        .status,
    ).toBe(0);
    const kernel = Kernel.open({ ledgerPath: db, seedFile: keys.seedFile, checkpoints: false });
    kernel.registerToolServer(new CountingToolServer());
    const cap = kernel.issueCapability({ subject: agent.publicKeyHex });
    for (let i = 6; i < 12; i++)
      await kernel.evaluateToolCall({
        capability: cap,
        caller: agent.publicKeyHex,
        serverId: 'fs',
        toolName: 'read_file',
        arguments: { path: i % 4 === 3 ? '/etc/shadow' : `/workspace/f-${i}` },
        sessionId: 'sess-b',
      });
    await kernel.close();
  });

  it('prints the signed note it stores and anchors; the same tree is not signed twice; verify with the anchor file passes', () => {
    const r = chio([
      '--receipt-db',
      db,
      'ledger',
      'checkpoint',
      '--kernel-seed-file',
      keys.seedFile,
      '--anchor-file',
      anchor,
    ]);
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/^chio-ledger\/[0-9a-f]{32}$/);
    expect(lines[1]).toBe('12');
    expect(lines[2]).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(lines[3]).toBe('');
    expect(lines[4]).toMatch(new RegExp(`^\u2014 ${lines[0]!.replace('/', '\\/')} [A-Za-z0-9+/]+=*$`));
    const again = chio(['--receipt-db', db, 'ledger', 'checkpoint', '--kernel-seed-file', keys.seedFile, '--json']);
    expect(JSON.parse(again.stdout)).toMatchObject({ tree_size: 12, created: false, note: r.stdout });
    expect(readFileSync(anchor, 'utf8').split('\u2014 ').length - 1).toBe(2);
    const v = verifyAnchored(db, '--anchor-file', anchor);
    expect(v.status, v.stdout + v.stderr).toBe(0);
    expect(v.stdout).toMatch(
      /tree of 12 entries, root [0-9a-f]{64}; 2 stored checkpoints, 2 anchored notes match the entries/,
    );
  });

  it('a note signed by a key that is not trusted proves nothing (exit 1); --checkpoint without a trusted key is a usage error (exit 2)', async () => {
    const note = join(dir, 'other-note.txt');
    const copy = join(dir, 'other.sqlite');
    await governedLedger(copy, 3);
    const o = chio(['--receipt-db', copy, 'ledger', 'checkpoint', '--kernel-seed-file', other.seedFile]);
    expect(o.status, o.stderr).toBe(0);
    writeFileSync(note, o.stdout);
    const r = verifyAnchored(db, '--checkpoint', note);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/FAIL: .*other-note\.txt: anchor_signature: /);
    const bare = chio(['--receipt-db', db, 'ledger', 'verify', '--checkpoint', note]);
    expect(bare.status).toBe(2);
    expect(errorCode(bare.stderr)).toBe('CHIO-CLI-USAGE');
  });

  it('the tail cut (delete trigger dropped, seq >= 7 deleted, projections rebuilt): the stored checkpoint fails it, a new checkpoint is refused, and with the stored ones deleted too the anchor still fails it', () => {
    const victim = join(dir, 'cut.sqlite');
    copyFileSync(db, victim);
    cut(victim, 7);
    // The chain of what is left is intact: the chain walk alone has nothing to say.
    const plain = chio(['--receipt-db', victim, 'ledger', 'verify', '--trusted-kernel-pubkey', keys.pubFile]);
    expect(plain.status).toBe(1);
    expect(plain.stdout).toContain(
      'FAIL: ledger checkpoint 12: checkpoint_size: the checkpoint covers 12 entries but the ledger holds 6: 6 entries after seq 6 are gone',
    );
    const refused = chio(['--receipt-db', victim, 'ledger', 'checkpoint', '--kernel-seed-file', keys.seedFile]);
    expect(refused.status).toBe(1);
    expect(errorCode(refused.stderr)).toBe('CHIO-CHECKPOINT-INCONSISTENT');

    const worse = join(dir, 'cut-all.sqlite');
    copyFileSync(db, worse);
    cut(worse, 7, { checkpoints: true });
    expect(
      chio(['--receipt-db', worse, 'ledger', 'verify', '--trusted-kernel-pubkey', keys.pubFile]).status,
      'without an anchor the cut is invisible',
    ).toBe(0);
    const anchored = verifyAnchored(worse, '--anchor-file', anchor);
    expect(anchored.status).toBe(1);
    expect(anchored.stdout).toMatch(
      /FAIL: .*anchor\.txt:\d+: anchor_size: the checkpoint covers 12 entries but the ledger holds 6/,
    );
    expect(anchored.stdout).toContain('the entries still match the checkpoint of size 6');
  });

  it('one receipt removed from the middle and the original signed receipts re-appended into a fresh ledger: the chain verifies, the anchored checkpoints do not', () => {
    const rebuilt = join(dir, 'rebuilt.sqlite');
    const source = openLedger(db, { readonly: true });
    const rows = source.db
      .prepare('SELECT seq, session_id, body, producer FROM ledger_entries ORDER BY seq')
      .all() as Array<{ seq: number; session_id: string | null; body: string; producer: string }>;
    source.close();
    const target = openLedger(rebuilt);
    for (const r of rows.filter((r) => r.seq !== 4))
      appendReceiptSync(target, { receipt: JSON.parse(r.body), sessionId: r.session_id, producer: r.producer });
    target.close();
    expect(chio(['--receipt-db', rebuilt, 'ledger', 'verify', '--trusted-kernel-pubkey', keys.pubFile]).status).toBe(0);
    const r = verifyAnchored(rebuilt, '--anchor-file', anchor);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(
      /anchor_root: the ledger's first 6 entries hash to root [0-9a-f]{64}, not [0-9a-f]{64} as the checkpoint of size 6 says: an entry at or before seq 6 was changed, removed or reordered/,
    );
    expect(r.stdout).toMatch(/anchor_size: the checkpoint covers 12 entries but the ledger holds 11/);
  });
});

describe('chio ledger prove and chio proof verify', () => {
  const db = join(dir, 'prove.sqlite');
  const small = join(dir, 'note-6.txt');
  const large = join(dir, 'note-12.txt');
  beforeAll(async () => {
    await governedLedger(db, 6);
    writeFileSync(
      small,
      chio(['--receipt-db', db, 'ledger', 'checkpoint', '--kernel-seed-file', keys.seedFile]).stdout,
    );
    const kernel = Kernel.open({ ledgerPath: db, seedFile: keys.seedFile, checkpoints: false });
    kernel.registerToolServer(new CountingToolServer());
    const cap = kernel.issueCapability({ subject: agent.publicKeyHex });
    for (let i = 0; i < 6; i++)
      await kernel.evaluateToolCall({
        capability: cap,
        caller: agent.publicKeyHex,
        serverId: 'fs',
        toolName: 'read_file',
        arguments: { path: `/workspace/g-${i}` },
        sessionId: 'sess-c',
      });
    await kernel.close();
    writeFileSync(
      large,
      chio(['--receipt-db', db, 'ledger', 'checkpoint', '--kernel-seed-file', keys.seedFile]).stdout,
    );
  });
  const receiptAt = (seq: number) => {
    const l = openLedger(db, { readonly: true });
    const id = (l.db.prepare('SELECT receipt_id FROM ledger_entries WHERE seq = ?').get(seq) as { receipt_id: string })
      .receipt_id;
    l.close();
    return id;
  };
  const verifyProof = (proof: unknown, ...notes: string[]) => {
    const f = join(dir, `proof-${Math.random().toString(16).slice(2)}.json`);
    writeFileSync(f, JSON.stringify(proof));
    return chio([
      'proof',
      'verify',
      f,
      ...notes.flatMap((n) => ['--checkpoint', n]),
      '--trusted-kernel-pubkey',
      keys.pubFile,
    ]);
  };

  it('an inclusion proof of a receipt against the latest checkpoint verifies offline; altered, it does not', () => {
    const r = chio(['--receipt-db', db, 'ledger', 'prove', '--receipt-id', receiptAt(3)]);
    expect(r.status, r.stderr).toBe(0);
    const proof = JSON.parse(r.stdout);
    expect(proof).toMatchObject({ schema: 'chio.inclusion-proof.v1', seq: 3, leaf_index: 2, tree_size: 12 });
    expect(proof.hashes).toHaveLength(4);
    const ok = verifyProof(proof, large);
    expect(ok.status, ok.stdout + ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^PASS: entry seq 3 is in the tree of 12 entries signed by [0-9a-f]{64}/);
    const flipped = { ...proof, hashes: [proof.hashes[1], proof.hashes[0], ...proof.hashes.slice(2)] };
    expect(verifyProof(flipped, large).status).toBe(1);
    expect(verifyProof({ ...proof, seq: 4, leaf_index: 3 }, large).status).toBe(1);
    expect(verifyProof(proof, small).stdout).toMatch(/^FAIL: no checkpoint given for tree size 12/);
    const againstSmall = JSON.parse(
      chio(['--receipt-db', db, 'ledger', 'prove', '--receipt-id', receiptAt(3), '--tree-size', '6']).stdout,
    );
    expect(verifyProof(againstSmall, small).status).toBe(0);
  });

  it('a consistency proof from the 6-entry checkpoint to the 12-entry one verifies; swapped checkpoints or a wrong size do not', () => {
    const r = chio(['--receipt-db', db, 'ledger', 'prove', '--consistency', '--old-size', '6']);
    expect(r.status, r.stderr).toBe(0);
    const proof = JSON.parse(r.stdout);
    expect(proof).toMatchObject({ schema: 'chio.consistency-proof.v1', old_size: 6, new_size: 12 });
    expect(verifyProof(proof, small, large).status).toBe(0);
    expect(verifyProof({ ...proof, hashes: proof.hashes.slice(1) }, small, large).status).toBe(1);
    expect(verifyProof(proof, large).stdout).toMatch(
      /^FAIL: a consistency proof needs a checkpoint of size 6 and one of size 12/,
    );
    const bad = chio(['--receipt-db', db, 'ledger', 'prove', '--consistency', '--old-size', '13']);
    expect(bad.status).toBe(2);
    expect(errorCode(bad.stderr)).toBe('CHIO-PROOF-NOT-FOUND');
  });
});
