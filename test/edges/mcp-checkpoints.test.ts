// `chio mcp serve --checkpoint-every N --anchor-file F`: the edge checkpoints the ledger as it
// appends and when it shuts down, and every note lands in the anchor file, which then holds the
// ledger to what it was: the anchored verify passes, and fails once the tail is cut.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
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

describe('chio mcp serve checkpoints', () => {
  it('--checkpoint-every 3 leaves notes for 3 and 6 entries and one for all 7 at shutdown in the anchor file; a later tail cut fails the anchored verify', async () => {
    const dir = tempDir('chio-mcp-checkpoints-');
    const root = join(dir, 'workspace');
    mkdirSync(root);
    writeFileSync(join(root, 'notes.txt'), 'hello\n');
    const keys = kernelKeyFiles(dir, 'f1');
    const db = join(dir, 'receipts.sqlite');
    const anchor = join(dir, 'anchor.txt');
    const transport = governedMcpTransport({
      db,
      seedFile: keys.seedFile,
      serverId: 'fs',
      flags: ['--checkpoint-every', '3', '--anchor-file', anchor],
      upstream: [process.execPath, FS_SERVER, root],
    });
    const client = new Client({ name: 'chio-test', version: '1.0.0' }, { capabilities: {} });
    await client.connect(transport);
    for (let i = 0; i < 7; i++) {
      const r = await client.callTool({
        name: 'read_text_file',
        arguments: { path: join(root, i === 4 ? '.env' : 'notes.txt') },
      });
      expect((r._meta as Record<string, any>)['chio/receipt']).toMatchObject({ seq: i + 1 });
    }
    await client.close();
    const sizes = readFileSync(anchor, 'utf8')
      .split('\n\n')
      .map((block) => block.split('\n')[1])
      .filter((line) => line !== undefined && /^\d+$/.test(line));
    expect(sizes).toEqual(['3', '6', '7']);
    const ok = chio([
      '--receipt-db',
      db,
      'ledger',
      'verify',
      '--trusted-kernel-pubkey',
      keys.pubFile,
      '--anchor-file',
      anchor,
    ]);
    expect(ok.status, ok.stdout + ok.stderr).toBe(0);
    expect(ok.stdout).toContain('3 stored checkpoints, 3 anchored notes match the entries');

    const raw = new Database(db);
    raw.exec('DROP TRIGGER ledger_entries_no_delete; DROP TRIGGER ledger_checkpoints_no_delete;');
    raw.exec('DELETE FROM ledger_entries WHERE seq >= 5; DELETE FROM ledger_checkpoints;');
    raw.close();
    expect(chio(['--receipt-db', db, 'ledger', 'rebuild-projections']).status).toBe(0);
    const cut = chio([
      '--receipt-db',
      db,
      'ledger',
      'verify',
      '--trusted-kernel-pubkey',
      keys.pubFile,
      '--anchor-file',
      anchor,
    ]);
    expect(cut.status).toBe(1);
    expect(cut.stdout).toMatch(/anchor_size: the checkpoint covers 6 entries but the ledger holds 4/);
    expect(cut.stdout).toMatch(/anchor_size: the checkpoint covers 7 entries but the ledger holds 4/);
    expect(cut.stdout).toContain('the entries still match the checkpoint of size 3');
  });
});
