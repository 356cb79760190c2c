// `chio mcp serve`/`serve-http` is transparent about its upstream: the upstream command works with
// or without `--` (its own flags are never chio's), the client sees the upstream's serverInfo and
// instructions, and a cancelled tools/call gets no response (only its signed `cancelled` receipt).
// Everything runs through the built CLI, real child processes and the real MCP SDK client.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { describe, expect, it } from 'vitest';
import { openLedger, verifyChain } from '../../src/ledger/index.js';
import { chio, CHIO_BIN, errorCode } from '../helpers/cli.js';
import { SLOW_MCP_SERVER, startHttpEdge } from '../helpers/http-edge.js';
import { tempDir } from '../helpers/tmp.js';

const IDENTITY_SERVER = fileURLToPath(new URL('../helpers/identity-mcp-server.mjs', import.meta.url));
const dir = tempDir();
const db = (name: string) => join(dir, `${name}-${Math.random().toString(16).slice(2)}.sqlite`);

/** Upstream arguments that look like chio's own flags: chio must not read them, the upstream must get them as they are. */
const HOSTILE_ARGS = [
  '--policy',
  '/nonexistent/policy.yaml',
  '--receipt-db',
  '/nonexistent/r.sqlite',
  '--upstream-url',
  'http://127.0.0.1:1/mcp',
  '--help',
  '--no-checkpoints',
  '--',
  'tail',
];

async function withClient<T>(transport: Transport, body: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ name: 'chio-test', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  try {
    return await body(client);
  } finally {
    await client.close();
  }
}

/** What a client learns from a server: who it is, its tools, and the argv/echo results. */
async function observe(client: Client) {
  const { tools } = await client.listTools();
  const argv = await client.callTool({ name: 'argv', arguments: {} });
  const echo = await client.callTool({ name: 'echo', arguments: { text: 'same either way' } });
  const { _meta: _a, ...argvResult } = argv;
  const { _meta: _e, ...echoResult } = echo;
  return {
    serverInfo: client.getServerVersion(),
    instructions: client.getInstructions(),
    tools: tools.map((t) => ({ name: t.name, description: t.description, annotations: t.annotations })),
    argv: argvResult,
    echo: echoResult,
    receipts: [argv, echo].map(
      (r) => (r._meta as Record<string, { decision?: string }> | undefined)?.['chio/receipt']?.decision,
    ),
    chio: (client.getServerCapabilities()?.experimental as Record<string, Record<string, unknown>> | undefined)
      ?.chioProtocol,
  };
}

const stdioEdge = (receiptDb: string, upstream: string[]) =>
  new StdioClientTransport({
    command: process.execPath,
    args: [CHIO_BIN, 'mcp', 'serve', '--receipt-db', receiptDb, '--server-id', 'id', ...upstream],
    stderr: 'pipe',
  });

