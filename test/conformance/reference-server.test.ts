// The official MCP conformance suite (@modelcontextprotocol/conformance, run on Node 22 by
// test/helpers/conformance.ts) against the reference server test/helpers/conformance-server.mjs
// over Streamable HTTP: every server scenario the suite lists must pass, one test per scenario.
// The scenario list comes from the suite at collection time; its length is also pinned from
// below so a suite that silently lists nothing (or loses scenarios) fails here.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  conformanceVersion,
  listServerScenarios,
  runServerScenario,
  runServerSuite,
  type ScenarioResult,
} from '../helpers/conformance.js';

const SERVER = fileURLToPath(new URL('../helpers/conformance-server.mjs', import.meta.url));
// @modelcontextprotocol/conformance 0.1.16 lists 32 server scenarios (30 active, 2 pending).
const MIN_SCENARIOS = 32;
const scenarios = listServerScenarios();

function startHttpServer(): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SERVER, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /^listening (http:\/\/\S+)$/m.exec(out);
      if (m) resolve({ child, url: m[1]! });
    });
    child.on('exit', (code) => reject(new Error(`conformance server exited ${code} before listening: ${err}`)));
  });
}

/** A loopback port nothing listens on (bound, then released). */
function deadPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

describe('MCP conformance suite against the reference server (Streamable HTTP)', () => {
  let server: { child: ChildProcess; url: string };
  let results = new Map<string, ScenarioResult>();
  let suiteOutput = '';

  beforeAll(async () => {
    server = await startHttpServer();
    // One CLI process for all scenarios (active and pending): ~3 s instead of ~32 Node 22 start-ups.
    const run = await runServerSuite(server.url, 'all');
    results = run.results;
    suiteOutput = run.output;
  }, 300_000);

  afterAll(() => {
    server?.child.kill('SIGTERM');
  });

  it(`the suite is a real version and lists at least ${MIN_SCENARIOS} server scenarios`, () => {
    expect(conformanceVersion()).toMatch(/^\d+\.\d+\.\d+/);
    expect(scenarios.length).toBeGreaterThanOrEqual(MIN_SCENARIOS);
    expect(new Set(scenarios).size).toBe(scenarios.length);
    expect(scenarios).toContain('server-initialize');
  });

  for (const scenario of scenarios) {
    it(`scenario ${scenario} passes`, () => {
      const r = results.get(scenario);
      expect(r, `the suite wrote no result for ${scenario}; output:\n${suiteOutput.slice(-3000)}`).toBeDefined();
      expect(r!.failures, r!.failures.join('\n')).toEqual([]);
      expect(r!.ok).toBe(true);
      expect(r!.checks.length).toBeGreaterThan(0);
    });
  }

  it('one scenario run alone passes too (the per-scenario path of the helper)', async () => {
    const r = await runServerScenario(server.url, 'tools-call-elicitation');
    expect(r.failures).toEqual([]);
    expect(r.ok).toBe(true);
    expect(r.checks.some((c) => c.status === 'SUCCESS')).toBe(true);
  }, 60_000);

  it('a server that is not there fails the scenario, with the reason in the failure text', async () => {
    const r = await runServerScenario(`http://127.0.0.1:${await deadPort()}/mcp`, 'ping');
    expect(r.ok).toBe(false);
    expect(r.failures.join('\n')).toMatch(/ping|fetch failed|ECONNREFUSED/i);
  }, 60_000);

  // The suite's server-sse-polling sends its tools/call with mcp-protocol-version 2025-03-26, for
  // which the SDK (rightly) sends no priming event and never closes the stream, so the suite only
  // warns. This is the same SEP-1699 check at 2025-11-25, where resumption must really work.
  it('test_reconnection at 2025-11-25: priming event with retry, stream closed, result replayed after Last-Event-ID', async () => {
    const h = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const init = await fetch(server.url, {
      method: 'POST',
      headers: h,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'resume', version: '1' } },
      }),
    });
    const sid = init.headers.get('mcp-session-id')!;
    await init.text();
    const session = { ...h, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' };
    await (
      await fetch(server.url, {
        method: 'POST',
        headers: session,
        body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      })
    ).text();
    const post = await fetch(server.url, {
      method: 'POST',
      headers: session,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'test_reconnection', arguments: {} },
      }),
    });
    const first = await post.text(); // ends when the tool closes the stream
    expect(first).toMatch(/^id: \S+\nretry: \d+\ndata: \n\n$/);
    expect(first).not.toContain('"result"');
    const lastEventId = /^id: (\S+)$/m.exec(first)![1]!;
    const get = await fetch(server.url, {
      headers: {
        accept: 'text/event-stream',
        'mcp-session-id': sid,
        'mcp-protocol-version': '2025-11-25',
        'last-event-id': lastEventId,
      },
    });
    expect(get.status).toBe(200);
    const reader = get.body!.getReader();
    let replay = '';
    while (!replay.includes('\n\n')) {
      const { value, done } = await reader.read();
      if (done) break;
      replay += new TextDecoder().decode(value);
    }
    await reader.cancel();
    const data = JSON.parse(/^data: (.*)$/m.exec(replay)![1]!);
    expect(data).toMatchObject({ jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text' }] } });
  });

  it('the reference server refuses a DNS-rebinding Host and Origin with 403, before any session exists', async () => {
    // Node's fetch forbids setting Host, so speak HTTP/1.1 directly.
    const { port } = new URL(server.url);
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: '/mcp',
          method: 'POST',
          headers: {
            host: 'evil.example.com',
            origin: 'http://evil.example.com',
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode!);
        },
      );
      req.on('error', reject);
      req.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'evil', version: '1' } },
        }),
      );
    });
    expect(status).toBe(403);
  });
});

describe('the reference server over stdio (--stdio)', () => {
  it('serves the same tools to an SDK client on stdin/stdout', async () => {
    const client = new Client({ name: 'stdio-check', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [SERVER, '--stdio'], stderr: 'pipe' }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(
        expect.arrayContaining(['test_simple_text', 'test_sampling', 'test_elicitation', 'json_schema_2020_12_tool']),
      );
      const json = tools.find((t) => t.name === 'json_schema_2020_12_tool')!;
      expect(json.inputSchema).toMatchObject({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        additionalProperties: false,
      });
      const r = await client.callTool({ name: 'test_simple_text', arguments: {} });
      expect(r.content).toEqual([{ type: 'text', text: 'This is a simple text response for testing.' }]);
      // No sampling capability declared by this client: the tool says so instead of asking.
      const s = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'hi' } });
      expect(s.isError).toBe(true);
    } finally {
      await client.close();
    }
  });
});
