// Tool arguments an agent shapes against the canonical form (RFC 8785) that receipts sign, sent
// through the real `chio mcp serve` (a child process) in front of a real MCP server that records
// every call it receives, by the real MCP SDK client. Arguments JCS cannot carry without loss
// (integers beyond 2^53-1, lone surrogates in a value or a member name, nesting beyond 128) are
// refused as invalid params with the JSON path named (task-augmented calls too, before a task exists)
// and never reach the upstream; a `__proto__` member changes no
// prototype; what a receipt records is exactly what the upstream received, hashed as signed.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openLedger, verifyChain } from '../../src/ledger/index.js';
import { chio } from '../helpers/cli.js';
import { connectGovernedMcp } from '../helpers/mcp-serve.js';
import { tempDir } from '../helpers/tmp.js';

const RECORDING_SERVER = new URL('../helpers/recording-mcp-server.mjs', import.meta.url).pathname;

const dir = tempDir();
const log = join(dir, 'upstream-calls.jsonl');
const db = join(dir, 'receipts.sqlite');
const seed = join(dir, 'kernel.seed');
const pub = join(dir, 'kernel.pub');
let client: Client;

type ToolResult = { isError?: boolean; content: Array<{ text: string }>; _meta?: Record<string, { decision: string }> };

const upstreamCalls = () =>
  readFileSync(log, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as unknown);

const receipts = () => {
  const ledger = openLedger(db, { readonly: true });
  try {
    return (ledger.db.prepare('SELECT body FROM ledger_entries ORDER BY seq').all() as Array<{ body: string }>).map(
      (r) =>
        JSON.parse(r.body) as {
          decision: { verdict: string };
          action: { parameters: unknown; parameter_hash: string };
        },
    );
  } finally {
    ledger.close();
  }
};

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

beforeAll(async () => {
  writeFileSync(log, '');
  expect(chio(['keys', 'generate', '--out', seed, '--pub-out', pub]).status).toBe(0);
  client = await connectGovernedMcp(
    { db, seedFile: seed, upstream: [process.execPath, RECORDING_SERVER, log] },
    'canonical-attacks',
  );
});

afterAll(async () => {
  await client?.close();
});

let nested: unknown = 'x';
for (let i = 0; i < 200; i++) nested = [nested];

describe('arguments shaped against the canonical form, through chio mcp serve', () => {
  it.each([
    ['an integer beyond 2^53-1', { n: 2 ** 60 }, /cannot canonicalize \$\.n: integer .* is beyond 2\^53-1/],
    ['an integer-valued double beyond 2^53-1', { f: 1e21 }, /cannot canonicalize \$\.f: integer .* is beyond 2\^53-1/],
    ['a lone surrogate in a value', { s: 'a\ud800b' }, /cannot canonicalize \$\.s: string contains a lone surrogate/],
    [
      'a lone surrogate in a member name',
      { o: { '\udc00': 1 } },
      /cannot canonicalize \$\.o: member name contains a lone surrogate/,
    ],
    [
      'nesting deeper than 128 levels',
      { d: nested },
      /cannot canonicalize \$\.d(\[0\]){127}: nesting deeper than 128 levels/,
    ],
  ])(
    '%s: invalid params (-32602) with CHIO-CRYPTO-NOT-CANONICAL naming the path; the upstream never sees it',
    async (_name, args, message) => {
      const before = receipts().length;
      await expect(client.callTool({ name: 'record', arguments: args })).rejects.toThrow(
        expect.objectContaining({
          code: -32602,
          message: expect.stringMatching(/CHIO-CRYPTO-NOT-CANONICAL/),
          data: expect.objectContaining({ code: 'CHIO-CRYPTO-NOT-CANONICAL', path: expect.stringMatching(/^\$\./) }),
        }),
      );
      await expect(client.callTool({ name: 'record', arguments: args })).rejects.toThrow(message);
      expect(upstreamCalls()).toEqual([]);
      // Nothing to sign (the receipt could not carry the arguments), and nothing half-written.
      expect(receipts()).toHaveLength(before);
    },
  );

  it('a task-augmented call with such arguments is refused the same way before any task exists; the upstream never sees it', async () => {
    const before = receipts().length;
    const any = z.object({}).passthrough();
    const tasks = async () =>
      ((await client.request({ method: 'tasks/list', params: {} }, any)) as { tasks: unknown[] }).tasks;
    const tasksBefore = (await tasks()).length;
    await expect(
      client.request(
        { method: 'tools/call', params: { name: 'record', arguments: { s: 'a\ud800b' }, task: { ttl: 60_000 } } },
        any,
      ),
    ).rejects.toThrow(
      expect.objectContaining({
        code: -32602,
        message: expect.stringMatching(/cannot canonicalize \$\.s: string contains a lone surrogate/),
        data: expect.objectContaining({ code: 'CHIO-CRYPTO-NOT-CANONICAL', path: '$.s' }),
      }),
    );
    expect(await tasks()).toHaveLength(tasksBefore);
    expect(upstreamCalls()).toEqual([]);
    expect(receipts()).toHaveLength(before);
  });

  it('a __proto__ member changes no prototype; the receipt records exactly what the upstream received', async () => {
    const args = JSON.parse('{"__proto__":{"path":"/etc/shadow"},"constructor":{"prototype":1},"a":"b"}') as Record<
      string,
      unknown
    >;
    const r = (await client.callTool({ name: 'record', arguments: args })) as ToolResult;
    expect(r.isError).not.toBe(true);
    expect(r._meta?.['chio/receipt']?.decision).toBe('allow');
    const received = upstreamCalls();
    expect(received).toEqual([{ a: 'b', constructor: { prototype: 1 } }]);
    expect(Object.getPrototypeOf(received[0])).toBe(Object.prototype);
    const last = receipts().at(-1)!;
    expect(last.action.parameters).toEqual(received[0]);
    expect(last.action.parameter_hash).toBe(sha256('{"a":"b","constructor":{"prototype":1}}'));
  });

  it('numbers at the edges of their form are recorded in the canonical text the upstream got, hashed as signed', async () => {
    const args = { tiny: 5e-324, negZero: -0, big: 2 ** 53 - 1, frac: 0.1 + 0.2, exp: 1.5e-7 };
    const r = (await client.callTool({ name: 'record', arguments: args })) as ToolResult;
    expect(r._meta?.['chio/receipt']?.decision).toBe('allow');
    expect(upstreamCalls().at(-1)).toEqual({
      tiny: 5e-324,
      negZero: 0,
      big: 9007199254740991,
      frac: 0.30000000000000004,
      exp: 1.5e-7,
    });
    const canonical = '{"big":9007199254740991,"exp":1.5e-7,"frac":0.30000000000000004,"negZero":0,"tiny":5e-324}';
    expect(receipts().at(-1)!.action.parameter_hash).toBe(sha256(canonical));
  });

  it('afterwards the ledger holds the two allowed calls only and verifies under the kernel key', () => {
    const ledger = openLedger(db, { readonly: true });
    try {
      expect(verifyChain(ledger)).toMatchObject({ ok: true, entries: 2 });
    } finally {
      ledger.close();
    }
    const verify = chio(['ledger', 'verify', '--receipt-db', db, '--trusted-kernel-pubkey', pub]);
    expect(verify.status).toBe(0);
    expect(verify.stdout).toMatch(/^OK: 2 entries verified/);
  });
});
