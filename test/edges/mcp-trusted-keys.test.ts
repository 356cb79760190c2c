// `chio mcp serve` shares its ledger with anyone who can write the file, so it honours only the
// revocations and budget use signed by its own kernel key and the keys named with
// `--trusted-kernel-pubkey`: a revocation signed by another key (here the built `chio capability
// revoke` under a second seed) leaves the session's token working until that key is trusted.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import { openLedger, verifyChain } from '../../src/ledger/index.js';
import { kernelKeyFiles } from '../helpers/acp-proxy-ledger.js';
import { chio } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { governedMcpTransport } from '../helpers/mcp-serve.js';

const require = createRequire(import.meta.url);
const FS_SERVER = join(
  require.resolve('@modelcontextprotocol/server-filesystem/package.json'),
  '..',
  'dist',
  'index.js',
);

const dir = tempDir('chio-trusted-keys-');
const root = join(dir, 'workspace');
mkdirSync(root);
writeFileSync(join(root, 'notes.txt'), 'hello\n');
const edgeKey = kernelKeyFiles(dir, 'c1');
const otherKey = kernelKeyFiles(dir, 'c2');

async function edge(
  db: string,
  extra: string[],
): Promise<{ client: Client; read: () => Promise<{ isError: boolean; text: string }> }> {
  const transport = governedMcpTransport({
    db,
    seedFile: edgeKey.seedFile,
    serverId: 'fs',
    flags: [...extra],
    upstream: [process.execPath, FS_SERVER, root],
  });
  const client = new Client({ name: 'chio-test', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  const read = async () => {
    const r = await client.callTool({ name: 'read_text_file', arguments: { path: join(root, 'notes.txt') } });
    return { isError: r.isError === true, text: (r.content as Array<{ text: string }>)[0]!.text };
  };
  return { client, read };
}

function sessionCapability(db: string): string {
  const ledger = openLedger(db, { readonly: true });
  try {
    return (
      ledger.db
        .prepare("SELECT capability_id FROM ledger_entries WHERE kind = 'receipt' ORDER BY seq LIMIT 1")
        .get() as { capability_id: string }
    ).capability_id;
  } finally {
    ledger.close();
  }
}

const revoke = (db: string, seedFile: string, id: string) =>
  chio(['--receipt-db', db, 'capability', 'revoke', id, '--kernel-seed-file', seedFile, '--reason', 'test']);

describe('chio mcp serve counts only trusted kernel keys', () => {
  it("a revocation signed by another key is ignored; the edge's own key revokes; ledger verify pinned to the edge key names the foreign entry", async () => {
    const db = join(dir, 'untrusted.sqlite');
    const { client, read } = await edge(db, []);
    try {
      expect(await read()).toMatchObject({ isError: false, text: 'hello\n' });
      const cap = sessionCapability(db);
      expect(revoke(db, otherKey.seedFile, cap).status).toBe(0);
      expect(await read(), 'a foreign revocation revokes nothing').toMatchObject({ isError: false });
      expect(revoke(db, edgeKey.seedFile, cap).status).toBe(0);
      const denied = await read();
      expect(denied.isError).toBe(true);
      expect(denied.text).toContain('revoked');
    } finally {
      await client.close();
    }
    const pinned = chio(['--receipt-db', db, 'ledger', 'verify', '--trusted-kernel-pubkey', edgeKey.pubFile]);
    expect(pinned.status).toBe(1);
    expect(pinned.stdout + pinned.stderr).toContain('untrusted_key');
    expect(
      chio([
        '--receipt-db',
        db,
        'ledger',
        'verify',
        '--trusted-kernel-pubkey',
        edgeKey.pubFile,
        '--trusted-kernel-pubkey',
        otherKey.pubFile,
      ]).status,
    ).toBe(0);
  });

  it('with --trusted-kernel-pubkey naming the other key, its revocation is honoured', async () => {
    const db = join(dir, 'trusted.sqlite');
    const { client, read } = await edge(db, ['--trusted-kernel-pubkey', otherKey.pubFile]);
    try {
      expect(await read()).toMatchObject({ isError: false });
      expect(revoke(db, otherKey.seedFile, sessionCapability(db)).status).toBe(0);
      const denied = await read();
      expect(denied.isError).toBe(true);
      expect(denied.text).toContain('revoked');
    } finally {
      await client.close();
    }
    const ledger = openLedger(db, { readonly: true });
    expect(verifyChain(ledger)).toMatchObject({ ok: true });
    expect(ledger.db.prepare('SELECT count(*) AS n FROM pending_calls').get()).toEqual({ n: 0 });
    ledger.close();
  });
});
