/**
 * One MCP session over the kernel: lifecycle (initialize → notifications/initialized), ping,
 * tools/list with pagination, tools/call through the kernel, cancellation. Transport-agnostic:
 * stdio and Streamable HTTP feed it parsed messages and write what it returns.
 * Each session gets its own agent key, its own capability from the policy, its own session_id in
 * the ledger and, in front of a wrapped server, its own upstream connection, made at initialize
 * with the client's capabilities (upstream.ts); the upstream's requests to the client are relayed
 * (client-requests.ts) and its sampling and elicitation exchanges leave observation receipts.
 * An unknown tool is −32602 before any capability is used; a denied call is a result with
 * isError; every tools/call result carries its receipt id in `_meta`. resources/read,
 * resources/subscribe and prompts/get are governed calls too (the method is the tool name on the
 * upstream's server id); their denial is a JSON-RPC error and the upstream is never asked.
 * Owns: MCP method semantics (the shapes of their params: params.ts). Imports the kernel; must not
 * import cli.
 */
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { CapabilityToken } from '../../capability/index.js';
import { generateSeed, signerFromSeed } from '../../crypto/index.js';
import type { Ed25519Signer } from '../../crypto/index.js';
import { isChioError } from '../../errors.js';
import type { Kernel, ToolCallRequest } from '../../kernel/index.js';
import { ClientRequests } from './client-requests.js';
import type { RequestSink } from './client-requests.js';
import {
  initializeResult,
  InitializeParamsSchema,
  LATEST_PROTOCOL_VERSION,
  selectVersion,
  TOOL_CHUNK_NOTIFICATION,
  TOOL_STREAMING_KEY,
} from './handshake.js';
import {
  classify,
  errorResponse,
  INTERNAL_ERROR,
  INVALID_PARAMS,
  INVALID_REQUEST,
  METHOD_NOT_FOUND,
  resultResponse,
  RpcError,
  SESSION_NOT_INITIALIZED,
} from './jsonrpc.js';
import type { JsonRpcRequest, RequestId } from './jsonrpc.js';
import {
  CallToolParamsSchema,
  CancelledParamsSchema,
  invalidArguments,
  ListParamsSchema,
  nonCanonicalArguments,
  PromptParamsSchema,
  ResourceParamsSchema,
  TaskIdParamsSchema,
} from './params.js';
import { governedMethodResult, toolCallResult } from './governed-results.js';
import { ClientRoots } from './roots.js';
import { TaskStore } from './tasks.js';
import { observedRelay } from './relay-observations.js';
import { McpToolTable } from './tools.js';
import type { Target } from './tools.js';
import type { UpstreamClientSide, UpstreamMcpServer } from './upstream.js';

export { GOVERNED_DENIED } from './governed-results.js';

export {
  ERROR_REGISTRY,
  LATEST_PROTOCOL_VERSION,
  RECEIPT_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
  TOOL_CHUNK_NOTIFICATION,
  TOOL_STREAMING_KEY,
} from './handshake.js';
export type { UpstreamIdentity } from './handshake.js';

/** Connects the session's own upstream, declaring its client as `side` describes it. */
export type ConnectUpstream = (side: UpstreamClientSide) => Promise<UpstreamMcpServer>;

/** Upstream notifications relayed as they are (tools/list_changed is re-read and re-announced by the edge, which owns the tool list). */
export const RELAYED_NOTIFICATIONS = new Set([
  'notifications/message',
  'notifications/elicitation/complete',
  'notifications/resources/updated',
  'notifications/resources/list_changed',
  'notifications/prompts/list_changed',
]);

/** Methods relayed to the upstream as they are (the client sees the upstream's full surface); resources/read, resources/subscribe and prompts/get are governed instead. */
export const PASSTHROUGH_METHODS = new Set([
  'resources/list',
  'resources/templates/list',
  'resources/unsubscribe',
  'prompts/list',
  'completion/complete',
  'logging/setLevel',
]);

