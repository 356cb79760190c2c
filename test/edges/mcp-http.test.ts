// `chio mcp serve-http` in front of the real server-filesystem: the real SDK client over Streamable HTTP, and hostile HTTP.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLedger, verifyChain } from '../../src/ledger/index.js';
import { CHIO_BIN } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const require = createRequire(import.meta.url);
const FS_SERVER = join(
  require.resolve('@modelcontextprotocol/server-filesystem/package.json'),
  '..',
  'dist',
  'index.js',
);
const TOKEN = 'test-token-0123456789';
const dir = tempDir();
const root = join(dir, 'workspace');
const db = join(dir, 'http.sqlite');
let edge: ChildProcess;
let url: string;

beforeAll(async () => {
  mkdirSync(root);
  writeFileSync(join(root, 'notes.txt'), 'over http\n');
  writeFileSync(join(root, '.env'), 'SECRET=1\n');
  edge = spawn(
    process.execPath,
    [
      CHIO_BIN,
      'mcp',
      'serve-http',
      '--listen',
      '127.0.0.1:0',
      '--auth-token',
      TOKEN,
      '--receipt-db',
      db,
      '--server-id',
      'fs',
      '--',
      process.execPath,
      FS_SERVER,
      root,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  url = await new Promise((resolve, reject) => {
    let err = '';
    edge.stderr!.on('data', (d) => {
      err += d;
      const m = /MCP over Streamable HTTP at (\S+)/.exec(err);
      if (m !== null) resolve(m[1]!);
    });
    edge.on('exit', (code) => reject(new Error(`edge exited ${code}: ${err}`)));
  });
});

afterAll(async () => {
  const exited = new Promise((r) => edge.once('exit', r));
  edge.kill('SIGTERM');
  await exited;
});

const client = async () => {
  const c = new Client({ name: 'chio-http-test', version: '1.0.0' }, { capabilities: {} });
  await c.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }),
  );
  return c;
};

function post(body: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${TOKEN}`,
          ...headers,
        },
      },
      (res) => {
        let data = '';
        res.on('data', (d) => (data += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
const init = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
});

describe('chio mcp serve-http with the real SDK client', () => {
  it('lists tools, allows a read, denies a forbidden one, and gives each MCP session its own ledger session', async () => {
    const a = await client();
    const b = await client();
    expect((await a.listTools()).tools.map((t) => t.name)).toContain('read_text_file');
    const ok = await a.callTool({ name: 'read_text_file', arguments: { path: join(root, 'notes.txt') } });
    expect((ok.content as Array<{ text: string }>)[0]!.text).toBe('over http\n');
    const denied = await b.callTool({ name: 'read_text_file', arguments: { path: join(root, '.env') } });
    expect(denied.isError).toBe(true);
    expect((denied._meta as Record<string, any>)['chio/receipt']).toMatchObject({ decision: 'deny' });
    await a.close();
    await b.close();
    const ledger = openLedger(db, { readonly: true });
    expect(verifyChain(ledger)).toMatchObject({ ok: true, sessions: 2 });
    ledger.close();
  });
});

describe('chio mcp serve-http refuses hostile requests and keeps serving', () => {
  const cases: Array<[string, () => Promise<{ status: number; body: string }>, number, number | null]> = [
    ['no token', () => post(init, { authorization: '' }), 401, -32600],
    ['wrong token', () => post(init, { authorization: 'Bearer nope' }), 401, -32600],
    ['a foreign Origin (DNS rebinding)', () => post(init, { origin: 'http://evil.example' }), 403, -32600],
    ['a foreign Host', () => post(init, { host: 'evil.example:80' }), 403, -32600],
    ['bad JSON', () => post('{"jsonrpc": "2.0", "id": 1,'), 400, -32700],
    ['a batch', () => post(`[${init}]`), 400, -32600],
    [
      'a huge body',
      () =>
        post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(5 * 1024 * 1024) } })),
      413,
      -32600,
    ],
    [
      'an unknown session',
      () => post('{"jsonrpc":"2.0","id":2,"method":"ping"}', { 'mcp-session-id': 'no-such-session' }),
      404,
      -32001,
    ],
  ];
  for (const [name, send, status, code] of cases) {
    it(`${name} → HTTP ${status}`, async () => {
      const r = await send();
      expect(r.status).toBe(status);
      if (code !== null) expect(JSON.parse(r.body).error.code).toBe(code);
    });
  }

  it('a wrong MCP-Protocol-Version header on a live session is refused; the session and the edge keep working', async () => {
    const c = await client();
    const transport = (c as unknown as { _transport: StreamableHTTPClientTransport })._transport;
    const sessionId = transport.sessionId!;
    const r = await post('{"jsonrpc":"2.0","id":9,"method":"tools/list"}', {
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '1999-01-01',
    });
    expect(r.status).toBe(400);
    expect((await c.listTools()).tools.length).toBeGreaterThan(0);
    await c.close();
    const ledger = openLedger(db, { readonly: true });
    expect(verifyChain(ledger)).toMatchObject({ ok: true });
    ledger.close();
  });
});

describe('chio mcp serve-http session lifecycle', () => {
  function http(
    method: string,
    headers: Record<string, string>,
    body?: string,
  ): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
    const u = new URL(url);
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: u.hostname,
          port: u.port,
          path: u.pathname,
          method,
          headers: { authorization: `Bearer ${TOKEN}`, ...headers },
        },
        (res) => {
          let data = '';
          res.on('data', (d) => {
            data += d;
            if (method === 'GET') res.destroy(); // an SSE stream stays open: the first bytes are enough
          });
          res.on('close', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data }));
          if (method === 'GET') setTimeout(() => res.destroy(), 300);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  it('initialize returns MCP-Session-Id; GET opens the SSE stream; DELETE ends the session, after which it is unknown', async () => {
    const init = await http(
      'POST',
      { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
      }),
    );
    expect(init.status).toBe(200);
    const session = init.headers['mcp-session-id'] as string;
    expect(session).toMatch(/^mcp-/);
    const sse = await http('GET', {
      accept: 'text/event-stream',
      'mcp-session-id': session,
      'mcp-protocol-version': '2025-11-25',
    });
    expect(sse.status).toBe(200);
    expect(sse.headers['content-type']).toContain('text/event-stream');
    const del = await http('DELETE', { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' });
    expect(del.status).toBe(200);
    const after = await http(
      'POST',
      { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': session },
      '{"jsonrpc":"2.0","id":2,"method":"ping"}',
    );
    expect(after.status).toBe(404);
  });
});
