// A ledger written before projections were kept per signing key (schema 5) is upgraded on open:
// revocations and grant usage are re-derived per kernel key, so a revocation another key signed
// while the old projection counted it stops revoking, and the result equals a fresh rebuild.
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { fromHex, signerFromSeed } from '../../src/crypto/index.js';
import { Kernel } from '../../src/kernel/index.js';
import {
  LEDGER_SCHEMA_VERSION,
  LedgerWriter,
  openLedger,
  rebuildProjections,
  verifyChain,
} from '../../src/ledger/index.js';
import { oldSchema } from '../helpers/old-schema.js';
import { tempDir } from '../helpers/tmp.js';
import { CountingToolServer } from '../helpers/tool-server.js';

const SEED = fromHex('81'.repeat(32));
const ROGUE_SEED = fromHex('82'.repeat(32));
const alice = signerFromSeed(fromHex('83'.repeat(32)));
const dir = tempDir();

const projections = (db: Database.Database) => ({
  revoked: db
    .prepare(
      'SELECT capability_id, kernel_key, seq, revoked_at FROM revoked_capabilities ORDER BY capability_id, kernel_key',
    )
    .all(),
  usage: db
    .prepare(
      'SELECT capability_id, grant_index, kernel_key, invocations FROM grant_usage ORDER BY capability_id, grant_index, kernel_key',
    )
    .all(),
});

describe('upgrading a schema-5 ledger to projections per signing key', () => {
  it('re-derives revocations and grant usage per key; a foreign revocation the old projection honoured no longer revokes', async () => {
    // Receipts as a current kernel writes them, plus one revocation signed by another key.
    const source = join(dir, 'source.sqlite');
    const kernel = Kernel.open({ ledgerPath: source, seed: SEED });
    kernel.registerToolServer(new CountingToolServer());
    const kept = kernel.issueCapability({
      subject: alice.publicKeyHex,
      scope: { grants: [{ server_id: 'fs', tool_name: 'read_file', operations: ['invoke'], max_invocations: 3 }] },
    });
    const gone = kernel.issueCapability({ subject: alice.publicKeyHex });
    const call = (capability: unknown) =>
      kernel.evaluateToolCall({
        capability,
        caller: alice.publicKeyHex,
        serverId: 'fs',
        toolName: 'read_file',
        arguments: { path: '/workspace/a' },
      });
    expect(await call(kept)).toMatchObject({ ok: true });
    expect(await call(kept)).toMatchObject({ ok: true });
    await kernel.revokeCapability(gone.id, 'rotated');
    await kernel.close();
    const rogue = Kernel.open({ ledgerPath: join(dir, 'rogue.sqlite'), seed: ROGUE_SEED });
    const forged = (await rogue.revokeCapability(kept.id, 'forged')).receipt;
    await rogue.close();
    const writable = openLedger(source);
    const writer = new LedgerWriter(writable);
    await writer.append({ receipt: forged, producer: 'hostile-writer' });
    await writer.close();
    writable.close();

    // The same entries in a file at schema 5, with the projections schema 5 kept (no key column).
    const path = join(dir, 'schema5.sqlite');
    const old = oldSchema(path, 5);
    old.prepare('ATTACH DATABASE ? AS src').run(source);
    old.exec(
      'INSERT INTO ledger_entries SELECT * FROM src.ledger_entries; INSERT INTO ledger_sessions SELECT * FROM src.ledger_sessions',
    );
    old.exec(`INSERT INTO revoked_capabilities (capability_id, seq, revoked_at)
      SELECT body ->> '$.action.parameters.capability_id', min(seq), min(timestamp) FROM ledger_entries WHERE kind = 'revocation' GROUP BY 1`);
    old.exec(`INSERT INTO grant_usage (capability_id, grant_index, invocations)
      SELECT capability_id, body ->> '$.metadata.chio_grant_index', count(*) FROM ledger_entries WHERE kind = 'receipt' AND verdict = 'allow' GROUP BY 1, 2`);
    expect(old.prepare('SELECT capability_id FROM revoked_capabilities ORDER BY 1').all()).toHaveLength(2);
    old.exec('DETACH DATABASE src');
    old.close();

    const upgraded = openLedger(path);
    expect(upgraded.db.pragma('user_version', { simple: true })).toBe(LEDGER_SCHEMA_VERSION);
    const migrated = projections(upgraded.db);
    const kernelKey = signerFromSeed(SEED).publicKeyHex;
    const rogueKey = signerFromSeed(ROGUE_SEED).publicKeyHex;
    expect(migrated.revoked).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ capability_id: gone.id, kernel_key: kernelKey }),
        expect.objectContaining({ capability_id: kept.id, kernel_key: rogueKey }),
      ]),
    );
    expect(migrated.usage).toEqual([{ capability_id: kept.id, grant_index: 0, kernel_key: kernelKey, invocations: 2 }]);
    rebuildProjections(upgraded);
    expect(projections(upgraded.db)).toEqual(migrated);
    expect(verifyChain(upgraded)).toMatchObject({ ok: true, entries: 4 });
    upgraded.close();

    // The kernel that owns the ledger: its own revocation holds, the foreign one does not, the budget is 2 of 3.
    const reopened = Kernel.open({ ledgerPath: path, seed: SEED });
    reopened.registerToolServer(new CountingToolServer());
    const use = (capability: unknown) =>
      reopened.evaluateToolCall({
        capability,
        caller: alice.publicKeyHex,
        serverId: 'fs',
        toolName: 'read_file',
        arguments: { path: '/workspace/a' },
      });
    expect(await use(gone)).toMatchObject({ ok: false, guard: 'revocation' });
    expect(await use(kept)).toMatchObject({ ok: true });
    expect(await use(kept)).toMatchObject({
      ok: false,
      guard: 'budget',
      reason: expect.stringContaining('used 3 of 3'),
    });
    await reopened.close();
  });
});
