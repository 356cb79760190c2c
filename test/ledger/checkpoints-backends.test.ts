// The Merkle tree and signed checkpoints on both ledgers (an SQLite file, a PostgreSQL server): a kernel checkpoints
// while it appends and at close on either; the same entries give the same stored subtrees and the same signed note,
// byte for byte; a tail cut by the operator fails chio ledger verify against the stored checkpoints and, with those
// deleted too, against an anchor file, and no new checkpoint is signed over it; a PostgreSQL ledger of schema 3 gets
// its subtrees derived when it is opened for writing.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromHex, signerFromSeed } from '../../src/crypto/index.js';
import { Kernel } from '../../src/kernel/index.js';
import { isPostgresUrl, openPgLedger } from '../../src/ledger/pg/index.js';
import { ledgerExec, ledgerRows } from '../helpers/any-ledger.js';
import { chio, errorCode } from '../helpers/cli.js';
import { kernelLedger } from '../helpers/kernel-ledger.js';
import { admin, freshPgDatabase } from '../helpers/postgres.js';
import { tempDir } from '../helpers/tmp.js';
import { CountingToolServer } from '../helpers/tool-server.js';

const dir = tempDir();
let n = 0;
const seedFile = join(dir, 'kernel.seed');
const pubFile = join(dir, 'kernel.pub');
writeFileSync(seedFile, `${'07'.repeat(32)}\n`);
writeFileSync(pubFile, `${signerFromSeed(fromHex('07'.repeat(32))).publicKeyHex}\n`);

const backends: Array<[string, () => Promise<string>]> = [
  ['SQLite', async () => join(dir, `t-${++n}.sqlite`)],
  ['PostgreSQL', async () => (await freshPgDatabase()).url],
];

const subtrees = (location: string) =>
  ledgerRows<{ level: number; idx: number; hash: Buffer }>(
    location,
    'SELECT level, idx, hash FROM merkle_subtrees ORDER BY level, idx',
  ).then((rows) => rows.map((r) => `${r.level}:${r.idx}:${Buffer.from(r.hash).toString('hex')}`));

