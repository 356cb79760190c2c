// The MCP edge over stdio with the real MCP SDK client on the other end, and hostile bytes on the raw wire.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { openLedger, verifyChain } from '../../src/ledger/index.js';
import { signerFromSeed, fromHex } from '../../src/crypto/index.js';
import { tempDir } from '../helpers/tmp.js';

const EDGE = fileURLToPath(new URL('../helpers/mcp-native-edge.mjs', import.meta.url));
const SEED = '77'.repeat(32);
const dir = tempDir();

describe('MCP edge, stdio, real SDK client', () => {
  it('initialize → tools/list → tools/call (allowed and denied) with receipts, unknown tool −32602, and a verifiable ledger', async () => {
    const db = join(dir, 'sdk.sqlite');
    const client = new Client({ name: 'chio-test', version: '1.0.0' }, { capabilities: {} });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [EDGE, db, SEED], stderr: 'pipe' }),
    );
    const caps = client.getServerCapabilities() as Record<string, any>;
    expect(caps.tools).toBeDefined();
    expect(caps.experimental.chioProtocol).toMatchObject({
      receiptSchema: 'chio.receipt.v1',
      kernelKey: signerFromSeed(fromHex(SEED)).publicKeyHex,
    });
    const sessionId = caps.experimental.chioProtocol.sessionId as string;

    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['hello_tool', 'read_file', 'count_tool']);
    expect(tools[0]!.inputSchema).toMatchObject({ type: 'object' });

    const hello = await client.callTool({ name: 'hello_tool', arguments: { name: 'world' } });
    expect(hello.isError).toBeFalsy();
    expect(hello.structuredContent).toEqual({ message: 'hello from mcp, world' });
    expect((hello.content as Array<{ text: string }>)[0]!.text).toBe('{"message":"hello from mcp, world"}');
    const receipt = (hello._meta as Record<string, any>)['chio/receipt'];
    expect(receipt).toMatchObject({ decision: 'allow', seq: 1 });
    expect(receipt.id).toMatch(/^[0-9a-f]{64}$/);

    const denied = await client.callTool({ name: 'read_file', arguments: { path: '/etc/shadow' } });
    expect(denied.isError).toBe(true);
    expect((denied.content as Array<{ text: string }>)[0]!.text).toMatch(
      /forbidden pattern: \/etc\/shadow\* \(forbidden-path\)/,
    );
    expect((denied._meta as Record<string, any>)['chio/receipt']).toMatchObject({ decision: 'deny', seq: 2 });

    const unknown = await client.callTool({ name: 'no_such_tool', arguments: {} }).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(McpError);
    expect((unknown as McpError).code).toBe(-32602);
    expect((unknown as McpError).message).toBe('MCP error -32602: unknown tool');
    expect(await client.ping()).toEqual({});
    await client.close();

    const ledger = openLedger(db, { readonly: true });
    expect(verifyChain(ledger)).toMatchObject({ ok: true, entries: 2, sessions: 1 });
    expect(ledger.db.prepare('SELECT DISTINCT session_id FROM ledger_entries').all()).toEqual([
      { session_id: sessionId },
    ]);
    expect(
      (ledger.db.prepare('SELECT receipt_id FROM ledger_entries WHERE seq = 1').get() as { receipt_id: string })
        .receipt_id,
    ).toBe(receipt.id);
    ledger.close();
  });
});

/** Writes raw lines to a fresh edge and collects every response line until stdin closes and the edge exits. */
function raw(
  lines: Array<string | Buffer>,
  maxBytes?: number,
): Promise<{ code: number | null; responses: any[]; stdout: string; db: string }> {
  return new Promise((resolve, reject) => {
    const db = join(dir, `raw-${Math.random().toString(16).slice(2)}.sqlite`);
    const args = [EDGE, db, SEED, ...(maxBytes === undefined ? [] : [String(maxBytes)])];
    const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({
        code,
        stdout,
        db,
        responses: stdout
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l)),
      }),
    );
    for (const l of lines) child.stdin.write(l);
    child.stdin.end();
  });
}

const init = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
});

