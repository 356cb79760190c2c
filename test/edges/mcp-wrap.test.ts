// `chio mcp serve -- <upstream>` in front of the real @modelcontextprotocol/server-filesystem, driven by the real SDK client.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { openLedger, verifyChain } from '../../src/ledger/index.js';
import { CHIO_BIN } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { governedMcpTransport } from '../helpers/mcp-serve.js';

const require = createRequire(import.meta.url);
const FS_SERVER = join(
  require.resolve('@modelcontextprotocol/server-filesystem/package.json'),
  '..',
  'dist',
  'index.js',
);

describe('chio mcp serve wrapping server-filesystem', () => {
  it('governs every call: allowed reads and writes reach the upstream, guarded ones never do, all receipted', async () => {
    const dir = tempDir();
    const root = join(dir, 'workspace');
    mkdirSync(root);
    writeFileSync(join(root, 'notes.txt'), 'hello from the workspace\n');
    writeFileSync(join(root, '.env'), 'SECRET=1\n');
    const db = join(dir, 'receipts.sqlite');
    const transport = governedMcpTransport({ db, serverId: 'fs', upstream: [process.execPath, FS_SERVER, root] });
    const client = new Client({ name: 'chio-test', version: '1.0.0' }, { capabilities: {} });
    await client.connect(transport);

    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['read_text_file', 'write_file', 'list_directory']));
    expect(tools.find((t) => t.name === 'read_text_file')!.annotations).toMatchObject({ readOnlyHint: true }); // the upstream's own definition

    const read = await client.callTool({ name: 'read_text_file', arguments: { path: join(root, 'notes.txt') } });
    expect(read.isError).toBeFalsy();
    expect((read.content as Array<{ text: string }>)[0]!.text).toBe('hello from the workspace\n');
    expect((read._meta as Record<string, any>)['chio/receipt']).toMatchObject({ decision: 'allow' });

    const secret = await client.callTool({ name: 'read_text_file', arguments: { path: join(root, '.env') } });
    expect(secret.isError).toBe(true);
    expect((secret.content as Array<{ text: string }>)[0]!.text).toContain('(forbidden-path)');

    const leak = await client.callTool({
      name: 'write_file',
      arguments: { path: join(root, 'config.ts'), content: `const k = "AKIA${'B'.repeat(16)}";` },
    });
    expect(leak.isError).toBe(true);
    expect((leak.content as Array<{ text: string }>)[0]!.text).toContain('(secret-leak)');
    expect(existsSync(join(root, 'config.ts'))).toBe(false); // the upstream was never asked

    const write = await client.callTool({
      name: 'write_file',
      arguments: { path: join(root, 'out.txt'), content: 'written through chio' },
    });
    expect(write.isError).toBeFalsy();
    expect(readFileSync(join(root, 'out.txt'), 'utf8')).toBe('written through chio');

    const unknown = await client.callTool({ name: 'rm_rf', arguments: {} }).catch((e: unknown) => e);
    expect((unknown as McpError).code).toBe(-32602);
    await client.close();

    const ledger = openLedger(db, { readonly: true });
    expect(verifyChain(ledger)).toMatchObject({ ok: true, entries: 4, sessions: 1 });
    expect(ledger.db.prepare('SELECT tool_name, verdict, producer FROM ledger_entries ORDER BY seq').all()).toEqual([
      { tool_name: 'read_text_file', verdict: 'allow', producer: 'mcp-edge' },
      { tool_name: 'read_text_file', verdict: 'deny', producer: 'mcp-edge' },
      { tool_name: 'write_file', verdict: 'deny', producer: 'mcp-edge' },
      { tool_name: 'write_file', verdict: 'allow', producer: 'mcp-edge' },
    ]);
    ledger.close();
  });
});

describe('the upstream crashing mid-call', () => {
  it('the client gets an error result, an incomplete receipt records it, and the edge keeps answering', async () => {
    const dir = tempDir();
    const db = join(dir, 'crash.sqlite');
    const upstream = new URL('../helpers/crashing-mcp-server.mjs', import.meta.url).pathname;
    const client = new Client({ name: 'chio-test', version: '1.0.0' }, { capabilities: {} });
    await client.connect(governedMcpTransport({ db, upstream: [process.execPath, upstream] }));
    expect((await client.callTool({ name: 'echo', arguments: { text: 'before' } })).content).toEqual([
      { type: 'text', text: 'before' },
    ]);
    const crashed = await client.callTool({ name: 'crash', arguments: {} });
    expect(crashed.isError).toBe(true);
    expect((crashed._meta as Record<string, any>)['chio/receipt']).toMatchObject({ decision: 'incomplete' });
    expect(await client.ping()).toEqual({});
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo', 'crash']);
    const after = await client.callTool({ name: 'echo', arguments: { text: 'after' } });
    expect(after.isError).toBe(true); // the upstream is gone; the edge still answers, and still receipts
    await client.close();
    const ledger = openLedger(db, { readonly: true });
    expect(verifyChain(ledger)).toMatchObject({ ok: true, entries: 3 });
    expect(ledger.db.prepare('SELECT verdict FROM ledger_entries ORDER BY seq').all()).toEqual([
      { verdict: 'allow' },
      { verdict: 'incomplete' },
      { verdict: 'incomplete' },
    ]);
    ledger.close();
  });
});

