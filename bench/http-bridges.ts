/**
 * `chio mcp serve-http` (governed) beside `mcp-proxy` (npm; an ungoverned stdio ⇄ Streamable HTTP
 * bridge), both in front of the same upstream (server-everything over stdio), driven by the same
 * SDK client over Streamable HTTP: `echo` calls one at a time (p50) and 16 in flight (calls/s),
 * in the bridges' first calls and again at the JIT's steady state, once each session has made
 * `STEADY_AFTER` calls (mcp-edge.ts). The bridge users run today is the limit governance is
 * measured against. At steady state with 16 in flight, each party's CPU per call is counted too
 * (process-cpu.ts): the client (this process), the bridge and the upstream it started.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { isolatedAbortFetch } from '../src/isolated-abort-fetch.js';
import { concurrentEchoCalls, sequentialEchoCalls } from './echo-calls.js';
import { STEADY_AFTER } from './mcp-edge.js';
import { cpuPerCall } from './process-cpu.js';
import type { CallCpu } from './process-cpu.js';

const require = createRequire(import.meta.url);
const EVERYTHING = join(
  require.resolve('@modelcontextprotocol/server-everything/package.json'),
  '..',
  'dist',
  'index.js',
);
const MCP_PROXY = join(require.resolve('mcp-proxy/package.json'), '..', 'dist', 'bin', 'mcp-proxy.mjs');
const CLI = fileURLToPath(new URL('../cli/main.js', import.meta.url));

export interface BridgeWindows {
  sequential: { perSecond: number; p50ms: number };
  /** Calls per second, 16 in flight. */
  concurrent: number;
}

export interface BridgeFigure extends BridgeWindows {
  /** The same two windows at the JIT's steady state, and the CPU per call of its 16-in-flight window. */
  steady: BridgeWindows & { cpu: CallCpu };
}

/** Calls in the steady-state window with 16 in flight. */
const STEADY_CALLS = 4_000;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function connect(url: URL): Promise<Client> {
  for (let attempt = 0; ; attempt++) {
    const client = new Client({ name: 'chio-bench', version: '1.0.0' }, { capabilities: {} });
    try {
      // A signal per request (as the edge's own upstream client does): the SDK's shared one would
      // pile up Node fetch's abort listeners over the steady-state calls.
      await client.connect(new StreamableHTTPClientTransport(url, { fetch: isolatedAbortFetch() }));
      return client;
    } catch (e) {
      if (attempt > 100) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/**
 * `echo` one at a time, then `inFlight` at a time, through one client session; then calls until
 * the session has made `STEADY_AFTER`, and the two windows again. `pid`: the bridge's process.
 */
export async function drive(url: URL, pid: number, calls: number, inFlight = 16): Promise<BridgeFigure> {
  const client = await connect(url);
  const first = await sequentialEchoCalls(client, calls);
  const concurrent = await concurrentEchoCalls(client, calls, inFlight);
  // 20 warm-up calls and `calls` one at a time, `calls` at 16: the rest of STEADY_AFTER.
  await concurrentEchoCalls(client, STEADY_AFTER - 20 - 2 * calls, inFlight);
  const steady = await sequentialEchoCalls(client, calls);
  const steadyConcurrent = await cpuPerCall(pid, STEADY_CALLS, () =>
    concurrentEchoCalls(client, STEADY_CALLS, inFlight),
  );
  await client.close();
  return {
    sequential: { perSecond: first.perSecond, p50ms: first.p50ms },
    concurrent,
    steady: {
      sequential: { perSecond: steady.perSecond, p50ms: steady.p50ms },
      concurrent: steadyConcurrent.result,
      cpu: steadyConcurrent.cpu,
    },
  };
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 5000).unref();
  });
}

export async function httpBridgeFigures(calls = 500): Promise<{ chio: BridgeFigure; mcpProxy: BridgeFigure }> {
  const dir = mkdtempSync(join(tmpdir(), 'chio-bench-bridges-'));
  const proxyPort = await freePort();
  const proxy = spawn(
    process.execPath,
    [
      MCP_PROXY,
      '--host',
      '127.0.0.1',
      '--port',
      String(proxyPort),
      '--server',
      'stream',
      '--',
      process.execPath,
      EVERYTHING,
      'stdio',
    ],
    { stdio: 'ignore' },
  );
  const chio = spawn(
    process.execPath,
    [
      CLI,
      'mcp',
      'serve-http',
      '--listen',
      '127.0.0.1:0',
      '--receipt-db',
      join(dir, 'edge.sqlite'),
      '--',
      process.execPath,
      EVERYTHING,
      'stdio',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  try {
    const chioUrl = await new Promise<URL>((resolve, reject) => {
      let err = '';
      chio.stderr!.on('data', (d) => {
        err += d;
        const m = /MCP over Streamable HTTP at (\S+)/.exec(err);
        if (m !== null) resolve(new URL(m[1]!));
      });
      chio.once('exit', (code) => reject(new Error(`chio mcp serve-http exited ${code}: ${err}`)));
    });
    // Alternate so neither gets the quieter minute.
    const mcpProxy = await drive(new URL(`http://127.0.0.1:${proxyPort}/mcp`), proxy.pid!, calls);
    const chioFigure = await drive(chioUrl, chio.pid!, calls);
    return { chio: chioFigure, mcpProxy };
  } finally {
    await Promise.all([stop(proxy), stop(chio)]);
    rmSync(dir, { recursive: true, force: true });
  }
}
