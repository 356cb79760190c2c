// `chio mcp serve-http` under load and abuse, as a real child process in front of a real (small) upstream:
// memory stays flat over rejected requests and session churn, idle sessions expire, the session cap holds,
// and none of it disturbs the ledger or the sessions still working.
import { spawn } from 'node:child_process';
import { Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLedger, verifyChain } from '../../src/ledger/index.js';
import { chio, errorCode } from '../helpers/cli.js';
import {
  deleteSession,
  initializeBody,
  MB,
  messages,
  openSession,
  pool,
  post,
  PROTOCOL,
  rssBytes,
  SLOW_MCP_SERVER,
  sleep,
  startHttpEdge,
} from '../helpers/http-edge.js';
import type { HttpReply, RunningEdge } from '../helpers/http-edge.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir();
let dbs = 0;
/**
 * A fresh ledger and an edge in front of the slow upstream (each describe stops its own in
 * afterAll): over stdio (a process per edge session), or with `upstreamUrl` over Streamable HTTP
 * (an upstream session per edge session, cheap enough for thousands of them).
 */
async function edgeWith(
  flags: string[],
  nodeFlags: string[] = [],
  upstreamUrl?: string,
): Promise<{ edge: RunningEdge; db: string }> {
  const db = join(dir, `limits-${++dbs}.sqlite`);
  const upstream =
    upstreamUrl === undefined ? ['--', process.execPath, SLOW_MCP_SERVER] : ['--upstream-url', upstreamUrl];
  const edge = await startHttpEdge(['--receipt-db', db, '--server-id', 'slow', ...flags, ...upstream], nodeFlags);
  return { edge, db };
}