export interface McpSessionOptions {
  kernel: Kernel;
  /** A wrapped server: connected when the client initializes (one connection per session). */
  upstream?: ConnectUpstream | undefined;
  serverInfo?: { name: string; version: string };
  pageSize?: number;
  /** tools/list says `nextCursor: null` on the last page (upstream's documented shape; the MCP schema omits it). */
  nullNextCursor?: boolean;
}

export class McpSession {
  readonly sessionId = `mcp-${randomUUID()}`;
  private state: 'new' | 'initializing' | 'ready' = 'new';
  private protocolVersion: string = LATEST_PROTOCOL_VERSION;
  private readonly agent: Ed25519Signer = signerFromSeed(generateSeed());
  private capability: CapabilityToken | undefined;
  private readonly inFlight = new Map<RequestId, AbortController>();
  /** In-flight requests the client cancelled: MCP says their responses are not sent. */
  private readonly cancelled = new Set<RequestId>();
  private tools: McpToolTable;
  private readonly tasks = new TaskStore();
  /** The session's own upstream connection (a wrapped server), from initialize on. */
  private upstream: UpstreamMcpServer | undefined;
  /** Requests the upstream sends the client, relayed (client-requests.ts). */
  private readonly relayed: ClientRequests;

  private outbound: ((message: object, related?: RequestId) => void | Promise<void>) | undefined;
  private chunkNotifications = false;
  /** The client declared the roots capability; its roots are bases for relative paths (roots.ts). */
  private clientHasRoots = false;
  private readonly roots = new ClientRoots();
  private unsubscribe: (() => void) | undefined;
  private ended = false;
  /** Settles when the session's initialize has been answered (set while it runs). */
  private initialized: Promise<void> | undefined;

  constructor(private readonly options: McpSessionOptions) {
    this.tools = this.toolTable();
    this.relayed = new ClientRequests(() => this.outbound as RequestSink | undefined);
  }

  private toolTable(): McpToolTable {
    const servers = [...this.options.kernel.toolServers(), ...(this.upstream === undefined ? [] : [this.upstream])];
    return new McpToolTable(servers, this.options.pageSize ?? 50, this.options.nullNextCursor === true);
  }

  /**
   * Where server-to-client messages go (the transport sets it). `related` is the client request a
   * message belongs with (Streamable HTTP sends it on that request's stream).
   */
  setOutbound(sink: (message: object, related?: RequestId) => void | Promise<void>): void {
    this.outbound = sink;
  }

  /** Ends the session: stops relaying upstream notifications, fails relayed requests, closes its upstream connection. */
  close(): void {
    this.ended = true;
    this.unsubscribe?.();
    this.relayed.close();
    void this.upstream?.close().catch(() => {});
  }

  /** An upstream notification: relayed, or (tools/list_changed, already re-read) the session's tool list rebuilt and the client told. */
  private upstreamNotification(n: { method: string; params?: unknown }): void {
    if (n.method === 'notifications/tools/list_changed') {
      try {
        this.tools = this.toolTable();
      } catch (e) {
        // Two servers now offer one name: the old list stays (nothing new becomes callable).
        process.stderr.write(`chio: the upstream's changed tool list was not taken: ${(e as Error).message}\n`);
        return;
      }
      if (this.state === 'ready') this.send(n.method, n.params);
      return;
    }
    if (RELAYED_NOTIFICATIONS.has(n.method) && this.state === 'ready') this.send(n.method, n.params);
  }

  /** A request the upstream sent the client: relayed, and observed when it is sampling or elicitation (relay-observations.ts). */
  private relayToClient(
    method: string,
    params: Record<string, unknown> | undefined,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> {
    // HTTP sends it on the stream of the client request in flight (the newest, when several are:
    // the upstream's wire does not say which one caused it).
    const related = () => [...this.inFlight.keys()].at(-1);
    return observedRelay(
      {
        kernel: this.options.kernel,
        serverId: this.upstream?.manifest.server_id ?? 'mcp',
        capabilityId: this.capability?.id ?? `mcp-session:${this.sessionId}`,
        sessionId: this.sessionId,
        send: (signal_) => this.relayed.send(method, params, signal_, related),
      },
      method,
      params,
      signal,
    );
  }

  /** A notification to the client; `related`: the client request it belongs with (its progress, its chunks). */
  private send(method: string, params: unknown, related?: RequestId): void {
    this.emit({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) }, related);
  }

