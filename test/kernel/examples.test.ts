// examples/hello-tool runs as its README says: one allowed and one denied call, receipts that verify under the pinned kernel key, revocable from the CLI.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
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
      expect(r.stdout).toMatch(
        /denied {7}receipt [0-9a-f]{64} → forbidden-path: path matches a forbidden pattern: \/etc\/shadow/,
      );
    }
    const db = `${cwd}/hello-tool.sqlite`;
    const verify = chio(['ledger', 'verify', '--receipt-db', db, '--trusted-kernel-pubkey', `${db}.kernel.pub`]);
    expect(verify.status, verify.stdout).toBe(0);
    expect(verify.stdout).toMatch(/^OK: 4 entries verified/);
    const capId = /capability {3}(cap-\S+)/.exec(runs[0]!.stdout)![1]!;
    const revoke = chio([
      'capability',
      'revoke',
      capId,
      '--kernel-seed-file',
      `${db}.kernel.seed`,
      '--receipt-db',
      db,
      '--reason',
      'demo',
      '--json',
    ]);
    expect(revoke.status, revoke.stderr).toBe(0);
    expect(JSON.parse(revoke.stdout)).toMatchObject({ revoked: capId, seq: 5 });
    const rows = chio(['sql', 'select revoked_capability_id, reason from revocations', '--receipt-db', db, '--json']);
    expect(JSON.parse(rows.stdout)).toEqual({ revoked_capability_id: capId, reason: 'demo' });
    expect(
      chio(['capability', 'revoke', 'not-an-id', '--kernel-seed-file', `${db}.kernel.seed`, '--receipt-db', db]).status,
    ).toBe(2);
  });
});

describe('examples/hello-mcp', () => {
  it('smoke.sh passes: artifacts written, edge.log empty, the bridge receipt in a verifiable ledger', () => {
    const home = tempDir();
    const smoke = fileURLToPath(new URL('../../examples/hello-mcp/smoke.sh', import.meta.url));
    const r = spawnSync('bash', [smoke], { encoding: 'utf8', env: { ...process.env, HELLO_MCP_HOME: home } });
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toBe('hello-mcp smoke passed');
    const artifacts = /^artifacts: (.+)$/.exec(lines[1]!)![1]!;
    const bridge = /^bridge receipt: ([0-9a-f]{64})$/.exec(lines[2]!)![1]!;
    for (const f of [
      'initialize-response.json',
      'tools-list-response.json',
      'tool-call-response.json',
      'bridge-call.json',
    ]) {
      expect(existsSync(`${artifacts}/${f}`), f).toBe(true);
    }
    expect(JSON.parse(readFileSync(`${artifacts}/tool-call-response.json`, 'utf8')).result.structuredContent).toEqual({
      message: 'hello from mcp, world',
      arguments: { name: 'world' },
    });
    // The edge's stderr log lives in this run's artifacts directory, as upstream's smoke writes it, and is empty.
    expect(artifacts.startsWith(`${home}/.artifacts/`)).toBe(true);
    expect(statSync(`${artifacts}/logs/edge.log`).size).toBe(0);
    expect(existsSync(`${home}/logs`)).toBe(false);
    const show = chio(['receipt', 'show', bridge, '--receipt-db', `${home}/.state/receipts.sqlite`, '--json']);
    expect(JSON.parse(show.stdout)).toMatchObject({
      valid: true,
      receipt: { tool_name: 'hello_tool', decision: { verdict: 'allow' } },
    });
    expect(chio(['ledger', 'verify', '--receipt-db', `${home}/.state/receipts.sqlite`]).stdout).toMatch(
      /^OK: 2 entries verified, 2 sessions/,
    );
  });
});