describe('MCP edge, stdio, hostile input', () => {
  it('answers malformed JSON, invalid requests, batches, early tool requests and unknown methods with the right codes, and exits when stdin closes', async () => {
    const r = await raw([
      '{"jsonrpc": "2.0", "id": 1, "method": \n',
      '{"jsonrpc":"2.0","id":null,"method":"ping"}\n',
      '[{"jsonrpc":"2.0","id":2,"method":"ping"}]\n',
      '{"jsonrpc":"2.0","id":3,"method":"tools/list"}\n',
      `${init}\n`,
      '{"jsonrpc":"2.0","id":4,"method":"tools/list"}\n',
      '{"jsonrpc":"2.0","method":"notifications/initialized"}\n',
      '{"jsonrpc":"2.0","id":5,"method":"server/discover"}\n',
      '{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":42}}\n',
      '{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"cursor":"bogus"}}\n',
      '{"jsonrpc":"2.0","id":8,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"0"}}}\n',
      '{"jsonrpc":"2.0","id":9,"method":"ping"}\n',
    ]);
    expect(r.code).toBe(0);
    const byId = (id: unknown) => r.responses.find((m) => m.id === id);
    const nullIds = r.responses.filter((m) => m.id === null).map((m) => m.error.code);
    expect(nullIds.sort()).toEqual([-32700, -32600, -32600].sort());
    expect(byId(3).error.code).toBe(-32002);
    expect(byId(1).result.protocolVersion).toBe('2025-11-25');
    expect(byId(4).error.code).toBe(-32002);
    expect(byId(5).error.code).toBe(-32601);
    expect(byId(6).error.code).toBe(-32602);
    expect(byId(7).error.code).toBe(-32602);
    expect(byId(8).error.code).toBe(-32600);
    expect(byId(9).result).toEqual({});
    expect(r.stdout.endsWith('\n')).toBe(true);
  });

  it('a client that repeats a JSON-RPC id (7, 7, 7 and "7") gets four governed calls: four results, four receipts with distinct nonces, nothing left reserved', async () => {
    const callLine = (id: number | string, name: string) =>
      `${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'hello_tool', arguments: { name } } })}\n`;
    const r = await raw([
      `${init}\n`,
      '{"jsonrpc":"2.0","method":"notifications/initialized"}\n',
      callLine(7, 'a'),
      callLine(7, 'b'),
      callLine(7, 'c'),
      callLine('7', 'd'),
    ]);
    const answers = r.responses.filter((m) => m.id === 7 || m.id === '7');
    expect(answers).toHaveLength(4);
    expect(answers.every((m) => m.error === undefined && m.result.isError !== true)).toBe(true);
    expect(answers.map((m) => m.result.structuredContent.message).sort()).toEqual(
      ['a', 'b', 'c', 'd'].map((n) => `hello from mcp, ${n}`),
    );
    const ledger = openLedger(r.db, { readonly: true });
    try {
      const bodies = (
        ledger.db.prepare("SELECT body FROM ledger_entries WHERE kind = 'receipt' ORDER BY seq").all() as Array<{
          body: string;
        }>
      ).map((b) => JSON.parse(b.body));
      expect(bodies.map((b) => b.decision.verdict)).toEqual(['allow', 'allow', 'allow', 'allow']);
      expect(bodies.map((b) => b.action.parameters.name).sort()).toEqual(['a', 'b', 'c', 'd']);
      expect(new Set(bodies.map((b) => b.metadata.chio_receipt_signing_nonce)).size).toBe(4);
      // The client's id is kept as evidence of what it sent.
      expect(bodies.every((b) => /-7$/.test(b.metadata.chio_request_id))).toBe(true);
      expect(ledger.db.prepare('SELECT count(*) AS n FROM pending_calls').get()).toEqual({ n: 0 });
      expect(verifyChain(ledger)).toMatchObject({ ok: true, entries: 4 });
    } finally {
      ledger.close();
    }
  });

  it('refuses a message over the size limit with an error, not a crash, and keeps serving', async () => {
    const r = await raw(
      [
        `${init}\n`,
        `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"pad":"${'x'.repeat(5000)}"}}\n`,
        '{"jsonrpc":"2.0","id":3,"method":"ping"}\n',
      ],
      2048,
    );
    expect(r.code).toBe(0);
    expect(r.responses.find((m) => m.id === null).error).toMatchObject({
      code: -32600,
      message: 'message larger than 2048 bytes refused',
    });
    expect(r.responses.find((m) => m.id === 2)).toBeUndefined();
    expect(r.responses.find((m) => m.id === 3).result).toEqual({});
  });

  it('negotiates the protocol version: a supported older version is echoed, an unknown one gets the latest', async () => {
    const older = await raw([`${init.replace('2025-11-25', '2025-06-18')}\n`]);
    expect(older.responses[0].result.protocolVersion).toBe('2025-06-18');
    const future = await raw([`${init.replace('2025-11-25', '2099-01-01')}\n`]);
    expect(future.responses[0].result.protocolVersion).toBe('2025-11-25');
  });
});