  /** A message to the client whose delivery nobody waits for (a transport that cannot send drops it). */
  private emit(message: object, related?: RequestId): void {
    try {
      const sent = this.outbound?.(message, related);
      if (sent instanceof Promise) sent.catch(() => {});
    } catch {
      // the client is gone: nothing to tell it
    }
  }

  get negotiatedVersion(): string {
    return this.protocolVersion;
  }

  /** Handles one parsed message; returns the response to send, or null (notifications, responses). */
  async handle(value: unknown): Promise<object | null> {
    const incoming = classify(value);
    // While initialize connects the upstream, later messages wait for it, in the order they came
    // (a client may send notifications/initialized and its first calls without waiting).
    if (incoming.kind === 'request' && incoming.message.method === 'initialize' && this.state === 'new') {
      const answered = this.answer(incoming.message);
      this.initialized = answered.then(() => undefined);
      return answered;
    }
    if (this.initialized !== undefined) await this.initialized;
    switch (incoming.kind) {
      case 'invalid':
        return errorResponse(incoming.id, INVALID_REQUEST, incoming.reason);
      case 'response':
        if (!this.relayed.accept(incoming.message)) this.roots.accept(incoming.message);
        return null;
      case 'notification':
        this.notify(incoming.message.method, incoming.message.params);
        return null;
      case 'request':
        return this.answer(incoming.message);
    }
  }

  private async answer(message: JsonRpcRequest): Promise<object | null> {
    const id = message.id;
    let response: object;
    try {
      response = resultResponse(id, await this.request(message));
    } catch (e) {
      if (e instanceof RpcError) response = errorResponse(id, e.code, e.message, e.data);
      else response = errorResponse(id, INTERNAL_ERROR, isChioError(e) ? `${e.code}: ${e.message}` : 'internal error');
    }
    // MCP cancellation: the receiver SHOULD NOT respond to a cancelled request. The call's
    // receipt (decision `cancelled`) is already in the ledger; the client has moved on.
    if (this.cancelled.delete(id)) return null;
    return response;
  }

  private notify(method: string, params: Record<string, unknown> | undefined): void {
    if (method === 'notifications/initialized' && this.state === 'initializing') {
      this.state = 'ready';
      this.relayed.ready();
      if (this.clientHasRoots) this.emit(this.roots.request());
    }
    // The client's progress on a request the upstream sent it goes back to the upstream.
    if (method === 'notifications/progress' && this.relayed.relaysProgress(params?.progressToken))
      void this.upstream?.notify(method, params).catch(() => {});
    if (method === 'notifications/roots/list_changed' && this.state === 'ready') {
      if (this.clientHasRoots) this.emit(this.roots.request());
      // The upstream was told the client has roots: it hears of the change too.
      void this.upstream?.notify(method, params).catch(() => {});
    }
    if (method === 'notifications/cancelled') {
      const p = CancelledParamsSchema.safeParse(params ?? {});
      // Only a request still in flight is cancelled: a late or unknown id changes nothing.
      const controller = p.success && p.data.requestId !== undefined ? this.inFlight.get(p.data.requestId) : undefined;
      if (controller !== undefined) {
        this.cancelled.add(p.data!.requestId!);
        controller.abort(p.data!.reason ?? 'cancelled');
      }
    }
    // Other notifications (progress, …) need nothing from this edge.
  }

  private params<T>(schema: z.ZodType<T>, params: unknown): T {
    const r = schema.safeParse(params ?? {});
    if (!r.success)
      throw new RpcError(
        INVALID_PARAMS,
        `invalid params: ${r.error.issues.map((i) => `${i.path.join('.') || '$'}: ${i.message}`).join('; ')}`,
      );
    return r.data;
  }

