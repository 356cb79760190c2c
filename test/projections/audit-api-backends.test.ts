// chio serve over the same ledger on both stores: a kernel-written SQLite file, and its copy in PostgreSQL
// (chio ledger copy). Every route answers the same status and the same JSON on both — receipts by every filter and
// page, receipts by id, sessions, a session's receipts and certificate, denials by guard, the head, and the errors
// (bad parameters, unknown ids, a missing token), and once both hold the same checkpoint, the checkpoint, inclusion
// proofs and evidence bundles.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { childProcesses } from '../helpers/children.js';
import { chio, CHIO_BIN } from '../helpers/cli.js';
import { kernelLedger } from '../helpers/kernel-ledger.js';
import { freshPgDatabase } from '../helpers/postgres.js';
import { tempDir } from '../helpers/tmp.js';

const TOKEN = 'audit-token-0123456789abcdef';
const children = childProcesses();
const dir = tempDir();
const api: Record<'SQLite' | 'PostgreSQL', string> = { SQLite: '', PostgreSQL: '' };
const dbs: Record<'SQLite' | 'PostgreSQL', string> = { SQLite: '', PostgreSQL: '' };
const seed = join(dir, 'kernel.seed');
let capabilityId = '';

async function serve(db: string, seedFile: string): Promise<string> {
  const started = await children.start(
    [
      CHIO_BIN,
      'serve',
      '--listen',
      '127.0.0.1:0',
      '--receipt-db',
      db,
      '--service-token',
      TOKEN,
      '--kernel-seed-file',
      seedFile,
    ],
    /audit API at (\S+)/,
  );
  expect(started.stderr()).not.toContain('password');
  return started.match[1]!.replace(/\/$/, '');
}

const get = async (base: string, path: string, token: string | null = TOKEN) => {
  const r = await fetch(`${base}${path}`, { headers: token === null ? {} : { authorization: `Bearer ${token}` } });
  return { status: r.status, body: (await r.json()) as any };
};

beforeAll(async () => {
  const file = join(dir, 'audit.sqlite');
  capabilityId = await kernelLedger(file, 40);
  const { url } = await freshPgDatabase();
  const copy = chio(['ledger', 'copy', '--from', file, '--to', url]);
  expect(copy.status, copy.stderr).toBe(0);
  writeFileSync(seed, `${'07'.repeat(32)}\n`);
  Object.assign(dbs, { SQLite: file, PostgreSQL: url });
  api.SQLite = await serve(file, seed);
  api.PostgreSQL = await serve(url, seed);
});