describe.each(backends)('checkpoints on %s', (_name, fresh) => {
  it('a kernel checkpoints every 5 entries and at close; chio ledger verify checks every stored checkpoint against the entries', async () => {
    const location = await fresh();
    const kernel = await Kernel.connect({
      ledgerPath: location,
      seed: fromHex('07'.repeat(32)),
      checkpoints: { everyEntries: 5 },
    });
    kernel.registerToolServer(new CountingToolServer());
    const agent = signerFromSeed(fromHex('08'.repeat(32)));
    const cap = kernel.issueCapability({ subject: agent.publicKeyHex });
    for (let i = 0; i < 12; i++) {
      await kernel.evaluateToolCall({
        capability: cap,
        caller: agent.publicKeyHex,
        serverId: 'fs',
        toolName: 'hello_tool',
        arguments: { name: `n${i}` },
        sessionId: 's',
      });
      // Checkpoints are made after the append that makes them due: let one in flight finish.
      await new Promise((r) => setTimeout(r, 20));
    }
    await kernel.close();
    const sizes = (
      await ledgerRows<{ tree_size: number }>(location, 'SELECT tree_size FROM ledger_checkpoints ORDER BY tree_size')
    ).map((r) => r.tree_size);
    expect(sizes).toEqual([5, 10, 12]);
    const v = chio(['ledger', 'verify', '--receipt-db', location, '--trusted-kernel-pubkey', pubFile]);
    expect(v.status, v.stdout + v.stderr).toBe(0);
    expect(v.stdout).toMatch(/merkle\s+tree of 12 entries, root [0-9a-f]{64}; 3 stored checkpoints match the entries/);
  });

  it('a tail cut by the operator: verify fails on the stored checkpoint, a new one is refused, and with those deleted the anchor file still fails it', async () => {
    const location = await fresh();
    const source = join(dir, `source-${++n}.sqlite`);
    await kernelLedger(source, 12);
    if (isPostgresUrl(location)) expect(chio(['ledger', 'copy', '--from', source, '--to', location]).status).toBe(0);
    else writeFileSync(location, readFileSync(source));
    const anchor = join(dir, `anchor-${++n}.txt`);
    const made = chio([
      'ledger',
      'checkpoint',
      '--receipt-db',
      location,
      '--kernel-seed-file',
      seedFile,
      '--anchor-file',
      anchor,
    ]);
    expect(made.status, made.stderr).toBe(0);
    await ledgerExec(
      location,
      isPostgresUrl(location)
        ? 'ALTER TABLE ledger_entries DISABLE TRIGGER USER; DELETE FROM ledger_entries WHERE seq >= 10'
        : 'DROP TRIGGER ledger_entries_no_delete; DELETE FROM ledger_entries WHERE seq >= 10',
    );
    const v = chio(['ledger', 'verify', '--receipt-db', location, '--trusted-kernel-pubkey', pubFile, '--json']);
    expect(v.status).toBe(1);
    const verdict = JSON.parse(v.stdout);
    expect(verdict.ok).toBe(false);
    expect(verdict.merkle.failures.map((f: { check: string }) => f.check)).toContain('checkpoint_size');
    const again = chio(['ledger', 'checkpoint', '--receipt-db', location, '--kernel-seed-file', seedFile]);
    expect(again.status).not.toBe(0);
    expect(errorCode(again.stderr)).toBe('CHIO-CHECKPOINT-INCONSISTENT');
    // The operator deletes the stored checkpoints too: the note kept elsewhere still catches the cut.
    await ledgerExec(
      location,
      isPostgresUrl(location)
        ? 'ALTER TABLE ledger_checkpoints DISABLE TRIGGER USER; DELETE FROM ledger_checkpoints'
        : 'DROP TRIGGER IF EXISTS ledger_checkpoints_no_delete; DELETE FROM ledger_checkpoints',
    );
    const anchored = chio([
      'ledger',
      'verify',
      '--receipt-db',
      location,
      '--trusted-kernel-pubkey',
      pubFile,
      '--anchor-file',
      anchor,
    ]);
    expect(anchored.status).toBe(1);
    expect(anchored.stdout).toMatch(/anchor_size: the checkpoint covers 13 entries but the ledger holds 9/);
  });
});

