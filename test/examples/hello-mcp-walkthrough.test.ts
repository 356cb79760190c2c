// examples/hello-mcp's README walkthrough, verbatim: the raw JSON-RPC lines piped into
// `run-edge.sh serve` (initialize with empty params) answer the documented shapes, and the smoke's
// bridge-call.json answers the README's jq projections; the hello server fails closed on other names.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.js';

const RUN_EDGE = fileURLToPath(new URL('../../examples/hello-mcp/run-edge.sh', import.meta.url));
const SMOKE = fileURLToPath(new URL('../../examples/hello-mcp/smoke.sh', import.meta.url));
const RAW = [
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}',
  '{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}',
  '{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}',
  '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"hello_tool","arguments":{"name":"world"}}}',
  '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"not_registered","arguments":{}}}',
];

describe('examples/hello-mcp walkthrough', () => {
  it('the raw lines on stdin of run-edge.sh serve answer as documented', () => {
    const home = tempDir();
    const r = spawnSync('bash', [RUN_EDGE, 'serve'], {
      input: `${RAW.join('\n')}\n`,
      encoding: 'utf8',
      env: { ...process.env, HELLO_MCP_HOME: home },
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    // Requests run concurrently: match responses by id, not by line order.
    const byId = new Map(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .map((m) => [m.id, m]),
    );
    const [init, list, call, unknown] = [1, 2, 3, 4].map((id) => byId.get(id));
    expect(init.result.serverInfo).toEqual({ name: 'Chio MCP Edge', version: '0.1.0' });
    expect(init.result.protocolVersion).toBe('2025-11-25');
    expect(init.result.capabilities.experimental.chioProtocol).toMatchObject({
      compatibility: 'exact_match',
      downgradeBehavior: 'reject',
      errorRegistry: { path: 'spec/errors/chio-error-registry.v1.json', schema: 'chio.error-registry.v1' },
      requestIdentity: { requestBoundArtifactsRequireStableId: true, stableRequestIdMetaField: 'chioRequestId' },
      selectedProtocolVersion: '2025-11-25',
      supportedProtocolVersions: expect.arrayContaining(['2025-11-25']),
      receiptSchema: 'chio.receipt.v1',
      kernelKey: expect.stringMatching(/^[0-9a-f]{64}$/),
      sessionId: expect.stringMatching(/^mcp-/),
    });
    expect(list.result.nextCursor).toBeNull();
    expect(list.result.tools).toHaveLength(1);
    expect(list.result.tools[0]).toMatchObject({
      name: 'hello_tool',
      description: 'Return a greeting payload',
      inputSchema: { type: 'object', properties: { name: { type: 'string' } } },
      outputSchema: { type: 'object', properties: { message: { type: 'string' }, arguments: { type: 'object' } } },
    });
    expect(call.result.isError).toBe(false);
    expect(call.result.structuredContent).toEqual({ message: 'hello from mcp, world', arguments: { name: 'world' } });
    expect(call.result._meta['chio/receipt'].id).toMatch(/^[0-9a-f]{64}$/);
    expect(unknown.error).toMatchObject({ code: -32602, message: 'unknown tool' });
  });

  it('a malformed initialize is still refused (present fields must be well-typed), and nothing is served before it', () => {
    const home = tempDir();
    const lines = [
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":7,"clientInfo":"x"}}',
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hello_tool","arguments":{"name":"world"}}}',
    ];
    const r = spawnSync('bash', [RUN_EDGE, 'serve'], {
      input: `${lines.join('\n')}\n`,
      encoding: 'utf8',
      env: { ...process.env, HELLO_MCP_HOME: home },
    });
    const [init, call] = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(init.error.code).toBe(-32602);
    expect(call.error.code).toBe(-32002);
  });

  it('the smoke artifacts answer the README jq projections', () => {
    const home = tempDir();
    const r = spawnSync('bash', [SMOKE], { encoding: 'utf8', env: { ...process.env, HELLO_MCP_HOME: home } });
    expect(r.status, r.stderr).toBe(0);
    const artifacts = /^artifacts: (.+)$/m.exec(r.stdout)![1]!;
    const jq = (filter: string, file: string) => {
      const out = spawnSync('jq', ['-c', filter, `${artifacts}/${file}`], { encoding: 'utf8' });
      expect(out.status, out.stderr).toBe(0);
      return JSON.parse(out.stdout);
    };
    expect(jq('.decision.verdict', 'bridge-call.json')).toBe('allow');
    expect(jq('.output.message', 'bridge-call.json')).toBe('hello from mcp, world');
    expect(jq('.result.isError', 'tool-call-response.json')).toBe(false);
    expect(jq('.result.structuredContent.arguments', 'tool-call-response.json')).toEqual({ name: 'world' });
    expect(jq('.result.nextCursor', 'tools-list-response.json')).toBeNull();
    expect(jq('.result.capabilities.experimental.chioProtocol.compatibility', 'initialize-response.json')).toBe(
      'exact_match',
    );
    expect(JSON.parse(readFileSync(`${artifacts}/bridge-call.json`, 'utf8')).decision).toEqual({ verdict: 'allow' });
  });

  it('the hello server fails closed on a tool name it never registered', async () => {
    const { helloServer } = await import('../../dist/examples/hello-mcp/hello-server.js');
    await expect(helloServer.invoke('not_hello_tool', {})).rejects.toThrow(/not registered: not_hello_tool/);
    await expect(helloServer.invoke('hello_tool', { name: 'x' })).resolves.toEqual({
      message: 'hello from mcp, x',
      arguments: { name: 'x' },
    });
  });
});
