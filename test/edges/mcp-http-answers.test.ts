// How `chio mcp serve-http` answers a POSTed request, as a real child process in front of a real
// upstream: one JSON object when the response is all there is and it comes quickly; an SSE stream
// (with its priming event, so a dropped connection can be resumed) when anything else goes with
// the request or the call outlasts the hold. Either way the receipt is committed before the answer,
// and requests the transport refuses are refused as before, with nothing run.
import { request } from 'node:http';
import { Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLedger, verifyChain } from '../../src/ledger/index.js';
import { messages, openSession, post, PROTOCOL, SLOW_MCP_SERVER, sleep, startHttpEdge } from '../helpers/http-edge.js';
import type { RunningEdge } from '../helpers/http-edge.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir();
const db = join(dir, 'answers.sqlite');
let edge: RunningEdge;

const call = (id: number, name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args, ...(meta === undefined ? {} : { _meta: meta }) },
});

/** Entries in the ledger, and whether its chain verifies. */
function entries(): { n: number; ok: boolean } {
  const ledger = openLedger(db, { readonly: true });
  try {
    const verdict = verifyChain(ledger);
    return { n: verdict.ok ? verdict.entries : -1, ok: verdict.ok };
  } finally {
    ledger.close();
  }
}

const headersFor = (session: string) => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-session-id': session,
  'mcp-protocol-version': PROTOCOL,
});

/** A raw socket to the edge and the text of a POST of `message` in `session`, to send on it when the test is ready. */
async function rawPost(session: string, message: object): Promise<{ socket: Socket; text: string }> {
  const body = JSON.stringify(message);
  const socket = new Socket();
  await new Promise<void>((resolve) => socket.connect(Number(edge.url.port), edge.url.hostname, resolve));
  const head = Object.entries({ ...headersFor(session), host: edge.url.host, 'content-length': String(body.length) })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  return { socket, text: `POST /mcp HTTP/1.1\r\n${head}\r\n${body}` };
}

/** Opens a GET stream and resolves with its text once `until` matches it (then hangs up). */
function readStream(headers: Record<string, string>, until: RegExp, timeoutMs = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: edge.url.hostname, port: edge.url.port, path: edge.url.pathname, method: 'GET', headers },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => {
          text += c.toString('utf8');
          if (until.test(text)) {
            req.destroy();
            resolve(text);
          }
        });
      },
    );
    req.on('error', (e) => (e.message === 'socket hang up' ? undefined : reject(e)));
    setTimeout(() => reject(new Error('the stream never carried the answer')), timeoutMs).unref();
    req.end();
  });
}

beforeAll(async () => {
  edge = await startHttpEdge(['--receipt-db', db, '--server-id', 'slow', '--', process.execPath, SLOW_MCP_SERVER]);
});
afterAll(async () => {
  await edge?.stop();
});