  private async request(req: JsonRpcRequest): Promise<unknown> {
    if (req.method === 'ping') return {};
    if (req.method === 'initialize') return await this.initialize(req);
    if (this.state !== 'ready') {
      throw new RpcError(
        SESSION_NOT_INITIALIZED,
        this.state === 'new'
          ? 'session not initialized: send initialize first'
          : 'session not initialized: send notifications/initialized first',
      );
    }
    switch (req.method) {
      case 'tools/list':
        return this.tools.list(this.params(ListParamsSchema, req.params).cursor);
      case 'tools/call':
        return this.callTool(req);
      case 'tasks/get':
        return this.tasks.get(this.params(TaskIdParamsSchema, req.params).taskId);
      case 'tasks/result':
        return this.tasks.result(this.params(TaskIdParamsSchema, req.params).taskId);
      case 'tasks/list':
        return this.tasks.list(this.params(ListParamsSchema, req.params).cursor);
      case 'tasks/cancel':
        return this.tasks.cancel(this.params(TaskIdParamsSchema, req.params).taskId);
      case 'resources/read':
      case 'resources/subscribe':
        return this.governedMethod(req, { uri: this.params(ResourceParamsSchema, req.params).uri });
      case 'prompts/get': {
        const p = this.params(PromptParamsSchema, req.params);
        return this.governedMethod(req, {
          name: p.name,
          ...(p.arguments === undefined ? {} : { arguments: p.arguments }),
        });
      }
      default:
        if (this.upstream !== undefined && PASSTHROUGH_METHODS.has(req.method)) return this.relay(req);
        throw new RpcError(METHOD_NOT_FOUND, `Method not found: ${req.method}`);
    }
  }

  private async initialize(req: JsonRpcRequest): Promise<unknown> {
    if (this.state !== 'new') throw new RpcError(INVALID_REQUEST, 'session already initialized');
    const p = this.params(InitializeParamsSchema, req.params);
    this.state = 'initializing';
    if (this.options.upstream !== undefined) {
      try {
        this.upstream = await this.options.upstream({
          capabilities: p.capabilities,
          clientInfo: p.clientInfo,
          request: (method, params, signal) => this.relayToClient(method, params, signal),
        });
      } catch (e) {
        this.state = 'new';
        throw new RpcError(
          INTERNAL_ERROR,
          isChioError(e)
            ? `${e.code}: ${e.message}`
            : `cannot connect to the upstream MCP server: ${(e as Error)?.message ?? String(e)}`,
        );
      }
      if (this.ended) {
        void this.upstream.close().catch(() => {});
        throw new RpcError(INTERNAL_ERROR, 'the session ended while it was initializing');
      }
      this.tools = this.toolTable();
      this.unsubscribe = this.upstream.onNotification((n) => this.upstreamNotification(n));
    }
    this.protocolVersion = selectVersion(p.protocolVersion);
    this.capability = this.options.kernel.issueCapability({
      subject: this.agent.publicKeyHex,
      serverIds: this.upstream === undefined ? [] : [this.upstream.manifest.server_id],
    });
    const streaming = (
      p.capabilities.experimental as Record<string, { toolCallChunkNotifications?: unknown } | undefined> | undefined
    )?.[TOOL_STREAMING_KEY];
    this.chunkNotifications = streaming?.toolCallChunkNotifications === true;
    this.clientHasRoots = p.capabilities.roots !== undefined && p.capabilities.roots !== null;
    return initializeResult({
      protocolVersion: this.protocolVersion,
      kernelKey: this.options.kernel.publicKeyHex,
      sessionId: this.sessionId,
      capabilityId: this.capability.id,
      upstream: this.upstream,
      serverInfo: this.options.serverInfo,
    });
  }

  private async relay(req: JsonRpcRequest): Promise<unknown> {
    const controller = new AbortController();
    this.inFlight.set(req.id, controller);
    try {
      return await this.upstream!.forward(req.method, req.params, controller.signal);
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      throw new RpcError(
        typeof code === 'number' ? code : INTERNAL_ERROR,
        (e as Error).message.replace(/^MCP error -?\d+: /, ''),
      );
    } finally {
      this.inFlight.delete(req.id);
    }
  }

