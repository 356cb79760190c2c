// `chio mcp serve-http --auth-token T` serves the audit API beside /mcp under /v1/ with the same
// token: a client that made a governed call resolves that call's receipt from the edge's own URL.
// Without a token the API is not served at all (the receipts are not for anyone who can connect).
import { request } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
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
const TOKEN = 'edge-token-0123456789abcdef';
const children = childProcesses();

async function edge(db: string, extra: string[]): Promise<URL> {
  const started = await children.start(
    [
      CHIO_BIN,
      'mcp',
      'serve-http',
      '--listen',
      '127.0.0.1:0',
      '--receipt-db',
      db,
      '--server-id',
      'everything',
      ...extra,
      '--',
      process.execPath,
      EVERYTHING,
      'stdio',
    ],
    /MCP over Streamable HTTP at (\S+)/,
  );
  return new URL(started.match[1]!);
}

describe('the audit API on the hosted MCP edge', () => {
  it("with --auth-token: a governed call's receipt is resolved from the edge's URL with the same token; other tokens get 401", async () => {
    const db = join(tempDir(), 'edge-api.sqlite');
    const mcp = await edge(db, ['--auth-token', TOKEN]);
    const client = new Client({ name: 'chio-test', version: '1.0.0' }, { capabilities: {} });
    await client.connect(
      new StreamableHTTPClientTransport(mcp, { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }),
    );
    const r = await client.callTool({ name: 'echo', arguments: { message: 'audit me' } });
    const id = ((r._meta as Record<string, any>)['chio/receipt'] as { id: string }).id;
    await client.close();

    const base = new URL('/', mcp);
    const got = await fetch(new URL(`/v1/receipts/${id}`, base), { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(got.status).toBe(200);
    const body = (await got.json()) as any;
    expect(body.receipt).toMatchObject({ id, tool_name: 'echo', action: { parameters: { message: 'audit me' } } });
    expect(body.verification.ok).toBe(true);
    const query = (await (
      await fetch(new URL('/v1/receipts/query?toolServer=everything', base), {
        headers: { authorization: `Bearer ${TOKEN}` },
      })
    ).json()) as any;
    expect(query.receipts.map((x: { id: string }) => x.id)).toContain(id);
    expect((await fetch(new URL('/v1/ledger/head', base))).status).toBe(401);
    expect(
      (await fetch(new URL('/v1/ledger/head', base), { headers: { authorization: 'Bearer not-the-token-000000' } }))
        .status,
    ).toBe(401);
    // The Host check guards the API as it guards /mcp (DNS rebinding).
    // (node:http: fetch will not send another Host.)
    const rebound = await new Promise<number>((resolve, reject) => {
      request(
        {
          host: base.hostname,
          port: base.port,
          path: '/v1/ledger/head',
          headers: { authorization: `Bearer ${TOKEN}`, host: 'evil.example' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      )
        .on('error', reject)
        .end();
    });
    expect(rebound).toBe(403);
  });

  it('without --auth-token the API is not served: /v1/ is 404', async () => {
    const db = join(tempDir(), 'edge-no-api.sqlite');
    const mcp = await edge(db, []);
    const r = await fetch(new URL('/v1/ledger/head', mcp));
    expect(r.status).toBe(404);
  });
});
