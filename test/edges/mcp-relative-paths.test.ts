// Relative paths are judged where the upstream resolves them: `chio mcp serve` started outside the
// workspace, in front of the real server-filesystem serving it, refuses relative paths that lead to
// secrets (symlinks with innocent names) and lets ordinary relative paths through; the MCP roots a
// client declares (and re-declares) are bases too.
import { existsSync, lstatSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { createCorpusWorkspace } from '../../src/kernel/guards/corpus/index.js';
import { openLedger, verifyChain } from '../../src/ledger/index.js';
import { tempDir } from '../helpers/tmp.js';
import { governedMcpTransport } from '../helpers/mcp-serve.js';

const require = createRequire(import.meta.url);
const FS_SERVER = join(
  require.resolve('@modelcontextprotocol/server-filesystem/package.json'),
  '..',
  'dist',
  'index.js',
);
const CORPUS_SERVER = new URL('../helpers/corpus-mcp-server.mjs', import.meta.url).pathname;

type ToolResult = { isError?: boolean; content: Array<{ text: string }> };
const text = (r: unknown) => (r as ToolResult).content[0]!.text;

describe('relative paths through chio mcp serve', () => {
  it('in front of server-filesystem, started outside the workspace: symlinked secrets are refused, ordinary relative paths work', async () => {
    const dir = tempDir();
    const ws = join(dir, 'ws');
    const elsewhere = join(dir, 'elsewhere');
    mkdirSync(ws);
    mkdirSync(elsewhere);
    createCorpusWorkspace(ws);
    const db = join(dir, 'receipts.sqlite');
    const client = new Client({ name: 'relative-test', version: '1.0.0' }, { capabilities: {} });
    await client.connect(
      governedMcpTransport({ db, serverId: 'fs', upstream: [process.execPath, FS_SERVER, ws], cwd: elsewhere }),
    );
    try {
      for (const path of ['notes', 'cfg/credentials', 'keyring/id_rsa', './notes', 'src/../notes']) {
        const r = (await client.callTool({ name: 'read_text_file', arguments: { path } })) as ToolResult;
        expect(r.isError, path).toBe(true);
        expect(text(r), path).toMatch(/forbidden pattern.*\(forbidden-path\)$/);
      }
      const move = (await client.callTool({
        name: 'move_file',
        arguments: { source: 'notes', destination: 'innocent.txt' },
      })) as ToolResult;
      expect(move.isError).toBe(true);
      expect(existsSync(join(ws, 'innocent.txt'))).toBe(false);
      expect(lstatSync(join(ws, 'notes')).isSymbolicLink()).toBe(true);

      // What the upstream resolves against its root is read and written there.
      const readme = (await client.callTool({
        name: 'read_text_file',
        arguments: { path: 'README.md' },
      })) as ToolResult;
      expect(readme.isError).toBeFalsy();
      expect(text(readme)).toBe(readFileSync(join(ws, 'README.md'), 'utf8'));
      const write = (await client.callTool({
        name: 'write_file',
        arguments: { path: 'out.txt', content: 'through chio' },
      })) as ToolResult;
      expect(write.isError).toBeFalsy();
      expect(readFileSync(join(ws, 'out.txt'), 'utf8')).toBe('through chio');
    } finally {
      await client.close();
    }
    const ledger = openLedger(db, { readonly: true });
    expect(verifyChain(ledger)).toMatchObject({ ok: true, entries: 8 });
    ledger.close();
  });

  it('the roots a client declares are bases, and a changed list replaces them', async () => {
    const dir = tempDir();
    const ws = join(dir, 'ws');
    const plain = join(dir, 'plain');
    const cwd = join(dir, 'cwd');
    for (const d of [ws, plain, cwd]) mkdirSync(d);
    createCorpusWorkspace(ws);
    const log = join(dir, 'calls.jsonl');
    writeFileSync(log, '');
    let roots = [{ uri: pathToFileURL(plain).href, name: 'plain' }];
    let asked = 0;
    const client = new Client(
      { name: 'roots-test', version: '1.0.0' },
      { capabilities: { roots: { listChanged: true } } },
    );
    client.setRequestHandler(ListRootsRequestSchema, async () => {
      asked++;
      return { roots };
    });
    await client.connect(
      governedMcpTransport({ db: join(dir, 'r.sqlite'), upstream: [process.execPath, CORPUS_SERVER, log], cwd }),
    );
    try {
      await expect.poll(() => asked).toBe(1);
      await client.ping(); // the edge has handled the roots answer before it answers this
      const before = (await client.callTool({ name: 'read_text_file', arguments: { path: 'notes' } })) as ToolResult;
      expect(before.isError).toBeFalsy(); // neither cwd/notes nor plain/notes is a secret

      roots = [{ uri: pathToFileURL(ws).href, name: 'ws' }];
      await client.sendRootsListChanged();
      await expect.poll(() => asked).toBe(2);
      await client.ping();
      const after = (await client.callTool({ name: 'read_text_file', arguments: { path: 'notes' } })) as ToolResult;
      expect(after.isError).toBe(true);
      expect(text(after)).toContain(`(${join(ws, '.env')})`);
    } finally {
      await client.close();
    }
    expect(readFileSync(log, 'utf8').trim().split('\n')).toHaveLength(1); // only the first call reached the upstream
  });
});