/** The slow upstream over Streamable HTTP, as a child process; resolves with its URL and a stop function. */
async function httpUpstream(): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, [SLOW_MCP_SERVER, '--http'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening (\S+)/.exec(out);
      if (m !== null) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the upstream exited ${code}`)));
  });
  return { url, stop: () => void child.kill() };
}

const NOT_INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' });
const call = (id: number, name: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});
const ping = (id = 99) => ({ jsonrpc: '2.0', id, method: 'ping' });
const rpcError = (r: HttpReply) => messages(r)[0]?.error as { code: number; message: string } | undefined;

/** Waits (without keeping any of them alive) until every session in `ids` is gone, i.e. answers 404. */
async function untilExpired(edge: RunningEdge, ids: string[], idleMs: number): Promise<void> {
  let left = ids;
  for (let round = 0; left.length > 0; round++) {
    if (round === 40) throw new Error(`${left.length} sessions never expired`);
    // A probe that finds a session alive restarts its clock; waiting longer than the timeout after it
    // lets the next probe see it gone. A probe of an expired session touches nothing.
    await sleep(idleMs * 1.5);
    const statuses = await pool(left.length, 8, (i) => post(edge, ping(), left[i]).then((r) => r.status));
    left = left.filter((_, i) => statuses[i] !== 404);
  }
}

function ledgerState(db: string): { verdict: ReturnType<typeof verifyChain>; sessions: string[]; pending: number } {
  const ledger = openLedger(db, { readonly: true });
  try {
    return {
      verdict: verifyChain(ledger),
      sessions: (
        ledger.db.prepare('SELECT DISTINCT session_id FROM ledger_entries ORDER BY seq').all() as Array<{
          session_id: string;
        }>
      ).map((r) => r.session_id),
      pending: (ledger.db.prepare('SELECT count(*) AS n FROM pending_calls').get() as { n: number }).n,
    };
  } finally {
    ledger.close();
  }
}

describe('memory under rejected requests and session churn', () => {
  const IDLE_S = 1;
  const ROUND = { rejected: 7_500, deleted: 250, idle: 125 };
  const ROUNDS = 4;
  const BOUND_MB = 30;
  // V8 lets garbage pile up far past the live heap before it collects (RSS saw-tooths by tens of MB
  // with nothing leaked). A 64 MB old space makes it collect as it goes, so RSS follows what is
  // live; live memory here is ~25 MB, and a leak either shows as growth or ends the edge with
  // "JavaScript heap out of memory". The young generation is pinned as well: Node 24's V8 grows its
  // semi-spaces with the allocation rate, which over twelve rounds showed as RSS 197 → 263 MB in the
  // first five and flat after (a working size, not a leak); with 2 MB semi-spaces the same twelve
  // rounds went 138 → 152 MB, so what remains measured is what the edge keeps.
  const HEAP = ['--max-old-space-size=64', '--max-semi-space-size=2'];
  let edge: RunningEdge;
  let db: string;
  let upstream: { url: string; stop: () => void } | undefined;
  beforeAll(async () => {
    upstream = await httpUpstream();
    ({ edge, db } = await edgeWith(
      ['--session-idle-timeout', String(IDLE_S), '--max-sessions', '1000'],
      HEAP,
      upstream.url,
    ));
  });
  afterAll(async () => {
    await edge?.stop();
    upstream?.stop();
  });

  /** One round: sessions left to idle-expire, rejected session-less POSTs, sessions opened and DELETEd. */
  async function round(): Promise<void> {
    try {
      const idle = await pool(ROUND.idle, 8, () => openSession(edge));
      const rejected = await pool(ROUND.rejected, 8, () => post(edge, NOT_INITIALIZE).then((r) => r.status));
      expect(rejected.filter((s) => s !== 400)).toEqual([]);
      const deleted = await pool(ROUND.deleted, 8, async () => {
        const id = await openSession(edge, false);
        return (await deleteSession(edge, id)).status;
      });
      expect(deleted.filter((s) => s !== 200)).toEqual([]);
      await untilExpired(edge, idle, IDLE_S * 1000);
    } catch (e) {
      if (edge.child.exitCode !== null)
        throw new Error(`the edge died (exit ${edge.child.exitCode}): ${edge.stderr().slice(-600)}`);
      throw e;
    }
  }

  it(`RSS grows by less than ${BOUND_MB} MB over ${(ROUNDS * ROUND.rejected).toLocaleString('en')} rejected POSTs and ${(ROUNDS * (ROUND.deleted + ROUND.idle)).toLocaleString('en')} sessions opened and closed (DELETE or idle expiry)`, async () => {
    await round(); // warm-up: JIT, heap and socket pools reach their working size
    const baseline = rssBytes(edge.pid);
    const samples: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      await round();
      samples.push(rssBytes(edge.pid));
    }
    const growth = (Math.max(...samples) - baseline) / MB;
    expect(
      growth,
      `baseline ${(baseline / MB).toFixed(1)} MB, after each round ${samples.map((s) => (s / MB).toFixed(1)).join(', ')} MB`,
    ).toBeLessThan(BOUND_MB);
    // Still serving, and the ledger untouched by all of it (no tool was called).
    const id = await openSession(edge);
    expect(messages(await post(edge, call(1, 'echo', { text: 'after the storm' }), id))[0]?.result?.content).toEqual([
      { type: 'text', text: 'after the storm' },
    ]);
    const state = ledgerState(db);
    expect(state.verdict).toMatchObject({ ok: true, entries: 1, sessions: 1 });
    expect(state.sessions).toEqual([id]);
  }, 120_000);
});

describe('a session-less POST that is not an initialize', () => {
  let edge: RunningEdge;
  beforeAll(async () => {
    ({ edge } = await edgeWith(['--max-sessions', '1']));
  });
  afterAll(() => edge?.stop());

  const cases: Array<[string, string]> = [
    ['a request other than initialize', NOT_INITIALIZE],
    ['a notification', JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })],
    ['a response', JSON.stringify({ jsonrpc: '2.0', id: 1, result: {} })],
    ['an initialize without params', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize' })],
    [
      'an initialize without an id',
      JSON.stringify({ jsonrpc: '2.0', method: 'initialize', params: JSON.parse(initializeBody()).params }),
    ],
    ['a JSON value that is no message', '"initialize"'],
  ];
  for (const [name, body] of cases) {
    it(`${name} → HTTP 400, and it holds no place under the cap`, async () => {
      const r = await post(edge, body);
      expect(r.status).toBe(400);
      expect(r.headers['mcp-session-id']).toBeUndefined();
      expect(rpcError(r)?.code).toBe(-32600);
      // The cap is one session: if the refused POST had left a session behind, this initialize would get 503.
      const id = await openSession(edge);
      expect((await deleteSession(edge, id)).status).toBe(200);
    });
  }
});

describe('a failed or abandoned initialize releases what it took', () => {
  let edge: RunningEdge;
  beforeAll(async () => {
    ({ edge } = await edgeWith(['--max-sessions', '1']));
  });
  afterAll(() => edge?.stop());
  const freeSlot = async () => {
    const id = await openSession(edge);
    expect((await deleteSession(edge, id)).status).toBe(200);
  };

  it('an initialize the transport refuses (no text/event-stream in Accept) → 406, no session', async () => {
    const r = await edge.send(
      'POST',
      { 'content-type': 'application/json', accept: 'application/json' },
      initializeBody(),
    );
    expect(r.status).toBe(406);
    expect(r.headers['mcp-session-id']).toBeUndefined();
    await freeSlot();
  });

  it('an initialize the session refuses (empty protocolVersion) → its JSON-RPC error, and the id it was given is already unknown', async () => {
    const bad = JSON.parse(initializeBody(5));
    bad.params.protocolVersion = '';
    const r = await post(edge, bad);
    expect(rpcError(r)?.code).toBe(-32602);
    const id = r.headers['mcp-session-id'] as string;
    expect((await post(edge, ping(), id)).status).toBe(404);
    await freeSlot();
  });

  it('an initialize whose client hangs up halfway through the body → nothing is left behind', async () => {
    const body = initializeBody();
    const socket = new Socket();
    await new Promise<void>((resolve) => socket.connect(Number(edge.url.port), edge.url.hostname, resolve));
    socket.write(
      `POST /mcp HTTP/1.1\r\nhost: ${edge.url.host}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: ${body.length}\r\n\r\n${body.slice(0, 40)}`,
    );
    socket.destroy();
    await freeSlot();
  });
});

describe('the session cap (--max-sessions 3)', () => {
  let edge: RunningEdge;
  let db: string;
  beforeAll(async () => {
    ({ edge, db } = await edgeWith(['--max-sessions', '3', '--session-idle-timeout', '600']));
  });
  afterAll(() => edge?.stop());

  it('the 4th initialize gets HTTP 503 with a JSON-RPC error and Retry-After; the 3 sessions keep working; after a DELETE an initialize succeeds', async () => {
    const ids = await Promise.all([openSession(edge), openSession(edge), openSession(edge)]);
    const refused = await post(edge, initializeBody(42));
    expect(refused.status).toBe(503);
    expect(refused.headers['mcp-session-id']).toBeUndefined();
    expect(JSON.parse(refused.body)).toMatchObject({ jsonrpc: '2.0', id: 42, error: { code: -32003 } });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // A flood at the cap changes nothing for the sessions already there.
    const flood = await pool(200, 8, () => post(edge, initializeBody()).then((r) => r.status));
    expect(new Set(flood)).toEqual(new Set([503]));
    const answers = await Promise.all(
      ids.map((id, i) => post(edge, call(i + 1, 'echo', { text: `session ${i}` }), id)),
    );
    expect(answers.map((a) => messages(a)[0]?.result?.content[0].text)).toEqual([
      'session 0',
      'session 1',
      'session 2',
    ]);

    expect((await deleteSession(edge, ids[1]!)).status).toBe(200);
    const fourth = await openSession(edge);
    expect(await post(edge, initializeBody()).then((r) => r.status)).toBe(503);
    expect((await post(edge, ping(), fourth)).status).toBe(200);

    const state = ledgerState(db);
    expect(state.verdict).toMatchObject({ ok: true, entries: 3, sessions: 3 });
    expect(new Set(state.sessions)).toEqual(new Set(ids));
  });
});

describe('idle expiry (--session-idle-timeout 1)', () => {
  let edge: RunningEdge;
  let db: string;
  beforeAll(async () => {
    ({ edge, db } = await edgeWith(['--session-idle-timeout', '1']));
  });
  afterAll(() => edge?.stop());

  it('an idle session is ended: POST, GET and DELETE with its id get 404; its receipts are committed and the chain verifies', async () => {
    const id = await openSession(edge);
    const r = await post(edge, call(1, 'echo', { text: 'before idling' }), id);
    const receipt = messages(r)[0]?.result?._meta['chio/receipt'];
    expect(receipt).toMatchObject({ decision: 'allow' });
    await untilExpired(edge, [id], 1000);
    const after = await post(edge, ping(), id);
    expect(after.status).toBe(404);
    expect(rpcError(after)?.code).toBe(-32001);
    expect(
      (await edge.send('GET', { accept: 'text/event-stream', 'mcp-session-id': id, 'mcp-protocol-version': PROTOCOL }))
        .status,
    ).toBe(404);
    expect((await deleteSession(edge, id)).status).toBe(404);
    const state = ledgerState(db);
    expect(state.verdict).toMatchObject({ ok: true });
    expect(state.sessions).toContain(id);
    expect(state.pending).toBe(0);
  });

  it('an open GET stream does not keep a session alive: the stream ends when the session expires', async () => {
    const id = await openSession(edge);
    // edge.send resolves only when the response ends: for an SSE stream, when the edge closes it.
    const stream = await edge.send('GET', {
      accept: 'text/event-stream',
      'mcp-session-id': id,
      'mcp-protocol-version': PROTOCOL,
    });
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toContain('text/event-stream');
    expect((await post(edge, ping(), id)).status).toBe(404);
  });

  it('a tools/call in flight keeps its session alive past the timeout; the session expires after it', async () => {
    const id = await openSession(edge);
    const r = await post(edge, call(1, 'wait', { ms: 2500 }), id);
    expect(messages(r).at(-1)).toMatchObject({
      id: 1,
      result: { content: [{ type: 'text', text: 'waited 2500 ms' }], _meta: { 'chio/receipt': { decision: 'allow' } } },
    });
    await untilExpired(edge, [id], 1000);
    expect(ledgerState(db).verdict).toMatchObject({ ok: true });
  });

  it('a client that hangs up during a tools/call (no stream to resume) does not take the edge down; the receipt is committed', async () => {
    const v = '2025-06-18'; // before priming events: the answer has nowhere to go
    const init = await edge.send(
      'POST',
      { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: v, capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
      }),
    );
    const id = init.headers['mcp-session-id'] as string;
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': id,
      'mcp-protocol-version': v,
    };
    expect(
      (await edge.send('POST', headers, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })))
        .status,
    ).toBe(202);
    const before = ledgerState(db).verdict;
    const body = JSON.stringify(call(2, 'wait', { ms: 300 }));
    const socket = new Socket();
    await new Promise<void>((resolve) => socket.connect(Number(edge.url.port), edge.url.hostname, resolve));
    const headerText = Object.entries({ ...headers, host: edge.url.host, 'content-length': String(body.length) })
      .map(([k, val]) => `${k}: ${val}\r\n`)
      .join('');
    // Hang up once the edge has started answering (its SSE headers), i.e. while the call runs.
    await new Promise<void>((resolve) => {
      socket.once('data', () => resolve());
      socket.write(`POST /mcp HTTP/1.1\r\n${headerText}\r\n${body}`);
    });
    socket.destroy();
    // The call finishes without anyone to answer; then the edge is still here and the receipt is in.
    let after = ledgerState(db).verdict;
    for (let i = 0; i < 50 && after.ok && before.ok && after.entries === before.entries; i++) {
      await sleep(100);
      after = ledgerState(db).verdict;
    }
    expect(after).toMatchObject({ ok: true, entries: (before as { entries: number }).entries + 1 });
    expect(edge.child.exitCode).toBeNull();
    expect((await post(edge, ping(), await openSession(edge))).status).toBe(200);
  });
});

describe('chio mcp serve-http refuses session limits out of range', () => {
  for (const flags of [
    ['--max-sessions', '0'],
    ['--max-sessions', '2.5'],
    ['--session-idle-timeout', '0'],
    ['--session-idle-timeout', '-5'],
    ['--session-idle-timeout', '3000000'],
  ]) {
    it(`${flags.join(' ')} → exit 2, CHIO-MCP-HTTP-OPTIONS, before any upstream starts`, () => {
      const r = chio([
        'mcp',
        'serve-http',
        '--listen',
        '127.0.0.1:0',
        '--receipt-db',
        join(dir, 'never.sqlite'),
        ...flags,
        '--',
        process.execPath,
        '-e',
        'process.exit(9)',
      ]);
      expect(r.status).toBe(2);
      expect(errorCode(r.stderr)).toBe('CHIO-MCP-HTTP-OPTIONS');
      expect(r.stderr).not.toContain('generated kernel key');
    });
  }
});