describe('chio mcp serve wrapping server-everything', () => {
  it('governs its tools and relays resources, prompts, completion and logging so the client sees the full surface', async () => {
    const everything = join(
      require.resolve('@modelcontextprotocol/server-everything/package.json'),
      '..',
      'dist',
      'index.js',
    );
    const db = join(tempDir(), 'everything.sqlite');
    const client = new Client({ name: 'chio-test', version: '1.0.0' }, { capabilities: {} });
    await client.connect(
      governedMcpTransport({ db, serverId: 'everything', upstream: [process.execPath, everything, 'stdio'] }),
    );
    const caps = client.getServerCapabilities() as Record<string, unknown>;
    expect(Object.keys(caps)).toEqual(
      expect.arrayContaining(['tools', 'resources', 'prompts', 'completions', 'logging']),
    );

    const echo = await client.callTool({ name: 'echo', arguments: { message: 'governed' } });
    expect(echo.content).toEqual([{ type: 'text', text: 'Echo: governed' }]);
    const image = await client.callTool({ name: 'get-tiny-image', arguments: {} });
    expect((image.content as Array<{ type: string }>).some((c) => c.type === 'image')).toBe(true);

    const { resources } = await client.listResources();
    expect(resources.length).toBeGreaterThan(0);
    const read = await client.readResource({ uri: resources[0]!.uri });
    expect(read.contents[0]!.uri).toBe(resources[0]!.uri);
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toContain('simple-prompt');
    expect((await client.getPrompt({ name: 'simple-prompt' })).messages.length).toBeGreaterThan(0);
    expect(await client.setLoggingLevel('info')).toEqual({});
    await client.close();

    const ledger = openLedger(db, { readonly: true });
    // tool calls, resources/read and prompts/get are receipted; lists, completion and logging are relayed
    expect(verifyChain(ledger)).toMatchObject({ ok: true, entries: 4, sessions: 1 });
    expect(ledger.db.prepare('SELECT tool_server, tool_name, verdict FROM ledger_entries ORDER BY seq').all()).toEqual([
      { tool_server: 'everything', tool_name: 'echo', verdict: 'allow' },
      { tool_server: 'everything', tool_name: 'get-tiny-image', verdict: 'allow' },
      { tool_server: 'everything', tool_name: 'resources/read', verdict: 'allow' },
      { tool_server: 'everything', tool_name: 'prompts/get', verdict: 'allow' },
    ]);
    ledger.close();
  });
});

describe('notifications through the edge (server-everything)', () => {
  const everything = () =>
    join(require.resolve('@modelcontextprotocol/server-everything/package.json'), '..', 'dist', 'index.js');

  it("relays every progress notification to the client's progressToken, in order, before the result (read on the wire)", async () => {
    const { spawn } = await import('node:child_process');
    const db = join(tempDir(), 'progress.sqlite');
    const edge = spawn(
      process.execPath,
      [CHIO_BIN, 'mcp', 'serve', '--receipt-db', db, '--', process.execPath, everything(), 'stdio'],
      { stdio: ['pipe', 'pipe', 'ignore'] },
    );
    const lines: any[] = [];
    let buffered = '';
    const done = new Promise<void>((resolve) => {
      edge.stdout.on('data', (d) => {
        buffered += d;
        for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
          lines.push(JSON.parse(buffered.slice(0, nl)));
          buffered = buffered.slice(nl + 1);
          if (lines.at(-1).id === 2) resolve();
        }
      });
    });
    edge.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } })}\n`,
    );
    edge.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    edge.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 }, _meta: { progressToken: 'p-1' } } })}\n`,
    );
    await done;
    edge.stdin.end();
    await new Promise((r) => edge.on('exit', r));
    const after = lines.slice(lines.findIndex((m) => m.id === 1) + 1);
    expect(
      after.map((m) =>
        m.method === 'notifications/progress'
          ? `progress ${m.params.progress}/${m.params.total} ${m.params.progressToken}`
          : `response ${m.id}`,
      ),
    ).toEqual(['progress 1/3 p-1', 'progress 2/3 p-1', 'progress 3/3 p-1', 'response 2']);
    expect(after.at(-1).result.isError).toBeFalsy();
  });

  it("relays the upstream's logging messages to the SDK client", async () => {
    const { LoggingMessageNotificationSchema } = await import('@modelcontextprotocol/sdk/types.js');
    const db = join(tempDir(), 'notify.sqlite');
    const client = new Client({ name: 'chio-test', version: '1.0.0' }, { capabilities: {} });
    const logs: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
    await client.connect(governedMcpTransport({ db, upstream: [process.execPath, everything(), 'stdio'] }));
    await client.setLoggingLevel('debug');
    await client.callTool({ name: 'toggle-simulated-logging', arguments: {} });
    // The upstream logs once at once and then every 5 s; allow for a loaded machine.
    for (let i = 0; i < 120 && logs.length === 0; i++) await new Promise((res) => setTimeout(res, 100));
    expect(logs.length).toBeGreaterThan(0);
    expect(logs[0]).toMatchObject({ level: expect.any(String) });
    await client.close();
  });
});