  /**
   * resources/read, resources/subscribe, prompts/get: a governed call through the kernel (receipt
   * signed either way). Denied → JSON-RPC error GOVERNED_DENIED with the receipt in `data`, the
   * upstream never asked; an upstream error → its own code; allowed → the upstream's result plus
   * our receipt in `_meta` (governed-results.ts). A method no upstream offers is −32601.
   */
  private async governedMethod(req: JsonRpcRequest, args: Record<string, unknown>): Promise<unknown> {
    const target = this.tools.method(req.method);
    if (target === undefined) throw new RpcError(METHOD_NOT_FOUND, `Method not found: ${req.method}`);
    const controller = new AbortController();
    this.inFlight.set(req.id, controller);
    let r;
    try {
      r = await this.options.kernel.evaluateToolCall(this.callRequest(target, args, String(req.id), controller.signal));
    } finally {
      this.inFlight.delete(req.id);
    }
    return governedMethodResult(r);
  }

  private async callTool(req: JsonRpcRequest): Promise<unknown> {
    const p = this.params(CallToolParamsSchema, req.params);
    const target = this.tools.resolve(p.name);
    // The product's documented wire answer is exactly {code: -32602, message: "unknown tool"}.
    if (target === undefined) throw new RpcError(INVALID_PARAMS, 'unknown tool', { name: p.name });
    if (p.task !== undefined) {
      // Arguments no receipt could carry are refused here, before a task exists, as for a plain
      // call (one more walk of them, on this rarer path only).
      const refusal = nonCanonicalArguments(p.arguments ?? {});
      if (refusal !== undefined) throw refusal;
      // Task-augmented: answer with the working task now; the governed call runs in the background.
      const requestId = `${String(req.id)}-task`;
      return {
        task: this.tasks.start(p.task.ttl ?? null, (signal) =>
          this.governedCall(target, p.arguments ?? {}, requestId, signal),
        ),
      };
    }
    const controller = new AbortController();
    this.inFlight.set(req.id, controller);
    const token = (req.params?._meta as { progressToken?: unknown } | undefined)?.progressToken;
    const onProgress =
      typeof token === 'string' || typeof token === 'number'
        ? (u: { progress: number; total?: number; message?: string }) =>
            this.send('notifications/progress', { progressToken: token, ...u }, req.id)
        : undefined;
    const onChunk = this.chunkNotifications
      ? (data: unknown, index: number) =>
          this.send(TOOL_CHUNK_NOTIFICATION, { requestId: req.id, chunkIndex: index, data }, req.id)
      : undefined;
    try {
      return await this.governedCall(target, p.arguments ?? {}, String(req.id), controller.signal, onProgress, onChunk);
    } catch (e) {
      throw invalidArguments(e, p.arguments ?? {}) ?? e;
    } finally {
      this.inFlight.delete(req.id);
    }
  }

  /** A call on `target` as this session makes it: its capability and agent, its session, its roots as path bases. */
  private callRequest(
    target: Target,
    args: Record<string, unknown>,
    callId: string,
    signal: AbortSignal,
  ): ToolCallRequest {
    return {
      capability: this.capability,
      caller: this.agent.publicKeyHex,
      serverId: target.serverId,
      toolServer: target.server,
      toolName: target.toolName,
      arguments: args,
      requestId: `${this.sessionId}-${callId}`,
      sessionId: this.sessionId,
      pathBases: this.roots.paths,
      signal,
    };
  }

  private async governedCall(
    target: Target,
    args: Record<string, unknown>,
    callId: string,
    signal: AbortSignal,
    onProgress?: (u: { progress: number; total?: number; message?: string }) => void,
    onChunk?: (data: unknown, index: number) => void,
  ): Promise<Record<string, unknown>> {
    const r = await this.options.kernel.evaluateToolCall({
      ...this.callRequest(target, args, callId, signal),
      ...(onProgress === undefined ? {} : { onProgress }),
      // Streamed tools stream when the client negotiated chunk notifications; the receipt's
      // content_hash covers every chunk either way (DESIGN §4).
      ...(onChunk === undefined ? {} : { stream: true, onChunk }),
    });
    return toolCallResult(r, target.passthrough, onChunk !== undefined);
  }
}
