// Both HTTP servers Chio runs (`chio serve`, `chio mcp serve-http`), as real processes, keep an idle
// kept-alive connection open past the 4–5 s at which Node's own defaults close it, so a client that
// reuses the connection under load is answered instead of finding it closed ("other side closed");
// and still exit within seconds of SIGTERM whatever their clients hold open (a silent half-request,
// a kept-alive connection, a call in flight).
import type { ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import type { ClientRequest } from 'node:http';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { Kernel } from '../../src/kernel/index.js';
import { openLedger, verifyChain } from '../../src/ledger/index.js';
import { childProcesses } from '../helpers/children.js';
import { CHIO_BIN } from '../helpers/cli.js';
import { openSession, post, SLOW_MCP_SERVER, sleep, startHttpEdge } from '../helpers/http-edge.js';
import { tempDir } from '../helpers/tmp.js';

const children = childProcesses();

/** One request on `agent`; resolves with the status and whether it went out on a reused socket. */
function send(agent: Agent, url: URL, method: string): Promise<{ status: number; reused: boolean }> {
  return new Promise((resolve, reject) => {
    const req: ClientRequest = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method,
        agent,
        headers: { 'content-type': 'application/json' },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(method === 'POST' ? '{}' : undefined);
  });
}

/** A request, 6 s of idleness on the same kept-alive socket, then a second request on it. */
async function idleThenReuse(url: URL, method: string): Promise<Array<{ status: number; reused: boolean }>> {
  // The client's own idle timeout must be longer than the wait, or it would drop the socket itself.
  const agent = new Agent({ keepAlive: true, maxSockets: 1, timeout: 60_000 });
  try {
    const first = await send(agent, url, method);
    await sleep(6_000);
    return [first, await send(agent, url, method)];
  } finally {
    agent.destroy();
  }
}

/** A ledger the real kernel created, served by `chio serve` as a real process (its token is never sent: 401s). */
async function auditApi(db: string): Promise<{ url: string; child: ChildProcess }> {
  await Kernel.open({ ledgerPath: db, seed: new Uint8Array(32).fill(9), checkpoints: false }).close();
  const args = [
    'serve',
    '--listen',
    '127.0.0.1:0',
    '--receipt-db',
    db,
    '--service-token',
    'keep-alive-token-0123456789',
  ];
  const started = await children.start([CHIO_BIN, ...args], /audit API at (\S+)/);
  return { url: started.match[1]!, child: started.child };
}

describe('HTTP servers keep idle connections open for reuse', () => {
  const dir = tempDir();

  it('chio serve and chio mcp serve-http answer on a connection reused after 6 s idle', async () => {
    const api = await auditApi(join(dir, 'keep-alive.sqlite'));
    const edge = await startHttpEdge([
      '--receipt-db',
      join(dir, 'edge.sqlite'),
      '--',
      process.execPath,
      SLOW_MCP_SERVER,
    ]);
    onTestFinished(() => edge.stop());
    const [onApi, onEdge] = await Promise.all([
      idleThenReuse(new URL('v1/ledger/head', api.url), 'GET'),
      idleThenReuse(edge.url, 'POST'),
    ]);
    // Without the bearer token the API answers 401, both times, on one socket.
    expect(onApi).toEqual([
      { status: 401, reused: false },
      { status: 401, reused: true },
    ]);
    // A POST without a session id and without an initialize body is refused (400), both times, on one socket.
    expect(onEdge).toEqual([
      { status: 400, reused: false },
      { status: 400, reused: true },
    ]);
  }, 30_000);
});

/** A client that connects and sends half a request's headers, then nothing (a slowloris client). */
function silentClient(url: URL): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => {
      socket.write(`GET ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\n`);
      resolve(socket);
    });
    socket.on('error', () => {}); // closed by the server at shutdown: expected
    socket.once('error', reject);
  });
}

/** Sends SIGTERM and resolves with the exit code and how long the process took to exit. */
async function terminate(child: ChildProcess): Promise<{ code: number | null; ms: number }> {
  const started = Date.now();
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  child.kill('SIGTERM');
  return { code: await exited, ms: Date.now() - started };
}

describe('HTTP servers shut down promptly whatever their clients do', () => {
  const dir = tempDir();

  it('chio serve exits within seconds of SIGTERM with a silent half-request and an idle kept-alive connection open', async () => {
    const api = await auditApi(join(dir, 'shutdown.sqlite'));
    const url = new URL('v1/ledger/head', api.url);
    const silent = await silentClient(url);
    const agent = new Agent({ keepAlive: true, maxSockets: 1, timeout: 60_000 });
    expect((await send(agent, url, 'GET')).status).toBe(401);
    const { code, ms } = await terminate(api.child);
    agent.destroy();
    silent.destroy();
    expect(code).toBe(0);
    expect(ms).toBeLessThan(10_000);
  }, 30_000);

  it('chio mcp serve-http exits within seconds of SIGTERM with a silent half-request and a governed call in flight', async () => {
    const db = join(dir, 'shutdown-edge.sqlite');
    const edge = await startHttpEdge(['--receipt-db', db, '--', process.execPath, SLOW_MCP_SERVER]);
    onTestFinished(() => edge.stop());
    const silent = await silentClient(edge.url);
    const session = await openSession(edge);
    // The call is still running when SIGTERM arrives; its connection goes idle (or is cut) after.
    const inFlight = post(
      edge,
      { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'wait', arguments: { ms: 1_000 } } },
      session,
    ).catch((e: Error) => e);
    await sleep(300);
    const { code, ms } = await terminate(edge.child);
    silent.destroy();
    await inFlight;
    expect(code).toBe(0);
    expect(ms).toBeLessThan(10_000);
    // Whatever was recorded before the shutdown verifies.
    const ledger = openLedger(db, { readonly: true });
    try {
      expect(verifyChain(ledger)).toMatchObject({ ok: true });
    } finally {
      ledger.close();
    }
  }, 30_000);
});
