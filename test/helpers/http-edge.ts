/**
 * `chio mcp serve-http` as a real child process for tests, and a raw HTTP client for it: keep-alive
 * sockets, whole responses (an SSE response is read to its end), the child's resident memory from
 * /proc. Nothing here reaches into the edge; it is driven over HTTP only.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { CHIO_BIN } from './cli.js';

export const SLOW_MCP_SERVER = fileURLToPath(new URL('./slow-mcp-server.mjs', import.meta.url));

export interface HttpReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface RunningEdge {
  url: URL;
  pid: number;
  child: ChildProcess;
  stderr(): string;
  /** Sends one request on a keep-alive socket and reads the whole response. */
  send(method: string, headers?: Record<string, string>, body?: string): Promise<HttpReply>;
  stop(): Promise<void>;
}

/** Spawns `node …nodeFlags chio mcp serve-http --listen 127.0.0.1:0 …args` and resolves once it prints its URL. */
export async function startHttpEdge(args: string[], nodeFlags: string[] = []): Promise<RunningEdge> {
  const child = spawn(
    process.execPath,
    [...nodeFlags, CHIO_BIN, 'mcp', 'serve-http', '--listen', '127.0.0.1:0', ...args],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let err = '';
  const url = await new Promise<URL>((resolve, reject) => {
    child.stderr!.on('data', (d) => {
      err += d;
      const m = /MCP over Streamable HTTP at (\S+)/.exec(err);
      if (m !== null) resolve(new URL(m[1]!));
    });
    child.once('exit', (code) => reject(new Error(`edge exited ${code}: ${err}`)));
  });
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  const send = (method: string, headers: Record<string, string> = {}, body?: string) =>
    new Promise<HttpReply>((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path: url.pathname, method, agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  return {
    url,
    pid: child.pid!,
    child,
    stderr: () => err,
    send,
    stop: async () => {
      agent.destroy();
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The child's resident set size in bytes (VmRSS in /proc/<pid>/status). */
export function rssBytes(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (m === null) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(m[1]) * 1024;
}

export const MB = 1024 * 1024;
export const PROTOCOL = '2025-11-25';
const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

export function initializeBody(id: number | string = 1): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
  });
}

/** POSTs a JSON-RPC message, with a session id when given. */
export function post(edge: RunningEdge, message: object | string, sessionId?: string): Promise<HttpReply> {
  const headers: Record<string, string> = {
    ...JSON_HEADERS,
    ...(sessionId === undefined ? {} : { 'mcp-session-id': sessionId, 'mcp-protocol-version': PROTOCOL }),
  };
  return edge.send('POST', headers, typeof message === 'string' ? message : JSON.stringify(message));
}

/** The JSON-RPC messages in a reply: its JSON body, or the `data:` lines of its SSE stream. */
export function messages(reply: HttpReply): Array<Record<string, any>> {
  if (String(reply.headers['content-type'] ?? '').includes('text/event-stream')) {
    return reply.body
      .split('\n')
      .filter((l) => l.startsWith('data: ') && l.length > 'data: '.length + 2)
      .map((l) => JSON.parse(l.slice(6)));
  }
  return reply.body === '' ? [] : [JSON.parse(reply.body)];
}

/** initialize → notifications/initialized; returns the session id (throws unless both succeed). */
export async function openSession(edge: RunningEdge, ready = true): Promise<string> {
  const init = await post(edge, initializeBody());
  const id = init.headers['mcp-session-id'];
  if (init.status !== 200 || typeof id !== 'string') throw new Error(`initialize: HTTP ${init.status} ${init.body}`);
  if (ready) {
    const note = await post(edge, { jsonrpc: '2.0', method: 'notifications/initialized' }, id);
    if (note.status !== 202) throw new Error(`notifications/initialized: HTTP ${note.status} ${note.body}`);
  }
  return id;
}

export function deleteSession(edge: RunningEdge, sessionId: string): Promise<HttpReply> {
  return edge.send('DELETE', { 'mcp-session-id': sessionId, 'mcp-protocol-version': PROTOCOL });
}

/** Runs `task(i)` for i in [0, n) with at most `width` in flight. */
export async function pool<T>(n: number, width: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, n) }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await task(i);
      }
    }),
  );
  return out;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
