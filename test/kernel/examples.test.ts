// examples/hello-tool runs as its README says: one allowed and one denied call, receipts that verify under the pinned kernel key, revocable from the CLI.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { chio } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const EXAMPLE = fileURLToPath(new URL('../../dist/examples/hello-tool/hello-tool.js', import.meta.url));

describe('examples/hello-tool', () => {
  it('prints an allowed and a denied receipt id, twice over one ledger, all verifying under one key; the CLI revokes', () => {
    const cwd = tempDir();
    const runs = [1, 2].map(() => spawnSync(process.execPath, [EXAMPLE], { cwd, encoding: 'utf8' }));
    for (const r of runs) {
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/allowed {6}receipt [0-9a-f]{64} → \{"message":"hello, world"\}/);
      expect(r.stdout).toMatch(/denied {7}receipt [0-9a-f]{64} → forbidden-path: path matches a forbidden pattern: \/etc\/shadow/);
    }
    const db = `${cwd}/hello-tool.sqlite`;
    const verify = chio(['ledger', 'verify', '--receipt-db', db, '--trusted-kernel-pubkey', `${db}.kernel.pub`]);
    expect(verify.status, verify.stdout).toBe(0);
    expect(verify.stdout).toMatch(/^OK: 4 entries verified/);
    const capId = /capability {3}(cap-\S+)/.exec(runs[0]!.stdout)![1]!;
    const revoke = chio(['capability', 'revoke', capId, '--kernel-seed-file', `${db}.kernel.seed`, '--receipt-db', db, '--reason', 'demo', '--json']);
    expect(revoke.status, revoke.stderr).toBe(0);
    expect(JSON.parse(revoke.stdout)).toMatchObject({ revoked: capId, seq: 5 });
    const rows = chio(['sql', 'select revoked_capability_id, reason from revocations', '--receipt-db', db, '--json']);
    expect(JSON.parse(rows.stdout)).toEqual({ revoked_capability_id: capId, reason: 'demo' });
    expect(chio(['capability', 'revoke', 'not-an-id', '--kernel-seed-file', `${db}.kernel.seed`, '--receipt-db', db]).status).toBe(2);
  });
});