describe('chio mcp serve: the upstream command with or without --', () => {
  it('the same upstream started both ways gives the same tools and results, and flags after the command reach the upstream untouched', async () => {
    const upstream = [process.execPath, IDENTITY_SERVER, ...HOSTILE_ARGS];
    const direct = await withClient(
      new StdioClientTransport({ command: upstream[0]!, args: upstream.slice(1), stderr: 'pipe' }),
      observe,
    );
    const withSeparator = await withClient(stdioEdge(db('sep'), ['--', ...upstream]), observe);
    const without = await withClient(stdioEdge(db('nosep'), upstream), observe);

    expect(JSON.parse((direct.argv.content as Array<{ text: string }>)[0]!.text)).toEqual(HOSTILE_ARGS);
    for (const edge of [withSeparator, without]) {
      expect(edge.tools).toEqual(direct.tools);
      expect(edge.argv).toEqual(direct.argv);
      expect(edge.echo).toEqual(direct.echo);
      expect(edge.receipts).toEqual(['allow', 'allow']);
    }
  });

  it('serve-http takes the command both ways too', async () => {
    const results = [];
    for (const separator of [['--'], []]) {
      const edge = await startHttpEdge([
        '--receipt-db',
        db('http'),
        ...separator,
        process.execPath,
        IDENTITY_SERVER,
        ...HOSTILE_ARGS,
      ]);
      try {
        results.push(await withClient(new StreamableHTTPClientTransport(edge.url), observe));
      } finally {
        await edge.stop();
      }
    }
    expect(JSON.parse((results[0]!.argv.content as Array<{ text: string }>)[0]!.text)).toEqual(HOSTILE_ARGS);
    expect({ ...results[1], chio: undefined }).toEqual({ ...results[0], chio: undefined });
  });

  it('--upstream-url with a command is a usage error either way, and no command at all is one too', () => {
    for (const command of ['serve', 'serve-http']) {
      for (const separator of [['--'], []]) {
        const r = chio([
          'mcp',
          command,
          '--receipt-db',
          db('usage'),
          '--upstream-url',
          'http://127.0.0.1:1/mcp',
          ...separator,
          process.execPath,
          IDENTITY_SERVER,
        ]);
        expect(r.status).toBe(2);
        expect(errorCode(r.stderr)).toBe('CHIO-CLI-USAGE');
        expect(r.stderr).toContain('give either --upstream-url or an upstream command, not both');
      }
      const none = chio(['mcp', command, '--receipt-db', db('usage'), '--policy', '/nonexistent/policy.yaml']);
      expect(none.status).toBe(2);
      expect(none.stderr).toContain('name the upstream MCP server');
    }
  });

  it('an unknown chio option before the command is still refused, not passed to the upstream', () => {
    const r = chio([
      'mcp',
      'serve',
      '--receipt-db',
      db('strict'),
      '--no-such-flag',
      'x',
      process.execPath,
      IDENTITY_SERVER,
    ]);
    expect(r.status).toBe(2);
    expect(errorCode(r.stderr)).toBe('CHIO-CLI-USAGE');
  });
});

describe('chio mcp serve: the upstream is itself', () => {
  it('initialize passes through the upstream serverInfo (name, title, version) and instructions; chio shows itself only in experimental', async () => {
    const upstream = [process.execPath, IDENTITY_SERVER];
    const direct = await withClient(
      new StdioClientTransport({ command: upstream[0]!, args: upstream.slice(1), stderr: 'pipe' }),
      observe,
    );
    const viaStdio = await withClient(stdioEdge(db('identity'), upstream), observe);
    expect(direct.serverInfo).toEqual({ name: 'identity-upstream', title: 'Identity Upstream', version: '3.1.4' });
    expect(direct.instructions).toMatch(/^Call argv/);
    expect(viaStdio.serverInfo).toEqual(direct.serverInfo);
    expect(viaStdio.instructions).toBe(direct.instructions);
    expect(viaStdio.chio).toMatchObject({ receiptSchema: 'chio.receipt.v1' });

    const edge = await startHttpEdge(['--receipt-db', db('identity-http'), ...upstream]);
    try {
      const viaHttp = await withClient(new StreamableHTTPClientTransport(edge.url), observe);
      expect(viaHttp.serverInfo).toEqual(direct.serverInfo);
      expect(viaHttp.instructions).toBe(direct.instructions);
      expect(viaHttp.chio).toMatchObject({ receiptSchema: 'chio.receipt.v1' });
    } finally {
      await edge.stop();
    }
  });
});

/** Writes raw lines to `chio mcp serve` and reads every line it answers until stdin closes and it exits. */
function rawEdge(
  receiptDb: string,
  upstream: string[],
  lines: object[],
): Promise<{ code: number | null; messages: Array<Record<string, any>> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [CHIO_BIN, 'mcp', 'serve', '--receipt-db', receiptDb, '--server-id', 'slow', '--', ...upstream],
      { stdio: ['pipe', 'pipe', 'ignore'] },
    );
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({
        code,
        messages: stdout
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l)),
      }),
    );
    child.stdin.end(lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
  });
}

