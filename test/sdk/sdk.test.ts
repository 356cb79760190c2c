// The SDK end to end: `ChioClient` and `ReceiptQueryClient` against a real `chio mcp serve-http
// --auth-token` in front of the real server-everything — initialize, list, call, then resolve the
// receipt of that very call by its id from the edge's own URL; every page through the iterator;
// the service's error codes surfaced as ChioErrors; an unreachable or wrong endpoint fails clearly.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ChioClient, ReceiptQueryClient } from '../../src/sdk/index.js';
import { childProcesses } from '../helpers/children.js';
import { CHIO_BIN } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const require = createRequire(import.meta.url);
const EVERYTHING = join(
  require.resolve('@modelcontextprotocol/server-everything/package.json'),
  '..',
  'dist',
  'index.js',
);
const TOKEN = 'sdk-token-0123456789abcdef';
const children = childProcesses();
let base: string;

beforeAll(async () => {
  const db = join(tempDir(), 'sdk.sqlite');
  const edge = await children.start(
    [
      CHIO_BIN,
      'mcp',
      'serve-http',
      '--listen',
      '127.0.0.1:0',
      '--receipt-db',
      db,
      '--server-id',
      'wrapped-everything',
      '--auth-token',
      TOKEN,
      '--',
      process.execPath,
      EVERYTHING,
      'stdio',
    ],
    /MCP over Streamable HTTP at (\S+)\/mcp/,
  );
  base = edge.match[1]!;
});

describe('the SDK against a hosted edge', () => {
  it('initialize, listTools, callTool, then the receipt of that call by its id', async () => {
    const session = await ChioClient.withStaticBearer(base, TOKEN).initialize();
    let receiptId: string;
    try {
      const tools = await session.listTools();
      expect(tools.map((t) => t.name)).toContain('echo');
      const result = await session.callTool('echo', { message: 'hello from the sdk' });
      expect(result.isError).not.toBe(true);
      expect(result.content).toEqual([{ type: 'text', text: 'Echo: hello from the sdk' }]);
      expect(result.receipt).toMatchObject({ decision: 'allow', seq: expect.any(Number) });
      receiptId = result.receipt!.id;
    } finally {
      await session.close();
    }
    const receipts = new ReceiptQueryClient(base, TOKEN);
    const detail = await receipts.get(receiptId);
    expect(detail.receipt).toMatchObject({
      id: receiptId,
      tool_server: 'wrapped-everything',
      tool_name: 'echo',
      action: { parameters: { message: 'hello from the sdk' } },
    });
    expect(detail.verification.ok).toBe(true);
    const page = await receipts.query({ toolServer: 'wrapped-everything', limit: 5 });
    expect(page.totalCount).toBeGreaterThanOrEqual(1);
    expect(page.receipts.map((r) => r.id)).toContain(receiptId);
  });

  it('the async iterator walks every page once, in ledger order', async () => {
    const session = await ChioClient.withStaticBearer(`${base}/mcp`, TOKEN).initialize();
    try {
      for (let i = 0; i < 7; i++) await session.callTool('echo', { message: `page-${i}` });
    } finally {
      await session.close();
    }
    const receipts = new ReceiptQueryClient(`${base}/`, TOKEN);
    const all: string[] = [];
    for await (const r of receipts.all({ toolName: 'echo', limit: 2 })) all.push(r.id);
    const one = await receipts.query({ toolName: 'echo', limit: 1000 });
    expect(all).toEqual(one.receipts.map((r) => r.id));
    expect(new Set(all).size).toBe(one.totalCount);
    expect(one.totalCount).toBeGreaterThanOrEqual(7);
  });

  it("the service's error codes arrive as ChioErrors; a wrong endpoint or token fails with a clear error", async () => {
    await expect(new ReceiptQueryClient(base, 'wrong-token-0123456789').query()).rejects.toMatchObject({
      code: 'CHIO-API-UNAUTHORIZED',
    });
    await expect(new ReceiptQueryClient(base, TOKEN).query({ limit: 0 })).rejects.toMatchObject({
      code: 'CHIO-API-BAD-REQUEST',
      message: expect.stringContaining('limit'),
    });
    await expect(new ReceiptQueryClient(base, TOKEN).get('0'.repeat(64))).rejects.toMatchObject({
      code: 'CHIO-API-NOT-FOUND',
    });
    await expect(new ReceiptQueryClient('http://127.0.0.1:9', TOKEN).query()).rejects.toMatchObject({
      code: 'CHIO-SDK-RESPONSE',
    });
    await expect(ChioClient.withStaticBearer(base, 'wrong-token-0123456789').initialize()).rejects.toMatchObject({
      code: 'CHIO-SDK-RESPONSE',
    });
    expect(() => ChioClient.withStaticBearer('not a url', TOKEN)).toThrow(
      expect.objectContaining({ code: 'CHIO-SDK-RESPONSE' }),
    );
  });

  // The MCP SDK's HTTP client transport hands every request its session's one AbortSignal, and
  // Node's fetch leaves a listener on it per request until garbage collection: an agent's long
  // session piled them up past 1,500 (a MaxListenersExceededWarning per call from then on).
  it('a session making 3,000 calls, 16 at a time, leaves no abort listener piling up in the agent (no MaxListenersExceededWarning)', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => {
      if (w.name === 'MaxListenersExceededWarning') warnings.push(w.message);
    };
    process.on('warning', onWarning);
    const session = await ChioClient.withStaticBearer(base, TOKEN).initialize();
    try {
      let next = 0;
      let answered = 0;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (next < 3000) {
            const i = next++;
            const result = await session.callTool('echo', { message: `m${i}` });
            expect(result.content).toEqual([{ type: 'text', text: `Echo: m${i}` }]);
            expect(result.receipt?.decision).toBe('allow');
            answered += 1;
          }
        }),
      );
      expect(answered).toBe(3000);
    } finally {
      await session.close();
      process.off('warning', onWarning);
    }
    expect(warnings).toEqual([]);
  });
});