describe('chio serve on SQLite and on PostgreSQL', () => {
  it('every route answers the same status and JSON on both stores', async () => {
    const first = (await get(api.SQLite, '/v1/receipts/query?limit=1')).body.receipts[0].id as string;
    const paths = [
      '/v1/receipts/query?limit=100',
      '/v1/receipts/query?toolName=hello_tool&limit=7',
      '/v1/receipts/query?toolName=hello_tool&limit=7&cursor=12',
      '/v1/receipts/query?outcome=deny&sessionId=s-1',
      `/v1/receipts/query?capabilityId=${capabilityId}&since=1790000070&until=1790000200&toolServer=fs`,
      '/v1/receipts/query?toolName=no-such-tool',
      `/v1/receipts/${first}`,
      '/v1/sessions',
      '/v1/sessions?limit=2',
      '/v1/sessions?limit=2&cursor=2',
      '/v1/sessions/s-1/receipts?limit=5&cursor=3',
      '/v1/denials?buckets=10',
      '/v1/denials?sessionId=s-0&since=1790000000&until=1790000300&buckets=7',
      '/v1/ledger/head',
      // The errors, with their codes.
      '/v1/receipts/query?limit=0',
      '/v1/receipts/query?outcome=maybe',
      '/v1/receipts/query?bogus=1',
      `/v1/receipts/${'f'.repeat(64)}`,
      `/v1/receipts/${first.slice(0, 12)}`,
      '/v1/sessions/no-such-session/receipts',
      '/v1/sessions/no-such-session/certificate',
      '/v1/ledger/head?limit=3',
      '/v1/nothing-here',
    ];
    for (const path of paths) {
      const [lite, post] = [await get(api.SQLite, path), await get(api.PostgreSQL, path)];
      expect(post, path).toEqual(lite);
    }
    // Not vacuous: the pages hold what the kernel wrote.
    expect((await get(api.PostgreSQL, '/v1/receipts/query?limit=100')).body.totalCount).toBe(41);
    expect(
      (await get(api.PostgreSQL, '/v1/sessions')).body.sessions.map((s: { sessionId: string }) => s.sessionId),
    ).toEqual(['s-0', 's-1', 's-2']);
    expect((await get(api.PostgreSQL, '/v1/denials?buckets=10')).body.guards).toEqual([
      expect.objectContaining({ guard: 'forbidden-path', total: 10 }),
    ]);
    expect((await get(api.PostgreSQL, '/v1/receipts/query?limit=0')).status).toBe(400);
    for (const base of [api.SQLite, api.PostgreSQL])
      expect((await get(base, '/v1/ledger/head', null)).status).toBe(401);
  });

  it('a session certificate from each store certifies the same receipts under the same binding', async () => {
    const [lite, post] = [
      await get(api.SQLite, '/v1/sessions/s-2/certificate'),
      await get(api.PostgreSQL, '/v1/sessions/s-2/certificate'),
    ];
    expect(lite.status).toBe(200);
    expect(post.status).toBe(200);
    const { issued_at: _a, ...liteBody } = lite.body.body;
    const { issued_at: _b, ...postBody } = post.body.body;
    expect(postBody).toEqual(liteBody);
    expect(postBody).toMatchObject({ session_id: 's-2', receipt_count: 13, chain_continuous: true });
  });

  it("the checkpoint, a receipt's inclusion proof and a session's evidence bundle are the same from both stores", async () => {
    for (const store of [dbs.SQLite, dbs.PostgreSQL]) {
      expect((await get(store === dbs.SQLite ? api.SQLite : api.PostgreSQL, '/v1/ledger/checkpoint')).status).toBe(404);
      const made = chio([
        'ledger',
        'checkpoint',
        '--receipt-db',
        store,
        '--kernel-seed-file',
        seed,
        '--origin',
        'chio-ledger/audit-test',
      ]);
      expect(made.status, made.stderr).toBe(0);
    }
    const first = (await get(api.SQLite, '/v1/receipts/query?limit=1')).body.receipts[0].id as string;
    const [liteCp, postCp] = [
      await get(api.SQLite, '/v1/ledger/checkpoint'),
      await get(api.PostgreSQL, '/v1/ledger/checkpoint'),
    ];
    expect(postCp.status).toBe(200);
    const { createdAt: _a, ...liteNote } = liteCp.body;
    const { createdAt: _b, ...postNote } = postCp.body;
    expect(postNote).toEqual(liteNote);
    expect(postNote).toMatchObject({ treeSize: 41, origin: 'chio-ledger/audit-test' });
    const path = `/v1/receipts/${first}/proof`;
    expect(await get(api.PostgreSQL, path)).toEqual(await get(api.SQLite, path));
    const [liteEv, postEv] = [
      await get(api.SQLite, '/v1/sessions/s-0/evidence'),
      await get(api.PostgreSQL, '/v1/sessions/s-0/evidence'),
    ];
    expect(postEv.status).toBe(200);
    const strip = (b: any) => ({
      ...b,
      certificate: { ...b.certificate, body: { ...b.certificate.body, issued_at: 0 }, signature: '' },
    });
    expect(strip(postEv.body)).toEqual(strip(liteEv.body));
    expect(postEv.body.entries).toHaveLength(14);
  });

  it('the web explorer is served at / over a PostgreSQL ledger too', async () => {
    const r = await fetch(`${api.PostgreSQL}/`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/html/);
  });
});
