/**
 * The Streamable HTTP transport (MCP basic/transports §Streamable HTTP): `POST /mcp` for JSON-RPC,
 * `GET /mcp` for the SSE stream (with `Last-Event-ID` replay), `DELETE /mcp` to end a session;
 * `MCP-Session-Id` and `MCP-Protocol-Version` are enforced by the SDK's server transport, which
 * does the framing here. In front of it this module refuses what must not reach a session: a Host
 * or Origin that is not ours (DNS rebinding), a missing or wrong bearer token, a body over the
 * size limit, unparseable JSON, batches. Each MCP session gets its own McpSession (its own agent
 * key, capability and ledger session id) over the one kernel.
 * Owns: HTTP routing and the checks above. Every header and byte is attacker-controlled.
 */
import { timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Kernel } from '../../kernel/index.js';
import { BoundedEventStore } from './event-store.js';
import { INVALID_REQUEST, PARSE_ERROR, SESSION_NOT_FOUND } from './jsonrpc.js';
import { McpSession } from './session.js';
import type { McpPassthrough } from './session.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from './stdio.js';

export interface HttpEdgeOptions {
  kernel: Kernel;
  passthrough?: McpPassthrough | undefined;
  host?: string;
  port?: number;
  /** Require `Authorization: Bearer <token>`. */
  authToken?: string | undefined;
  /** Origins a browser may call from; by default only this server's own loopback origins. */
  allowedOrigins?: string[] | undefined;
  maxBodyBytes?: number;
}

export interface HttpEdge {
  url: string;
  sessions(): number;
  close(): Promise<void>;
}

function reject(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }));
}

function readBody(req: IncomingMessage, max: number): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > max) {
        // Answer now and drain the rest without keeping it, so the client reads the 413 instead of a
        // reset; a client that never stops sending is cut off after a grace period.
        resolve('too-large');
        req.removeAllListeners('data');
        req.resume();
        setTimeout(() => req.socket.destroy(), 5000).unref();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export async function serveHttp(options: HttpEdgeOptions): Promise<HttpEdge> {
  const host = options.host ?? '127.0.0.1';
  const max = options.maxBodyBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const transports = new Map<string, StreamableHTTPServerTransport>();
  let port = 0;
  let hostNames = new Set<string>();
  let origins = new Set<string>();

  async function open(): Promise<StreamableHTTPServerTransport> {
    const session = new McpSession({ kernel: options.kernel, passthrough: options.passthrough });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => session.sessionId,
      eventStore: new BoundedEventStore(),
      onsessioninitialized: (id) => void transports.set(id, transport),
      onsessionclosed: (id) => {
        transports.delete(id);
        session.close();
      },
    });
    // Server-to-client notifications (relayed upstream logging, resource updates, progress).
    session.setOutbound((message) => void transport.send(message as JSONRPCMessage).catch(() => {}));
    transport.onmessage = (message) => {
      void session.handle(message).then((response) => {
        if (response === null) return;
        const id = (message as { id?: string | number }).id;
        return transport.send(response as JSONRPCMessage, id === undefined ? {} : { relatedRequestId: id });
      });
    };
    await transport.start();
    return transport;
  }

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname !== '/mcp') return reject(res, 404, INVALID_REQUEST, 'not found: the MCP endpoint is /mcp');
    if (!hostNames.has(req.headers.host ?? '')) return reject(res, 403, INVALID_REQUEST, 'forbidden: unexpected Host header');
    const origin = req.headers.origin;
    if (origin !== undefined && !origins.has(origin)) return reject(res, 403, INVALID_REQUEST, `forbidden: origin ${origin} is not allowed`);
    if (options.authToken !== undefined) {
      const auth = req.headers.authorization ?? '';
      if (!auth.startsWith('Bearer ') || !sameSecret(auth.slice(7), options.authToken)) {
        return reject(res, 401, INVALID_REQUEST, 'unauthorized: a valid bearer token is required', { 'www-authenticate': 'Bearer' });
      }
    }
    const sessionHeader = req.headers['mcp-session-id'];
    const existing = typeof sessionHeader === 'string' ? transports.get(sessionHeader) : undefined;
    if (typeof sessionHeader === 'string' && existing === undefined) return reject(res, 404, SESSION_NOT_FOUND, 'session not found');
    if (req.method === 'POST') {
      const body = await readBody(req, max);
      if (body === 'too-large') return reject(res, 413, INVALID_REQUEST, `message larger than ${max} bytes refused`, { connection: 'close' });
      let parsed: unknown;
      try {
        parsed = JSON.parse(body.toString('utf8'));
      } catch (e) {
        return reject(res, 400, PARSE_ERROR, `parse error: ${(e as Error).message}`);
      }
      if (Array.isArray(parsed)) return reject(res, 400, INVALID_REQUEST, 'batches are not supported (removed in MCP 2025-06-18)');
      const transport = existing ?? (await open());
      return transport.handleRequest(req, res, parsed);
    }
    if (req.method === 'GET' || req.method === 'DELETE') {
      if (existing === undefined) return reject(res, 400, INVALID_REQUEST, 'an MCP-Session-Id header is required');
      return existing.handleRequest(req, res);
    }
    return reject(res, 405, INVALID_REQUEST, 'method not allowed', { allow: 'GET, POST, DELETE' });
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) reject(res, 500, -32603, 'internal error');
      else res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, host, resolve));
  port = (server.address() as AddressInfo).port;
  hostNames = new Set([`${host}:${port}`, `127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
  origins = new Set(options.allowedOrigins ?? [`http://127.0.0.1:${port}`, `http://localhost:${port}`]);
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/mcp`,
    sessions: () => transports.size,
    close: async () => {
      for (const t of transports.values()) await t.close().catch(() => {});
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