describe('the same entries on both stores', () => {
  it('give the same stored subtrees and the same signed checkpoint note, byte for byte', async () => {
    const file = join(dir, 'same.sqlite');
    await kernelLedger(file, 99); // 100 entries with the revocation: subtrees up to level 6
    const { url } = await freshPgDatabase();
    expect(chio(['ledger', 'copy', '--from', file, '--to', url]).status).toBe(0);
    expect(await subtrees(url)).toEqual(await subtrees(file));
    expect((await subtrees(file)).length).toBe(50 + 25 + 12 + 6 + 3 + 1);
    const notes = [file, url].map((location) => {
      const r = chio([
        'ledger',
        'checkpoint',
        '--receipt-db',
        location,
        '--kernel-seed-file',
        seedFile,
        '--origin',
        'chio-ledger/test',
      ]);
      expect(r.status, r.stderr).toBe(0);
      return r.stdout;
    });
    expect(notes[1]).toBe(notes[0]);
  });

  it('give the same inclusion and consistency proofs; a bundle exported from PostgreSQL verifies offline', async () => {
    const file = join(dir, 'proofs.sqlite');
    await kernelLedger(file, 30);
    const { url } = await freshPgDatabase();
    expect(chio(['ledger', 'copy', '--from', file, '--to', url]).status).toBe(0);
    for (const location of [file, url])
      expect(
        chio([
          'ledger',
          'checkpoint',
          '--receipt-db',
          location,
          '--kernel-seed-file',
          seedFile,
          '--origin',
          'chio-ledger/test',
        ]).status,
      ).toBe(0);
    const id = (
      await ledgerRows<{ receipt_id: string }>(file, 'SELECT receipt_id FROM ledger_entries WHERE seq = 17')
    )[0]!.receipt_id;
    for (const args of [
      ['--receipt-id', id],
      ['--receipt-id', id, '--tree-size', '20'],
      ['--consistency', '--old-size', '7'],
      ['--consistency', '--old-size', '7', '--new-size', '29'],
    ]) {
      const [lite, post] = [file, url].map((location) => chio(['ledger', 'prove', '--receipt-db', location, ...args]));
      expect(post!.status, post!.stderr).toBe(0);
      expect(post!.stdout, args.join(' ')).toBe(lite!.stdout);
    }
    const bundle = join(dir, 'session.evidence.json');
    const exported = chio([
      'evidence',
      'export',
      '--receipt-db',
      url,
      '--session-id',
      's-1',
      '--kernel-seed-file',
      seedFile,
      '--output',
      bundle,
    ]);
    expect(exported.status, exported.stderr).toBe(0);
    expect(exported.stdout).toMatch(/session s-1, 10 receipts, proofs against the checkpoint of 31 entries/);
    const checked = chio(['evidence', 'verify', bundle, '--trusted-kernel-pubkey', pubFile]);
    expect(checked.status, checked.stdout + checked.stderr).toBe(0);
    expect(checked.stdout).toMatch(/^PASS: session s-1: 10 receipts/);
  });

  it('chio ledger rebuild-projections re-derives what an operator damaged on PostgreSQL: the same projections as SQLite derives', async () => {
    const file = join(dir, 'rebuild.sqlite');
    await kernelLedger(file, 25);
    const { url, name } = await freshPgDatabase();
    expect(chio(['ledger', 'copy', '--from', file, '--to', url]).status).toBe(0);
    const projections = async (location: string) =>
      Promise.all([
        ledgerRows(location, 'SELECT * FROM ledger_sessions ORDER BY session_id'),
        ledgerRows(location, 'SELECT * FROM revoked_capabilities ORDER BY capability_id'),
        ledgerRows(location, 'SELECT * FROM grant_usage ORDER BY capability_id, grant_index'),
        subtrees(location),
      ]);
    const expected = await projections(file);
    await admin(
      "DELETE FROM ledger_sessions WHERE session_id = 's-1'; DELETE FROM revoked_capabilities; UPDATE grant_usage SET invocations = 0; DELETE FROM merkle_subtrees WHERE level = 2",
      [],
      name,
    );
    expect(chio(['ledger', 'verify', '--receipt-db', url]).status).toBe(1);
    const r = chio(['ledger', 'rebuild-projections', '--receipt-db', url, '--json']);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ sessions: 3, revocations: 1, grants: 1, subtrees: 13 + 6 + 3 + 1 });
    expect(await projections(url)).toEqual(expected);
    expect(chio(['ledger', 'verify', '--receipt-db', url]).status).toBe(0);
  });

  it('a PostgreSQL ledger of schema 3 (no subtrees kept) gets them derived when opened for writing, and verifies', async () => {
    const file = join(dir, 'old.sqlite');
    await kernelLedger(file, 20);
    const { url, name } = await freshPgDatabase();
    expect(chio(['ledger', 'copy', '--from', file, '--to', url]).status).toBe(0);
    const expected = await subtrees(url);
    await admin('DELETE FROM merkle_subtrees', [], name);
    await admin('UPDATE chio_ledger_meta SET schema_version = 3', [], name);
    const readOnly = chio(['ledger', 'verify', '--receipt-db', url]);
    expect(readOnly.status).not.toBe(0); // a read-only open does not migrate
    await (await openPgLedger(url)).close();
    expect(await subtrees(url)).toEqual(expected);
    expect(await ledgerRows(url, 'SELECT schema_version FROM chio_ledger_meta')).toEqual([{ schema_version: 4 }]);
    expect(chio(['ledger', 'verify', '--receipt-db', url]).status).toBe(0);
  });
});
