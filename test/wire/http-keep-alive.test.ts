// Both HTTP servers Chio runs (`chio serve`, `chio mcp serve-http`), as real processes, keep an idle
// kept-alive connection open past the 4–5 s at which Node's own defaults close it, so a client that
// reuses the connection under load is answered instead of finding it closed ("other side closed").
import { Agent, request } from 'node:http';
import type { ClientRequest } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { Kernel } from '../../src/kernel/index.js';
import { childProcesses } from '../helpers/children.js';
import { CHIO_BIN } from '../helpers/cli.js';
import { SLOW_MCP_SERVER, sleep, startHttpEdge } from '../helpers/http-edge.js';
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

describe('HTTP servers keep idle connections open for reuse', () => {
  const dir = tempDir();

  it('chio serve and chio mcp serve-http answer on a connection reused after 6 s idle', async () => {
    const db = join(dir, 'keep-alive.sqlite');
    await Kernel.open({ ledgerPath: db, seed: new Uint8Array(32).fill(9), checkpoints: false }).close();
    const api = await children.start(
      [
        CHIO_BIN,
        'serve',
        '--listen',
        '127.0.0.1:0',
        '--receipt-db',
        db,
        '--service-token',
        'keep-alive-token-0123456789',
      ],
      /audit API at (\S+)/,
    );
    const edge = await startHttpEdge([
      '--receipt-db',
      join(dir, 'edge.sqlite'),
      '--',
      process.execPath,
      SLOW_MCP_SERVER,
    ]);
    onTestFinished(() => edge.stop());
    const [onApi, onEdge] = await Promise.all([
      idleThenReuse(new URL('v1/ledger/head', api.match[1]!), 'GET'),
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
