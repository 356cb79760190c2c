/**
 * A POSTed request's answer as one JSON object when nothing else goes with it. MCP
 * basic/transports §Sending Messages to the Server: a server answers a request either with an SSE
 * stream or with one `application/json` object, and the client must accept both. An SSE answer
 * costs both ends more (the SDK's transport streams it through web streams; the client parses it
 * as an event stream: bench/README.md, "Where the HTTP bridges' CPU goes"), and most calls have
 * nothing to send but their response. So a request is dispatched here and its answer held: its
 * response, if it comes within `holdMs` and before anything else for it, is written as JSON.
 * Anything else for it first (a progress notification, the upstream's sampling or elicitation
 * request, a held standalone message), or `holdMs` passing, hands the request to the SDK's
 * transport, which opens its SSE stream (with its priming event and event ids, so a client can
 * resume it with Last-Event-ID) and sends what was queued meanwhile, in order. A call that runs
 * long keeps the resumable stream it had; a quick one gets the cheap answer.
 * Owns: holding, the JSON answer and the hand-over. Every header and body is attacker-controlled;
 * anything this module does not hold is left to the SDK's transport and its checks, unchanged.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import { isInitializeRequest, isJSONRPCRequest, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import type { JSONRPCMessage, JSONRPCRequest, RequestId } from '@modelcontextprotocol/sdk/types.js';

/** How long a request's answer may wait to be written as JSON, by default. */
export const DEFAULT_JSON_ANSWER_HOLD_MS = 100;

type SendOptions = { relatedRequestId?: RequestId };

interface Queued {
  message: JSONRPCMessage;
  options: SendOptions;
  resolve: () => void;
  reject: (e: unknown) => void;
}

interface Held {
  req: IncomingMessage;
  res: ServerResponse;
  request: JSONRPCRequest;
  timer: NodeJS.Timeout;
  /** Set once the request is handed to the transport; messages wait here until it has the stream. */
  queue: Queued[] | undefined;
}

/** Where a session's server-to-client messages go: the transport, or a held answer. */
export interface MessageSink {
  send(message: JSONRPCMessage, options?: SendOptions): Promise<void>;
}

export class HeldAnswers implements MessageSink {
  private readonly held = new Map<RequestId, Held>();
  /** The session has ended (DELETE, shutdown): its transport would refuse a hand-over. */
  private closed = false;

  constructor(
    private readonly transport: StreamableHTTPServerTransport,
    private readonly sessionId: string,
    private readonly dispatch: (request: JSONRPCRequest) => void,
    private readonly holdMs = DEFAULT_JSON_ANSWER_HOLD_MS,
  ) {}

  /**
   * Whether this POST's answer may be held: one request, not an initialize, whose headers the
   * transport would accept as they are (both media types in Accept, a JSON body, a protocol
   * version it supports, if one is named), with no request of the same id held. Anything else goes
   * to the transport, which answers it (or refuses it) as it always does.
   */
  canHold(req: IncomingMessage, body: unknown): body is JSONRPCRequest {
    if (this.holdMs <= 0 || this.closed || !isJSONRPCRequest(body) || isInitializeRequest(body)) return false;
    if (this.held.has(body.id)) return false;
    // The headers as the transport reads them (a fetch Request built from every raw header line):
    // Node keeps only the first of two Content-Type lines, the transport sees both joined.
    const accept = headerAsFetchSeesIt(req, 'accept') ?? '';
    if (!accept.includes('application/json') || !accept.includes('text/event-stream')) return false;
    if (!isJsonContentType(headerAsFetchSeesIt(req, 'content-type') ?? null)) return false;
    const version = headerAsFetchSeesIt(req, 'mcp-protocol-version');
    return version === undefined || SUPPORTED_PROTOCOL_VERSIONS.includes(version);
  }

  /**
   * The session has ended: nothing is handed to its transport any more (it would answer a request
   * that has already run with 404, and a client would run it again in a new session). A held
   * request gets its response as JSON whenever it comes; other messages for it are dropped, as the
   * transport drops them for the streams it closed.
   */
  close(): void {
    this.closed = true;
    for (const entry of this.held.values()) if (entry.queue === undefined) clearTimeout(entry.timer);
  }

  /** Dispatches `request` and holds its answer (see the header). */
  hold(req: IncomingMessage, res: ServerResponse, request: JSONRPCRequest): void {
    const id = request.id;
    const entry: Held = {
      req,
      res,
      request,
      queue: undefined,
      timer: setTimeout(() => this.handOver(entry), this.holdMs),
    };
    this.held.set(id, entry);
    res.once('close', () => {
      // The client left (or the answer is written): nothing more goes to this POST. Queued
      // messages are dropped as the transport drops them for a stream that is gone.
      if (this.held.get(id) !== entry) return;
      clearTimeout(entry.timer);
      this.held.delete(id);
      for (const q of entry.queue ?? []) q.resolve();
    });
    this.dispatch(request);
  }

  send(message: JSONRPCMessage, options: SendOptions = {}): Promise<void> {
    const id = options.relatedRequestId;
    const entry = id === undefined ? undefined : this.held.get(id);
    if (entry === undefined) return this.transport.send(message, options);
    const answer = isAnswerTo(message, id!);
    if (entry.queue === undefined && this.closed && !answer) return Promise.resolve();
    if (entry.queue === undefined && answer) {
      clearTimeout(entry.timer);
      this.held.delete(id!);
      const body = JSON.stringify(message);
      if (!entry.res.destroyed)
        entry.res
          .writeHead(200, {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            'mcp-session-id': this.sessionId,
          })
          .end(body);
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      this.handOver(entry);
      entry.queue!.push({ message, options, resolve, reject });
    });
  }

  /**
   * Called by the transport's `onmessage` for every message it dispatches: true for a request
   * handed over from here (already dispatched). The transport has then opened its stream for it,
   * so what was queued is sent there, in order, and later messages go to it directly. The
   * transport dispatches its own parse of the body, not the object held, so the request is known
   * by its id while it is being handed over. (A client that sends another request with the same
   * id meanwhile breaks MCP's rule that ids are unique in a session; that one is not run.)
   */
  handedOver(message: JSONRPCMessage): boolean {
    if (this.held.size === 0 || !isJSONRPCRequest(message)) return false;
    const entry = this.held.get(message.id);
    if (entry === undefined || entry.queue === undefined) return false;
    this.held.delete(message.id);
    for (const q of entry.queue) this.transport.send(q.message, q.options).then(q.resolve, q.reject);
    return true;
  }

  private handOver(entry: Held): void {
    if (entry.queue !== undefined || this.closed) return;
    clearTimeout(entry.timer);
    entry.queue = [];
    // The transport validates the request again, registers its stream, writes the priming event,
    // then calls onmessage (handedOver above) instead of dispatching it a second time.
    void this.transport.handleRequest(entry.req, entry.res, entry.request).catch(() => {
      if (!entry.res.headersSent) entry.res.writeHead(500).end();
    });
  }
}

/** A header's lines joined with ", ", as a fetch `Headers` built from the raw lines holds it; undefined when absent. */
function headerAsFetchSeesIt(req: IncomingMessage, name: string): string | undefined {
  const values: string[] = [];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2)
    if (req.rawHeaders[i]!.toLowerCase() === name) values.push(req.rawHeaders[i + 1]!);
  return values.length === 0 ? undefined : values.join(', ');
}

/** Whether `message` (built by this edge's session, not the client) is the response to request `id`. */
function isAnswerTo(message: JSONRPCMessage, id: RequestId): boolean {
  return ('result' in message || 'error' in message) && 'id' in message && message.id === id;
}
