// `chio serve`: the read-only audit API as a real process over a ledger the real kernel wrote.
// Every filter of /v1/receipts/query against the same filter computed from the ledger, paging to
// the end with totalCount stable, receipts by id with a verdict that catches a tampered body,
// sessions, the ledger head; bad parameters (400, with their code), a missing or wrong token (401),
// writes refused (405); and the ledger file's bytes unchanged by a run of requests.
import { spawn } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { signerFromSeed, toHex } from '../../src/crypto/index.js';
import { verifyCertificate } from '../../src/projections/certificate/index.js';
import { verifyProof } from '../../src/projections/checkpoints/index.js';
import { verifyEvidenceBundle } from '../../src/projections/evidence/index.js';
import { Kernel } from '../../src/kernel/index.js';
import { childProcesses } from '../helpers/children.js';
import { chio, CHIO_BIN } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { CountingToolServer } from '../helpers/tool-server.js';

const TOKEN = 'audit-token-0123456789abcdef';
const children = childProcesses();

async function serve(db: string, extra: string[] = []): Promise<{ url: string; stderr: () => string }> {
  const started = await children.start(
    [CHIO_BIN, 'serve', '--listen', '127.0.0.1:0', '--receipt-db', db, ...extra],
    /audit API at (\S+)/,
  );
  return { url: started.match[1]!.replace(/\/$/, ''), stderr: started.stderr };
}

const get = async (url: string, token: string | null = TOKEN, method = 'GET') => {
  const r = await fetch(url, { method, headers: token === null ? {} : { authorization: `Bearer ${token}` } });
  return { status: r.status, headers: r.headers, body: (await r.json()) as any };
};