describe('MCP edge, tasks (2025-11-25)', () => {
  it('a task-augmented tools/call returns a working task at once; get, list and result follow it; cancel refuses a finished task; unknown ids are −32602', async () => {
    const lines = [
      `${init}\n`,
      '{"jsonrpc":"2.0","method":"notifications/initialized"}\n',
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hello_tool","arguments":{"name":"task"},"task":{"ttl":60000}}}\n',
    ];
    // The raw helper writes everything at once; the edge answers tasks/result only after the call ends.
    const r = await raw([
      ...lines,
      '{"jsonrpc":"2.0","id":3,"method":"tasks/list"}\n',
      '{"jsonrpc":"2.0","id":4,"method":"tasks/get","params":{"taskId":"task-nope"}}\n',
    ]);
    const created = r.responses.find((m) => m.id === 2).result.task;
    expect(created).toMatchObject({ status: 'working', ttl: 60000 });
    expect(created.taskId).toMatch(/^task-/);
    expect(r.responses.find((m) => m.id === 3).result.tasks.map((t: { taskId: string }) => t.taskId)).toEqual([
      created.taskId,
    ]);
    expect(r.responses.find((m) => m.id === 4).error.code).toBe(-32602);
    expect(r.responses.find((m) => m.id === 1).result.capabilities.tasks).toMatchObject({
      requests: { tools: { call: {} } },
    });
  });

  it('tasks/result returns the governed call result tagged with its task, and the receipt is in the ledger', async () => {
    const { Client: SdkClient } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { z } = await import('zod');
    const db = join(dir, 'tasks.sqlite');
    const client = new SdkClient({ name: 'chio-test', version: '1.0.0' }, { capabilities: {} });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [EDGE, db, SEED], stderr: 'pipe' }),
    );
    const any = z.object({}).passthrough();
    const created = (await client.request(
      { method: 'tools/call', params: { name: 'hello_tool', arguments: { name: 'later' }, task: {} } },
      any,
    )) as { task: { taskId: string } };
    const result = (await client.request(
      { method: 'tasks/result', params: { taskId: created.task.taskId } },
      any,
    )) as Record<string, any>;
    expect(result.structuredContent).toEqual({ message: 'hello from mcp, later' });
    expect(result._meta['io.modelcontextprotocol/related-task']).toEqual({ taskId: created.task.taskId });
    const receiptId = result._meta['chio/receipt'].id;
    const got = (await client.request({ method: 'tasks/get', params: { taskId: created.task.taskId } }, any)) as Record<
      string,
      unknown
    >;
    expect(got.status).toBe('completed');
    const cancel = await client
      .request({ method: 'tasks/cancel', params: { taskId: created.task.taskId } }, any)
      .catch((e: unknown) => e);
    expect((cancel as McpError).code).toBe(-32602);
    await client.close();
    const ledger = openLedger(db, { readonly: true });
    expect(
      (ledger.db.prepare('SELECT receipt_id FROM ledger_entries').get() as { receipt_id: string }).receipt_id,
    ).toBe(receiptId);
    expect(verifyChain(ledger)).toMatchObject({ ok: true, entries: 1 });
    ledger.close();
  });
});

describe('MCP edge, chioToolStreaming', () => {
  it('a client that negotiates chunk notifications gets each chunk as notifications/chio/tool_call_chunk, and the receipt covers all of them', async () => {
    const streamingInit = init.replace(
      '"capabilities":{}',
      '"capabilities":{"experimental":{"chioToolStreaming":{"toolCallChunkNotifications":true}}}',
    );
    const r = await raw([
      `${streamingInit}\n`,
      '{"jsonrpc":"2.0","method":"notifications/initialized"}\n',
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"count_tool","arguments":{}}}\n',
    ]);
    expect(r.responses[0].result.capabilities.experimental.chioToolStreaming).toEqual({
      toolCallChunkNotifications: true,
    });
    const chunks = r.responses.filter((m) => m.method === 'notifications/chio/tool_call_chunk').map((m) => m.params);
    expect(chunks).toEqual([0, 1, 2].map((i) => ({ requestId: 2, chunkIndex: i, data: { n: i + 1 } })));
    const result = r.responses.find((m) => m.id === 2).result;
    expect(result.structuredContent).toEqual({ chunks: [{ n: 1 }, { n: 2 }, { n: 3 }] });
    const { hashCanonical, sha256Hex } = await import('../../src/crypto/index.js');
    const expected = sha256Hex([1, 2, 3].map((n) => hashCanonical({ n })).join(''));
    const db = r.db;
    const ledger = openLedger(db, { readonly: true });
    expect(
      JSON.parse((ledger.db.prepare('SELECT body FROM ledger_entries WHERE seq = 1').get() as { body: string }).body)
        .content_hash,
    ).toBe(expected);
    ledger.close();
  });

  it('a client that does not negotiate it gets the plain invoke result', async () => {
    const r = await raw([
      `${init}\n`,
      '{"jsonrpc":"2.0","method":"notifications/initialized"}\n',
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"count_tool","arguments":{}}}\n',
    ]);
    expect(r.responses.some((m) => m.method === 'notifications/chio/tool_call_chunk')).toBe(false);
    expect(r.responses.find((m) => m.id === 2).result.structuredContent).toEqual({ count: 3 });
  });
});
