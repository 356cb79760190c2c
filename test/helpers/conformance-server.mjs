// Reference MCP server for the official MCP conformance suite (@modelcontextprotocol/conformance).
// It mirrors what the suite's server scenarios expect of a server (the tools test_simple_text,
// test_sampling, test_elicitation…, the test:// resources, the test_* prompts, completion,
// logging, progress, SSE resumability, DNS-rebinding protection); the features themselves live in
// conformance-server-features.mjs. Built on the MCP SDK only; imports nothing from Chio.
//
//   node conformance-server.mjs [--port N]   Streamable HTTP at http://127.0.0.1:N/mcp (N from
//                                            --port, else $CONFORMANCE_PORT, else a free port);
//                                            prints `listening <url>` on stdout once ready.
//   node conformance-server.mjs --stdio      one session over stdin/stdout (nothing else is
//                                            written to stdout), e.g. as an upstream of
//                                            `chio mcp serve-http -- node conformance-server.mjs --stdio`.
//
// Over HTTP each initialize opens its own session (its own Server, transport and event store), so
// concurrent suite scenarios never share log levels or subscriptions.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { createConformanceServer } from './conformance-server-features.mjs';

const MAX_BODY = 4 * 1024 * 1024;
const RETRY_MS = 500; // the SSE `retry:` a client waits before resuming a closed stream (SEP-1699)

if (process.argv.includes('--stdio')) {
  const server = createConformanceServer();
  process.stdin.on('end', () => process.exit(0));
  await server.connect(new StdioServerTransport());
} else {
  const i = process.argv.indexOf('--port');
  const port = Number(i >= 0 ? process.argv[i + 1] : (process.env.CONFORMANCE_PORT ?? 0));
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(
      `conformance-server: bad port ${JSON.stringify(i >= 0 ? process.argv[i + 1] : process.env.CONFORMANCE_PORT)}\n`,
    );
    process.exit(2);
  }
  await serveHttp(port);
}

/** An event store per session: SSE events kept in memory so a client can resume with Last-Event-ID. */
function memoryEventStore() {
  const events = []; // [{ id, streamId, message }] in send order
  return {
    async storeEvent(streamId, message) {
      const id = `${streamId}_${events.length}`;
      events.push({ id, streamId, message });
      return id;
    },
    async getStreamIdForEventId(eventId) {
      return events.find((e) => e.id === eventId)?.streamId;
    },
    // `lastEventId` is client-controlled: an unknown id replays nothing.
    async replayEventsAfter(lastEventId, { send }) {
      const at = events.findIndex((e) => e.id === lastEventId);
      if (at < 0) return '';
      const { streamId } = events[at];
      for (const e of events.slice(at + 1)) {
        if (e.streamId === streamId && Object.keys(e.message).length > 0) await send(e.id, e.message);
      }
      return streamId;
    },
  };
}

async function serveHttp(port) {
  const sessions = new Map(); // mcp-session-id -> transport
  let allowedHosts = new Set();

  const http = createServer(async (req, res) => {
    const reply = (status, message, code = -32000) => {
      if (res.headersSent) return res.end();
      res
        .writeHead(status, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
    };
    try {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (url.pathname !== '/mcp') return reply(404, 'Not found');
      // DNS-rebinding protection: Host and Origin are attacker-controlled. A browser page on
      // evil.example.com resolving to 127.0.0.1 sends Host/Origin evil.example.com; only our own
      // loopback authorities are served. A request without Origin (not a browser) is fine.
      const host = req.headers.host?.toLowerCase();
      const origin = req.headers.origin?.toLowerCase();
      if (!host || !allowedHosts.has(host)) return reply(403, 'Forbidden: Host is not this loopback server');
      if (origin !== undefined && !allowedHosts.has(origin.replace(/^http:\/\//, '')))
        return reply(403, 'Forbidden: Origin is not this loopback server');

      const sessionId = req.headers['mcp-session-id'];
      if (req.method === 'POST') {
        const body = await readJson(req);
        if (body === undefined) return reply(400, 'Parse error: body is not JSON (or over 4 MiB)', -32700);
        const existing = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
        if (existing) return await existing.handleRequest(req, res, body);
        if (sessionId === undefined && isInitializeRequest(body)) return await openSession(req, res, body);
        return reply(
          sessionId === undefined ? 400 : 404,
          sessionId === undefined ? 'Bad request: no session; send initialize first' : 'Session not found',
        );
      }
      if (req.method === 'GET' || req.method === 'DELETE') {
        const existing = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
        if (!existing)
          return reply(
            sessionId === undefined ? 400 : 404,
            sessionId === undefined ? 'Bad request: no session' : 'Session not found',
          );
        return await existing.handleRequest(req, res);
      }
      res.setHeader('allow', 'GET, POST, DELETE');
      return reply(405, 'Method not allowed');
    } catch (err) {
      process.stderr.write(`conformance-server: ${err?.stack ?? err}\n`);
      return reply(500, 'Internal error', -32603);
    }
  });

  async function openSession(req, res, body) {
    const server = createConformanceServer();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      eventStore: memoryEventStore(),
      retryInterval: RETRY_MS,
      onsessioninitialized: (id) => sessions.set(id, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  await new Promise((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, '127.0.0.1', resolve);
  });
  const bound = http.address().port;
  allowedHosts = new Set([`127.0.0.1:${bound}`, `localhost:${bound}`, `[::1]:${bound}`]);
  const stop = () => {
    for (const t of sessions.values()) void t.close();
    http.close(() => process.exit(0));
    http.closeAllConnections();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.stdout.write(`listening http://127.0.0.1:${bound}/mcp\n`);
}

/** The request body as JSON, or undefined when it is not JSON or larger than MAX_BODY. */
async function readJson(req) {
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > MAX_BODY) return undefined;
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return undefined;
  }
}
