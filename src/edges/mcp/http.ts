/**
 * The Streamable HTTP transport (MCP basic/transports §Streamable HTTP): `POST /mcp` for JSON-RPC,
 * `GET /mcp` for the SSE stream (with `Last-Event-ID` replay), `DELETE /mcp` to end a session;
 * `MCP-Session-Id` and `MCP-Protocol-Version` are enforced by the SDK's server transport, which
 * does the framing here. In front of it this module refuses what must not reach a session: a Host
 * or Origin that is not ours (DNS rebinding), a missing or wrong bearer token, a body over the
 * size limit, unparseable JSON, batches, and a POST without a session id that is not an
 * `initialize` (400, before anything is allocated for it). Only an initialize under the session
 * cap creates an McpSession (its own agent key, capability and ledger session id over the one
 * kernel) and a transport; http-sessions.ts owns how long they live.
 * Owns: HTTP routing and the checks above. Every header and byte is attacker-controlled.
 */
import { timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest, isJSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { Kernel } from '../../kernel/index.js';
import { applyServerTimeouts, closeServer } from '../../wire/index.js';
import { BoundedEventStore } from './event-store.js';
import { DEFAULT_JSON_ANSWER_HOLD_MS, HeldAnswers } from './held-answers.js';
import { HttpSessions, sessionLimits, TOO_MANY_SESSIONS } from './http-sessions.js';
import { INVALID_REQUEST, PARSE_ERROR, SESSION_NOT_FOUND } from './jsonrpc.js';
import { McpSession } from './session.js';
import { StandaloneOutbox } from './standalone-outbox.js';
import type { ConnectUpstream } from './session.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from './stdio.js';

export {
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SESSION_IDLE_TIMEOUT_MS,
  sessionLimits,
  TOO_MANY_SESSIONS,
} from './http-sessions.js';

export interface HttpEdgeOptions {
  kernel: Kernel;
  /** A wrapped server: each session connects its own (see session.ts). */
  upstream?: ConnectUpstream | undefined;
  host?: string;
  port?: number;
  /** Require `Authorization: Bearer <token>`. */
  authToken?: string | undefined;
  /** Origins a browser may call from; by default only this server's own loopback origins. */
  allowedOrigins?: string[] | undefined;
  maxBodyBytes?: number;
  /** Live sessions at most; an initialize past it gets HTTP 503 (default 256). */
  maxSessions?: number | undefined;
  /** A session with no request for this long is ended (default 15 minutes). */
  sessionIdleTimeoutMs?: number | undefined;
  /**
   * How long a request's answer may wait to go back as one JSON object rather than an SSE stream
   * (held-answers.ts; default 100 ms); 0 answers every request with an SSE stream.
   */
  jsonAnswerHoldMs?: number | undefined;
  /**
   * Other routes served beside /mcp (the audit API under `/v1/`): requests whose path starts with
   * `prefix` go to `handler` after the Host and Origin checks; the handler authenticates them itself.
   */
  mount?: { prefix: string; handler: (req: IncomingMessage, res: ServerResponse) => void } | undefined;
}

export interface HttpEdge {
  url: string;
  sessions(): number;
  close(): Promise<void>;
}

function reject(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
  id: RequestId | null = null,
): void {
  res
    .writeHead(status, { 'content-type': 'application/json', ...headers })
    .end(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }));
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
  const limits = sessionLimits(options);
  const sessions = new HttpSessions(limits);
  const outboxes = new WeakMap<StreamableHTTPServerTransport, StandaloneOutbox>();
  const answers = new WeakMap<StreamableHTTPServerTransport, HeldAnswers>();
  const holdMs = options.jsonAnswerHoldMs ?? DEFAULT_JSON_ANSWER_HOLD_MS;
  let port = 0;
  let hostNames = new Set<string>();
  let origins = new Set<string>();

  /** Wires an McpSession to its transport: client messages in, responses and notifications out. */
  function connect(session: McpSession, transport: StreamableHTTPServerTransport): void {
    // Server-to-client messages (relayed upstream logging, resource updates, progress, and the
    // upstream's requests) go on the stream of the client request they belong with when there is
    // one, else on the GET stream once the client has opened it (standalone-outbox.ts). All of them
    // pass through `held` first: a request whose answer is held gets its response as one JSON
    // object, or is handed to the transport when anything else comes for it (held-answers.ts).
    const held = new HeldAnswers(transport, session.sessionId, (request) => dispatch(request), holdMs);
    answers.set(transport, held);
    const outbox = new StandaloneOutbox(held);
    outboxes.set(transport, outbox);
    session.setOutbound((message, related) => outbox.send(message as JSONRPCMessage, related));
    const dispatch = (message: JSONRPCMessage) => {
      const m = message as { id?: RequestId; method?: unknown };
      if (m.id !== undefined && typeof m.method === 'string') outbox.requestArrived(m.id);
      void session
        .handle(message)
        .then(async (response) => {
          if (response === null) return;
          const id = (message as { id?: string | number }).id;
          try {
            await held.send(response as JSONRPCMessage, id === undefined ? {} : { relatedRequestId: id });
          } catch {
            // The client left before its answer (no stream to resume): the receipt is already
            // committed; there is no one to tell. This must never take the edge down.
          }
          // An initialize the session refused leaves nothing behind: the id it was given dies with it.
          if ((message as { method?: unknown }).method === 'initialize' && 'error' in response)
            sessions.close(session.sessionId);
        })
        .catch(() => {});
    };
    transport.onmessage = (message) => {
      if (!held.handedOver(message)) dispatch(message);
    };
    transport.onclose = () => held.close();
  }

  /** A session-less POST whose body is an initialize request: the only way a session begins. */
  async function initialize(
    req: IncomingMessage,
    res: ServerResponse,
    message: JSONRPCMessage & { id: RequestId },
  ): Promise<void> {
    const slot = sessions.admit();
    if (slot === undefined) {
      return reject(
        res,
        503,
        TOO_MANY_SESSIONS,
        `too many sessions: this edge serves at most ${limits.maxSessions} at once; end one (DELETE) or retry later`,
        { 'retry-after': String(sessions.retryAfterSeconds()) },
        message.id,
      );
    }
    const session = new McpSession({ kernel: options.kernel, upstream: options.upstream });
    let done: (() => void) | undefined;
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => session.sessionId,
      eventStore: new BoundedEventStore(),
      onsessioninitialized: (id) => {
        done = slot.fill(id, session, transport);
      },
      onsessionclosed: (id) => void sessions.close(id),
    });
    connect(session, transport);
    let closed = false;
    const settle = () => {
      if (!closed || done === undefined) return;
      done();
      // A client that left before its initialize answer was written never learned a working session.
      if (!res.writableFinished) sessions.close(session.sessionId);
    };
    res.once('close', () => {
      closed = true;
      settle();
    });
    try {
      await transport.start();
      await transport.handleRequest(req, res, message);
    } finally {
      slot.release();
      if (done === undefined) {
        // Refused by the transport (Accept, Content-Type) before it became a session: release all of it.
        session.close();
        await transport.close().catch(() => {});
      } else settle();
    }
  }

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const mounted = options.mount !== undefined && url.pathname.startsWith(options.mount.prefix);
    if (url.pathname !== '/mcp' && !mounted)
      return reject(res, 404, INVALID_REQUEST, 'not found: the MCP endpoint is /mcp');
    if (!hostNames.has(req.headers.host ?? ''))
      return reject(res, 403, INVALID_REQUEST, 'forbidden: unexpected Host header');
    const origin = req.headers.origin;
    if (origin !== undefined && !origins.has(origin))
      return reject(res, 403, INVALID_REQUEST, `forbidden: origin ${origin} is not allowed`);
    if (mounted) return options.mount!.handler(req, res);
    if (options.authToken !== undefined) {
      const auth = req.headers.authorization ?? '';
      if (!auth.startsWith('Bearer ') || !sameSecret(auth.slice(7), options.authToken)) {
        return reject(res, 401, INVALID_REQUEST, 'unauthorized: a valid bearer token is required', {
          'www-authenticate': 'Bearer',
        });
      }
    }
    const sessionId = req.headers['mcp-session-id'];
    const existing = typeof sessionId === 'string' ? sessions.transport(sessionId) : undefined;
    // Unknown, ended and expired sessions alike (MCP: the client must then initialize again).
    if (typeof sessionId === 'string' && existing === undefined)
      return reject(res, 404, SESSION_NOT_FOUND, 'session not found');
    if (req.method === 'POST') {
      const body = await readBody(req, max);
      if (body === 'too-large')
        return reject(res, 413, INVALID_REQUEST, `message larger than ${max} bytes refused`, { connection: 'close' });
      let parsed: unknown;
      try {
        parsed = JSON.parse(body.toString('utf8'));
      } catch (e) {
        return reject(res, 400, PARSE_ERROR, `parse error: ${(e as Error).message}`);
      }
      if (Array.isArray(parsed))
        return reject(res, 400, INVALID_REQUEST, 'batches are not supported (removed in MCP 2025-06-18)');
      if (existing !== undefined) {
        res.once('close', sessions.begin(sessionId as string));
        const held = answers.get(existing);
        if (held?.canHold(req, parsed)) return held.hold(req, res, parsed);
        return existing.handleRequest(req, res, parsed);
      }
      if (!isJSONRPCRequest(parsed) || !isInitializeRequest(parsed)) {
        return reject(
          res,
          400,
          INVALID_REQUEST,
          'an MCP-Session-Id header is required: only an initialize request may come without one',
        );
      }
      return initialize(req, res, parsed);
    }
    if (req.method === 'GET' || req.method === 'DELETE') {
      if (existing === undefined) return reject(res, 400, INVALID_REQUEST, 'an MCP-Session-Id header is required');
      // The GET stream stays open while the session idles: opening it is activity, holding it is not.
      if (req.method === 'GET') {
        sessions.touch(sessionId as string);
        // The SDK registers the stream before it writes the 200: held messages can go on it then.
        const outbox = outboxes.get(existing);
        const writeHead = res.writeHead;
        res.writeHead = function (this: ServerResponse, ...args: Parameters<ServerResponse['writeHead']>) {
          const r = writeHead.apply(this, args);
          if (this.statusCode === 200) setImmediate(() => outbox?.streamOpened());
          return r;
        } as ServerResponse['writeHead'];
      } else res.once('close', sessions.begin(sessionId as string));
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
  applyServerTimeouts(server);
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, host, resolve));
  port = (server.address() as AddressInfo).port;
  hostNames = new Set([`${host}:${port}`, `127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
  origins = new Set(options.allowedOrigins ?? [`http://127.0.0.1:${port}`, `http://localhost:${port}`]);
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/mcp`,
    sessions: () => sessions.size,
    close: async () => {
      sessions.closeAll();
      await closeServer(server);
    },
  };
}
