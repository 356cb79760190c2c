// `chio acp proxy --redaction-key-file`: with --enforce-capabilities the proxy's kernel governs the
// agent's fs and terminal requests, so a redacting policy needs the operator's redaction key (the
// proxy refuses to start without it) and the kernel's receipts carry a salted parameter_hash that
// the operator can disclose and an auditor can check, through the built CLI.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromHex, signerFromSeed } from '../../src/crypto/index.js';
import { Kernel } from '../../src/kernel/index.js';
import { FIXTURE_AGENT, startProxyClient } from '../helpers/acp-proxy-client.js';
import type { ProxyClient } from '../helpers/acp-proxy-client.js';
import { kernelKeyFiles, ledgerReceipts } from '../helpers/acp-proxy-ledger.js';
import { projectTree } from '../helpers/acp-proxy-tree.js';
import { chio, errorCode } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('chio-acp-redaction-');
const { root } = projectTree(dir);
const keys = kernelKeyFiles(dir);
const policy = join(dir, 'policy.json');
const redactionKey = join(dir, 'redaction.key');
const subject = signerFromSeed(fromHex('5e'.repeat(32))).publicKeyHex;

beforeAll(() => {
  writeFileSync(policy, JSON.stringify({ redaction: { mode: 'redact_keys', keys: ['path', 'resource'] } }));
  expect(chio(['receipt', 'redaction-key', '--out', redactionKey]).status).toBe(0);
});

describe('chio acp proxy --enforce-capabilities with a redacting policy', () => {
  it('refuses to start without --redaction-key-file (exit 2) and writes no receipt', () => {
    const db = join(dir, 'no-key.sqlite');
    const r = chio(['--receipt-db', db, 'acp', 'proxy', '--kernel-seed-file', keys.seedFile, '--policy', policy, '--enforce-capabilities', '--allow-path', root, '--', process.execPath, FIXTURE_AGENT], { input: '' });
    expect(r.status, r.stderr).toBe(2);
    expect(errorCode(r.stderr)).toBe('CHIO-REDACTION-KEY-REQUIRED');
    expect(!existsSync(db) || ledgerReceipts(db).length === 0).toBe(true);
  });

  describe('with the key', () => {
    const db = join(dir, 'receipts.sqlite');
    let client: ProxyClient;
    let readToken: unknown;
    beforeAll(async () => {
      const issuer = Kernel.open({ ledgerPath: join(dir, 'issuer.sqlite'), seedFile: keys.seedFile });
      readToken = issuer.issueCapability({ subject, scope: { grants: [{ server_id: 'chio-acp-proxy', tool_name: 'fs/read_text_file', operations: ['invoke'] }] } });
      await issuer.close();
      client = startProxyClient(['--receipt-db', db, '--kernel-seed-file', keys.seedFile, '--policy', policy, '--redaction-key-file', redactionKey, '--enforce-capabilities', '--allow-path', root]);
    });
    afterAll(async () => void (await client?.close()));

    it('the kernel\'s authorization receipt redacts the path and salts its hash; the disclosed path opens it, another path does not', async () => {
      const s = await client.newSession();
      const path = join(root, 'a.txt');
      const r = await client.prompt(s, [{ read: { path, capabilityToken: readToken } }]);
      expect(r[0]).toEqual({ ok: true, result: { content: 'hello from a' } });
      const auth = ledgerReceipts(db).map((e) => e.receipt).find((rc) => rc.redaction_mode === 'redacted' && rc.tool_name === 'fs/read_text_file');
      expect(auth).toBeDefined();
      expect(auth.action.parameters).toMatchObject({ path: '[REDACTED]', resource: '[REDACTED]', operation: 'fs_read', session_id: s });
      expect(auth.metadata.chio_parameter_salt).toMatchObject({ scheme: 'chio.parameter-salt.v1' });

      const salt = chio(['--receipt-db', db, 'receipt', 'disclose-salt', auth.id, '--redaction-key-file', redactionKey, '--trusted-kernel-pubkey', keys.pubFile]);
      expect(salt.status, salt.stderr).toBe(0);
      const disclosed = (p: string) => JSON.stringify({ ...auth.action.parameters, path: p, resource: p });
      const check = (p: string) => chio(['--receipt-db', db, 'receipt', 'check-disclosure', auth.id, '--salt', salt.stdout.trim(), '--parameters', disclosed(p), '--trusted-kernel-pubkey', keys.pubFile]);
      const ok = check(path);
      expect(ok.status, ok.stdout + ok.stderr).toBe(0);
      expect(check(join(root, 'b.txt')).status).toBe(1);
      expect(chio(['--receipt-db', db, 'ledger', 'verify', '--trusted-kernel-pubkey', keys.pubFile]).status).toBe(0);
    });
  });
});