describe('chio serve: the audit API', () => {
  const dir = tempDir();
  const db = join(dir, 'audit.sqlite');
  let api: string;
  const made: Array<{
    id: string;
    session: string;
    tool: string;
    verdict: string;
    timestamp: number;
    guard: string | undefined;
  }> = [];

  beforeAll(async () => {
    // A ledger written by the real kernel: three sessions, allows, denials (a forbidden path) and a tool failure.
    let clock = 1_790_000_000;
    const kernel = Kernel.open({
      ledgerPath: db,
      seed: new Uint8Array(32).fill(3),
      clock: () => clock,
      checkpoints: false,
    });
    kernel.registerToolServer(new CountingToolServer());
    const agent = signerFromSeed(new Uint8Array(32).fill(4));
    const capability = kernel.issueCapability({ subject: agent.publicKeyHex, ttlSeconds: 10 ** 6 });
    for (let i = 0; i < 45; i++) {
      clock += 10;
      const session = `sess-${i % 3}`;
      const [tool, args] =
        i % 5 === 0
          ? ['read_file', { path: '/srv/app/.env' }]
          : i % 7 === 0
            ? ['fail_tool', {}]
            : ['hello_tool', { name: `n${i}` }];
      const r = await kernel.evaluateToolCall({
        capability,
        caller: agent.publicKeyHex,
        serverId: 'fs',
        toolName: tool as string,
        arguments: args,
        sessionId: session,
      });
      made.push({
        id: r.receipt.id,
        session,
        tool: tool as string,
        verdict: r.receipt.decision!.verdict,
        timestamp: r.receipt.timestamp,
        guard: (r.receipt.decision as { guard?: string }).guard,
      });
    }
    await kernel.close();
    ({ url: api } = await serve(db, ['--service-token', TOKEN]));
  });

  it('every filter answers what the ledger holds, in ledger order, with totalCount', async () => {
    const cases: Array<[string, (m: (typeof made)[number]) => boolean]> = [
      ['toolName=hello_tool', (m) => m.tool === 'hello_tool'],
      ['toolServer=fs&outcome=deny', (m) => m.verdict === 'deny'],
      ['outcome=incomplete', (m) => m.verdict === 'incomplete'],
      ['sessionId=sess-1', (m) => m.session === 'sess-1'],
      [`capabilityId=${encodeURIComponent('nope')}`, () => false],
      [
        `since=${made[10]!.timestamp}&until=${made[19]!.timestamp}`,
        (m) => m.timestamp >= made[10]!.timestamp && m.timestamp <= made[19]!.timestamp,
      ],
      [`since=${new Date(made[40]!.timestamp * 1000).toISOString()}`, (m) => m.timestamp >= made[40]!.timestamp],
    ];
    for (const [query, keep] of cases) {
      const r = await get(`${api}/v1/receipts/query?${query}&limit=1000`);
      expect(r.status, query).toBe(200);
      const want = made.filter(keep).map((m) => m.id);
      expect(
        r.body.receipts.map((x: { id: string }) => x.id),
        query,
      ).toEqual(want);
      expect(r.body.totalCount, query).toBe(want.length);
      expect(r.body.nextCursor, query).toBeNull();
    }
    const cap = (await get(`${api}/v1/receipts/query?limit=1`)).body.receipts[0].capability_id as string;
    expect((await get(`${api}/v1/receipts/query?capabilityId=${cap}&limit=1000`)).body.totalCount).toBe(45);
  });

  it('pages to the end with a stable totalCount, each receipt once, in order', async () => {
    const seen: string[] = [];
    let cursor: number | null = null;
    do {
      const r = await get(
        `${api}/v1/receipts/query?sessionId=sess-2&limit=4${cursor === null ? '' : `&cursor=${cursor}`}`,
      );
      expect(r.body.totalCount).toBe(15);
      seen.push(...r.body.receipts.map((x: { id: string }) => x.id));
      cursor = r.body.nextCursor;
    } while (cursor !== null);
    expect(seen).toEqual(made.filter((m) => m.session === 'sess-2').map((m) => m.id));
  });

  it('a receipt by id: the receipt, its chain position and a passing verdict; an unknown id is 404', async () => {
    const target = made[7]!;
    const r = await get(`${api}/v1/receipts/${target.id}`);
    expect(r.status).toBe(200);
    expect(r.body.receipt.id).toBe(target.id);
    expect(r.body.position).toMatchObject({ seq: 8, sessionId: target.session, producer: 'kernel' });
    expect(r.body.position.entryHash).toMatch(/^[0-9a-f]{64}$/);
    expect(r.body.verification).toEqual({ ok: true, signature: 'ok', entryHash: 'ok' });
    const missing = await get(`${api}/v1/receipts/${'0'.repeat(64)}`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('CHIO-API-NOT-FOUND');
    // A prefix is not an id here.
    expect((await get(`${api}/v1/receipts/${target.id.slice(0, 12)}`)).status).toBe(404);
  });

  it("sessions: summaries by verdict and time span, paged; a session's receipts; the ledger head", async () => {
    const r = await get(`${api}/v1/sessions?limit=2`);
    expect(r.body.totalCount).toBe(3);
    expect(r.body.sessions.map((s: { sessionId: string }) => s.sessionId)).toEqual(['sess-0', 'sess-1']);
    const next = await get(`${api}/v1/sessions?limit=2&cursor=${r.body.nextCursor}`);
    expect(next.body.sessions.map((s: { sessionId: string }) => s.sessionId)).toEqual(['sess-2']);
    expect(next.body.nextCursor).toBeNull();
    for (const s of [...r.body.sessions, ...next.body.sessions]) {
      const mine = made.filter((m) => m.session === s.sessionId);
      expect(s).toMatchObject({
        entries: mine.length,
        allowed: mine.filter((m) => m.verdict === 'allow').length,
        denied: mine.filter((m) => m.verdict === 'deny').length,
        incomplete: mine.filter((m) => m.verdict === 'incomplete').length,
        cancelled: 0,
        observations: 0,
        firstTimestamp: mine[0]!.timestamp,
        lastTimestamp: mine.at(-1)!.timestamp,
      });
    }
    const receipts = await get(`${api}/v1/sessions/sess-0/receipts?limit=1000`);
    expect(receipts.body.receipts.map((x: { id: string }) => x.id)).toEqual(
      made.filter((m) => m.session === 'sess-0').map((m) => m.id),
    );
    expect((await get(`${api}/v1/sessions/sess-9/receipts`)).status).toBe(404);
    const head = await get(`${api}/v1/ledger/head`);
    expect(head.body).toMatchObject({ entries: 45, head: { seq: 45 } });
  });

  it('bad parameters are 400 with CHIO-API-BAD-REQUEST naming the parameter', async () => {
    for (const [query, name] of [
      ['limit=0', 'limit'],
      ['limit=1001', 'limit'],
      ['limit=ten', 'limit'],
      ['cursor=-1', 'cursor'],
      ['outcome=maybe', 'outcome'],
      ['since=yesterday', 'since'],
      ['toolname=x', 'toolname'],
      ['limit=1&limit=2', '"limit"'],
      [`toolName=${'x'.repeat(300)}`, 'toolName'],
    ] as const) {
      const r = await get(`${api}/v1/receipts/query?${query}`);
      expect(r.status, query).toBe(400);
      expect(r.body.error.code, query).toBe('CHIO-API-BAD-REQUEST');
      expect(r.body.error.message, query).toContain(name);
    }
    expect((await get(`${api}/v1/receipts/%E0%A4%A`)).status).toBe(400);
    expect((await get(`${api}/v1/ledger/head?limit=3`)).status).toBe(400);
    expect((await get(`${api}/v1/nowhere`)).status).toBe(404);
  });

  it('no token, a wrong token, a token in another scheme: 401 on every route but /healthz', async () => {
    for (const route of [
      '/v1/receipts/query',
      `/v1/receipts/${made[0]!.id}`,
      '/v1/sessions',
      '/v1/ledger/head',
      '/v1/nowhere',
    ]) {
      for (const token of [null, 'wrong-token-0123456789', `${TOKEN}x`]) {
        const r = await get(`${api}${route}`, token);
        expect(r.status, `${route} ${token}`).toBe(401);
        expect(r.body.error.code).toBe('CHIO-API-UNAUTHORIZED');
        expect(r.headers.get('www-authenticate')).toContain('Bearer');
      }
      const basic = await fetch(`${api}${route}`, {
        headers: { authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}` },
      });
      expect(basic.status).toBe(401);
    }
    expect((await get(`${api}/healthz`, null)).body).toEqual({ ok: true });
  });

  it('denials by guard over time: every deny counted once under its guard and in its time bucket, per session too', async () => {
    const denies = made.filter((m) => m.verdict === 'deny');
    expect(denies.length).toBeGreaterThan(3);
    const check = (body: any, want: typeof made, since?: number) => {
      expect(body.totalCount).toBe(want.length);
      expect(body.from).toBe(since ?? Math.min(...want.map((m) => m.timestamp)));
      const counted = new Map<string, number[]>();
      for (const m of want) {
        const counts = counted.get(m.guard ?? '(none)') ?? new Array(body.starts.length).fill(0);
        counts[Math.floor((m.timestamp - body.from) / body.bucketSeconds)] += 1;
        counted.set(m.guard ?? '(none)', counts);
      }
      expect(Object.fromEntries(body.guards.map((g: any) => [g.guard, g.counts]))).toEqual(Object.fromEntries(counted));
      for (const g of body.guards) expect(g.total).toBe(g.counts.reduce((a: number, b: number) => a + b, 0));
      body.starts.forEach((s: number, i: number) => expect(s).toBe(body.from + i * body.bucketSeconds));
    };
    const all = await get(`${api}/v1/denials?buckets=7`);
    expect(all.status).toBe(200);
    expect(all.body.starts.length).toBeLessThanOrEqual(7);
    check(all.body, denies);
    check(
      (await get(`${api}/v1/denials?sessionId=sess-2&buckets=1000`)).body,
      denies.filter((m) => m.session === 'sess-2'),
    );
    const since = made[20]!.timestamp;
    check(
      (await get(`${api}/v1/denials?since=${since}`)).body,
      denies.filter((m) => m.timestamp >= since),
      since,
    );
    const none = await get(`${api}/v1/denials?sessionId=nobody`);
    expect(none.body).toMatchObject({ totalCount: 0, guards: [] });
    for (const bad of [
      'buckets=0',
      'buckets=1001',
      'buckets=x',
      'since=yesterday',
      'limit=5',
      'sessionId=a&sessionId=b',
    ]) {
      const r = await get(`${api}/v1/denials?${bad}`);
      expect(r.status, bad).toBe(400);
      expect(r.body.error.code, bad).toBe('CHIO-API-BAD-REQUEST');
    }
    expect((await get(`${api}/v1/denials`, null)).status).toBe(401);
  });

  it("the explorer's files at / and /explorer/: no token needed, no data in them, a strict CSP, nothing else reachable", async () => {
    const page = await fetch(`${api}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    const html = await page.text();
    expect(html).toContain('/explorer/main.js');
    expect(html).not.toMatch(/https?:\/\//); // nothing from another origin
    expect(html).not.toContain(made[0]!.id);
    const script = await fetch(`${api}/explorer/verify.js`);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect((await fetch(`${api}/explorer/vendor/uPlot.iife.min.js`)).status).toBe(200);
    for (const path of [
      '/explorer/../package.json',
      '/explorer/%2e%2e/%2e%2e/package.json',
      '/explorer/nope.js',
      '/explorer/verify.js.map',
      '/index.html',
    ]) {
      const r = await fetch(`${api}${path}`);
      expect(r.status, path).not.toBe(200);
    }
    expect((await fetch(`${api}/`, { method: 'POST' })).status).toBe(405);
  });

  it('writes are refused (405) and a run of requests leaves the ledger file byte for byte unchanged', async () => {
    const before = readFileSync(db);
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const r = await fetch(`${api}/v1/receipts/query`, { method, headers: { authorization: `Bearer ${TOKEN}` } });
      expect(r.status, method).toBe(405);
      expect(r.headers.get('allow')).toBe('GET, HEAD');
    }
    for (let i = 0; i < 20; i++) {
      await get(`${api}/v1/receipts/query?limit=${1 + i}`);
      await get(`${api}/v1/sessions`);
      await get(`${api}/v1/receipts/${made[i]!.id}`);
    }
    expect(readFileSync(db).equals(before)).toBe(true);
  });

  it('a receipt whose stored body was altered in the file is served with a failing verdict, not as valid', async () => {
    const copy = join(dir, 'tampered.sqlite');
    copyFileSync(db, copy);
    const raw = new Database(copy);
    // The operator edits a body past the append-only triggers (dropping them): the dishonest-operator case.
    raw.exec('DROP TRIGGER IF EXISTS ledger_entries_no_update');
    const triggers = raw
      .prepare("SELECT name FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = 'ledger_entries'")
      .all() as Array<{ name: string }>;
    for (const t of triggers) raw.exec(`DROP TRIGGER ${t.name}`);
    const target = made[3]!;
    raw
      .prepare('UPDATE ledger_entries SET body = replace(body, \'"n3"\', \'"n4"\') WHERE receipt_id = ?')
      .run(target.id);
    raw.close();
    const tampered = await serve(copy, ['--service-token', TOKEN]);
    const r = await get(`${tampered.url}/v1/receipts/${target.id}`);
    expect(r.status).toBe(200);
    expect(r.body.receipt.action.parameters.name).toBe('n4');
    expect(r.body.verification.ok).toBe(false);
    expect(r.body.verification.signature).not.toBe('ok');
    expect(r.body.verification.entryHash).toMatch(/^stored [0-9a-f]{64}, position and body give [0-9a-f]{64}$/);
  });

  it("certificates signed with the service's key (501 without one, 404 for no such session); checkpoints and proofs once a checkpoint exists", async () => {
    const seed = join(dir, 'kernel.seed');
    writeFileSync(seed, toHex(new Uint8Array(32).fill(3)));
    const kernelKey = signerFromSeed(new Uint8Array(32).fill(3)).publicKeyHex;
    const unsigned = await get(`${api}/v1/sessions/sess-0/certificate`);
    expect(unsigned.status).toBe(501);
    expect(unsigned.body.error.code).toBe('CHIO-CLI-CERT-SIGNER-REQUIRED');

    const signed = await serve(db, ['--service-token', TOKEN, '--kernel-seed-file', seed]);
    const cert = await get(`${signed.url}/v1/sessions/sess-1/certificate`);
    expect(cert.status).toBe(200);
    expect(cert.body.signer_key).toBe(kernelKey);
    expect(verifyCertificate(cert.body, { trustedKernelKeys: new Set([kernelKey]) })).toMatchObject({ passed: true });
    expect(cert.body.body.receipt_count).toBe(made.filter((m) => m.session === 'sess-1').length);
    const none = await get(`${signed.url}/v1/sessions/sess-9/certificate`);
    expect(none.status).toBe(404);
    expect(none.body.error.code).toBe('CHIO-CLI-SESSION-EMPTY');

    // No checkpoint yet: 404, and no evidence bundle (409: nothing covers the session). One made by
    // the CLI (a writer), then served, proved against, and bundled.
    const before = await get(`${signed.url}/v1/ledger/checkpoint`);
    expect(before.status).toBe(404);
    const early = await get(`${signed.url}/v1/sessions/sess-2/evidence`);
    expect(early.status).toBe(409);
    expect(early.body.error.code).toBe('CHIO-EVIDENCE-NO-CHECKPOINT');
    const made1 = chio(['ledger', 'checkpoint', '--receipt-db', db, '--kernel-seed-file', seed]);
    expect(made1.status, made1.stderr).toBe(0);
    const ckpt = await get(`${signed.url}/v1/ledger/checkpoint`);
    expect(ckpt.status).toBe(200);
    expect(ckpt.body).toMatchObject({ treeSize: 45, signerKey: kernelKey });
    const proof = await get(`${signed.url}/v1/receipts/${made[20]!.id}/proof`);
    expect(proof.status).toBe(200);
    expect(verifyProof(proof.body, [ckpt.body.note], [kernelKey])).toMatchObject({ ok: true });
    expect((await get(`${signed.url}/v1/receipts/${'0'.repeat(64)}/proof`)).status).toBe(404);
    const bundle = await get(`${signed.url}/v1/sessions/sess-2/evidence`);
    expect(bundle.status).toBe(200);
    expect(bundle.body.entries).toHaveLength(15);
    expect(verifyEvidenceBundle(bundle.body, { trustedKernelKeys: new Set([kernelKey]) })).toMatchObject({ ok: true });
    expect((await get(`${signed.url}/v1/sessions/sess-9/evidence`)).status).toBe(404);
  });

  it('refuses to start without a token, with one under 8 characters, or with both token flags (exit 2, CHIO-CLI-SERVICE-OPTIONS); a demo-length token starts with a warning', async () => {
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, `${TOKEN}\n`);
    for (const args of [
      [],
      ['--service-token', 'short'],
      ['--service-token', TOKEN, '--service-token-file', tokenFile],
    ]) {
      const child = spawn(
        process.execPath,
        [CHIO_BIN, 'serve', '--listen', '127.0.0.1:0', '--receipt-db', db, ...args],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let err = '';
      child.stderr.on('data', (d) => (err += d));
      const code = await new Promise((r) => child.once('exit', r));
      expect(code, args.join(' ')).toBe(2);
      expect(err).toContain('CHIO-CLI-SERVICE-OPTIONS');
    }
    const fromFile = await serve(db, ['--service-token-file', tokenFile]);
    expect((await get(`${fromFile.url}/v1/ledger/head`)).status).toBe(200);
    // The documentation's demo token is accepted, with a warning.
    const demo = await serve(db, ['--service-token', 'demo-token']);
    expect(demo.stderr()).toContain('warning: the service token is shorter than 16 characters');
    expect((await get(`${demo.url}/v1/ledger/head`, 'demo-token')).status).toBe(200);
  });
});