describe('the answer to a POSTed request', () => {
  it('a quick tools/call gets one JSON object: the governed result and its receipt, already in the ledger', async () => {
    const session = await openSession(edge);
    // A call that outlasts the hold (the first of a fresh edge while its code warms up, or one
    // stalled on a busy machine) gets a stream instead; so up to five calls, and one must be quick.
    let found = false;
    for (let id = 1; id <= 5 && !found; id++) {
      const before = entries();
      const reply = await post(edge, call(id, 'echo', { text: `quick ${id}` }), session);
      expect(reply.status).toBe(200);
      if (reply.headers['content-type'] !== 'application/json') continue;
      found = true;
      expect(reply.headers['mcp-session-id']).toBe(session);
      expect(JSON.parse(reply.body)).toMatchObject({
        jsonrpc: '2.0',
        id,
        result: {
          content: [{ type: 'text', text: `quick ${id}` }],
          _meta: { 'chio/receipt': { decision: 'allow' } },
        },
      });
      // Read at once: the receipt was committed before the answer left.
      expect(entries()).toEqual({ n: before.n + 1, ok: true });
    }
    expect(found).toBe(true);
  });

  it('a call whose upstream sends progress gets an SSE stream: the progress first, then the result', async () => {
    const session = await openSession(edge);
    const reply = await post(edge, call(3, 'wait', { ms: 0 }, { progressToken: 'p-3' }), session);
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toContain('text/event-stream');
    const sent = messages(reply);
    expect(sent.map((m) => m.method ?? `result ${m.id}`)).toEqual(['notifications/progress', 'result 3']);
    expect(sent[0]).toMatchObject({ params: { progressToken: 'p-3', progress: 0 } });
    expect(sent[1]).toMatchObject({ result: { content: [{ type: 'text', text: 'waited 0 ms' }] } });
  });

  it('a call that outlasts the hold gets an SSE stream with a priming event; dropped, it is resumed with Last-Event-ID and the answer arrives', async () => {
    const session = await openSession(edge);
    const { socket, text: requestText } = await rawPost(session, call(4, 'wait', { ms: 1500 }));
    // The stream opens once the hold has passed: its headers and the priming event's id, then the
    // client loses the connection while the call is still running.
    const opened = await new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (c: Buffer) => {
        text += c.toString('utf8');
        if (/\nid: \S+\n/.test(text)) resolve(text);
      });
      socket.write(requestText);
    });
    socket.destroy();
    expect(opened).toMatch(/content-type: text\/event-stream/i);
    const primed = /\nid: (\S+)\n/.exec(opened)![1]!;
    const resumed = await readStream(
      {
        accept: 'text/event-stream',
        'mcp-session-id': session,
        'mcp-protocol-version': PROTOCOL,
        'last-event-id': primed,
      },
      /waited 1500 ms/,
    );
    const answer = resumed
      .split('\n')
      .filter((l) => l.startsWith('data: {'))
      .map((l) => JSON.parse(l.slice(6)));
    expect(answer).toContainEqual(
      expect.objectContaining({
        id: 4,
        result: expect.objectContaining({ content: [{ type: 'text', text: 'waited 1500 ms' }] }),
      }),
    );
  });

  it('requests the transport refuses are refused as before (Accept without SSE → 406, an unknown protocol version → 400, a body not typed JSON → 415), and nothing runs', async () => {
    const session = await openSession(edge);
    const before = entries();
    const body = JSON.stringify(call(5, 'echo', { text: 'never' }));
    const noSse = await edge.send('POST', { ...headersFor(session), accept: 'application/json' }, body);
    expect(noSse.status).toBe(406);
    const oldVersion = await edge.send('POST', { ...headersFor(session), 'mcp-protocol-version': '1999-01-01' }, body);
    expect(oldVersion.status).toBe(400);
    // Content-Type as the transport parses it (a media type, not a substring): a parameter that
    // mentions JSON, a longer subtype and a second Content-Type line are all refused before anything runs.
    for (const contentType of ['text/plain', 'text/plain; a=application/json', 'application/jsonp']) {
      const refused = await edge.send('POST', { ...headersFor(session), 'content-type': contentType }, body);
      expect(refused.status, contentType).toBe(415);
    }
    const { socket, text } = await rawPost(session, call(5, 'echo', { text: 'never' }));
    const twoLines = await new Promise<string>((resolve) => {
      socket.once('data', (c: Buffer) => resolve(c.toString('utf8')));
      socket.write(
        text.replace(
          'content-type: application/json\r\n',
          'content-type: application/json\r\ncontent-type: text/plain\r\n',
        ),
      );
    });
    socket.destroy();
    expect(twoLines).toMatch(/^HTTP\/1\.1 415 /);
    await sleep(300);
    expect(entries()).toEqual(before);
  });

  it('a session ended (DELETE) while an answer is held: the call that ran still gets its answer as JSON, never a 404 that would make a client run it again', async () => {
    const session = await openSession(edge);
    const before = entries();
    const answer = post(edge, call(8, 'wait', { ms: 400 }), session);
    await sleep(30);
    const ended = await edge.send('DELETE', { 'mcp-session-id': session, 'mcp-protocol-version': PROTOCOL });
    expect(ended.status).toBe(200);
    const reply = await answer;
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('application/json');
    expect(JSON.parse(reply.body)).toMatchObject({
      id: 8,
      result: { content: [{ type: 'text', text: 'waited 400 ms' }], _meta: { 'chio/receipt': { decision: 'allow' } } },
    });
    expect(entries()).toEqual({ n: before.n + 1, ok: true });
    expect((await post(edge, call(9, 'echo', { text: 'gone' }), session)).status).toBe(404);
  });

  it('a client that hangs up while its answer is held: the call still ends with its receipt, and the edge goes on serving', async () => {
    const session = await openSession(edge);
    const before = entries();
    const { socket, text } = await rawPost(session, call(6, 'wait', { ms: 40 }));
    await new Promise<void>((resolve) => socket.write(text, () => resolve()));
    await sleep(10);
    socket.destroy();
    let after = entries();
    for (let i = 0; i < 50 && after.n === before.n; i++) {
      await sleep(100);
      after = entries();
    }
    expect(after).toEqual({ n: before.n + 1, ok: true });
    expect(edge.child.exitCode).toBeNull();
    const next = await post(edge, call(7, 'echo', { text: 'still here' }), session);
    expect(messages(next)[0]).toMatchObject({ id: 7, result: { content: [{ type: 'text', text: 'still here' }] } });
  });
});