const INIT = [
  {
    jsonrpc: '2.0',
    id: 'init',
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
  },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
];

describe('chio mcp serve: a cancelled request gets no response', () => {
  it('notifications/cancelled for an in-flight tools/call: no response with its id ever, the ping after it is answered, and the ledger holds its signed cancelled receipt', async () => {
    const receiptDb = db('cancel');
    const r = await rawEdge(
      receiptDb,
      [process.execPath, SLOW_MCP_SERVER],
      [
        ...INIT,
        { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'wait', arguments: { ms: 30_000 } } },
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7, reason: 'user pressed stop' } },
        { jsonrpc: '2.0', id: 8, method: 'ping' },
      ],
    );
    expect(r.code).toBe(0);
    const responses = r.messages.filter((m) => 'id' in m);
    expect(responses.map((m) => m.id)).toEqual(['init', 8]);
    expect(responses[1]).toEqual({ jsonrpc: '2.0', id: 8, result: {} });

    const ledger = openLedger(receiptDb, { readonly: true });
    try {
      expect(verifyChain(ledger)).toMatchObject({ ok: true, entries: 1 });
      expect(ledger.db.prepare('SELECT tool_name, verdict FROM ledger_entries').all()).toEqual([
        { tool_name: 'wait', verdict: 'cancelled' },
      ]);
    } finally {
      ledger.close();
    }
  });

  it('a cancel for an id not in flight changes nothing: a later request reusing that id, and requests already answered, get their responses', async () => {
    const receiptDb = db('cancel-late');
    const r = await rawEdge(
      receiptDb,
      [process.execPath, SLOW_MCP_SERVER],
      [
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'init' } },
        ...INIT,
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 9 } },
        {
          jsonrpc: '2.0',
          id: 9,
          method: 'tools/call',
          params: { name: 'echo', arguments: { text: 'still answered' } },
        },
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'init' } },
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: null } },
        { jsonrpc: '2.0', id: 10, method: 'ping' },
      ],
    );
    expect(r.code).toBe(0);
    const responses = r.messages.filter((m) => 'id' in m);
    expect(responses.map((m) => m.id).sort()).toEqual([10, 9, 'init'].sort());
    expect(responses.find((m) => m.id === 9)).toMatchObject({
      result: { content: [{ type: 'text', text: 'still answered' }], _meta: { 'chio/receipt': { decision: 'allow' } } },
    });

    const ledger = openLedger(receiptDb, { readonly: true });
    try {
      expect(verifyChain(ledger)).toMatchObject({ ok: true, entries: 1 });
    } finally {
      ledger.close();
    }
  });
});

describe('chio mcp serve: an upstream that cannot start', () => {
  it("fails the client's initialize with CHIO-MCP-UPSTREAM (also on stderr for the operator), the session stays uninitialized, the ledger stays empty", async () => {
    const receiptDb = db('dead');
    const child = spawn(
      process.execPath,
      [CHIO_BIN, 'mcp', 'serve', '--receipt-db', receiptDb, '--', '/nonexistent/mcp-server', '--flag'],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.stdin.end(
      [...INIT, { jsonrpc: '2.0', id: 2, method: 'tools/list' }].map((l) => `${JSON.stringify(l)}\n`).join(''),
    );
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    const messages = stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(messages.find((m) => m.id === 'init')?.error).toMatchObject({
      code: -32603,
      message: expect.stringMatching(/^CHIO-MCP-UPSTREAM: cannot connect to the upstream MCP server/),
    });
    expect(messages.find((m) => m.id === 2)?.error?.code).toBe(-32002);
    expect(stderr).toMatch(/chio: CHIO-MCP-UPSTREAM: cannot connect/);
    const ledger = openLedger(receiptDb, { readonly: true });
    try {
      expect(verifyChain(ledger)).toMatchObject({ ok: true, entries: 0 });
    } finally {
      ledger.close();
    }
  });
});
