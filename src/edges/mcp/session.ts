/**
 * One MCP session over the kernel (issue 4 item 1): lifecycle (initialize → notifications/initialized),
 * ping, tools/list with pagination, tools/call through the kernel, cancellation. Transport-agnostic:
 * stdio and Streamable HTTP feed it parsed messages and write what it returns.
 * Each session gets its own agent key, its own capability from the policy, and its own session_id
 * in the ledger. An unknown tool is −32602 before any capability is used; a denied call is a result
 * with isError; every tools/call result carries its receipt id in `_meta`. resources/read,
 * resources/subscribe and prompts/get are governed calls too (the method is the tool name on the
 * upstream's server id); their denial is a JSON-RPC error and the upstream is never asked.
 * Owns: MCP method semantics. Imports the kernel; must not import cli.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { CapabilityToken } from '../../capability/index.js';
import { generateSeed, signerFromSeed } from '../../crypto/index.js';
import type { Ed25519Signer } from '../../crypto/index.js';
import { isChioError } from '../../errors.js';
import type { Kernel } from '../../kernel/index.js';
import { classify, errorResponse, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, resultResponse, RpcError, SESSION_NOT_INITIALIZED } from './jsonrpc.js';
import type { JsonRpcRequest, RequestId } from './jsonrpc.js';
import { ClientRoots } from './roots.js';
import { TaskStore } from './tasks.js';
import { McpToolTable } from './tools.js';

export const SUPPORTED_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;
export const LATEST_PROTOCOL_VERSION = SUPPORTED_PROTOCOL_VERSIONS[0];
/** `_meta` key under which every tools/call result names its receipt. */
export const RECEIPT_META_KEY = 'chio/receipt';
/** Upstream chio's streaming extension: negotiated in initialize, chunks as notifications. */
export const TOOL_STREAMING_KEY = 'chioToolStreaming';
export const TOOL_CHUNK_NOTIFICATION = 'notifications/chio/tool_call_chunk';

// protocolVersion, capabilities and clientInfo may be absent, as upstream's edge accepts them
// (`"params": {}` selects the latest version); when present they must be well-typed.
const InitializeParamsSchema = z.object({
  protocolVersion: z.string().min(1).optional(),
  capabilities: z.record(z.string(), z.unknown()).default({}),
  clientInfo: z.object({ name: z.string(), version: z.string() }).passthrough().optional(),
});
/** Where the error registry the edge's codes come from lives (upstream's errorRegistry block). */
export const ERROR_REGISTRY = { schema: 'chio.error-registry.v1', path: 'spec/errors/chio-error-registry.v1.json' } as const;
const CallToolParamsSchema = z.object({
  name: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()).optional(),
  task: z.object({ ttl: z.number().int().nonnegative().optional() }).passthrough().optional(),
}).passthrough();
const TaskIdParamsSchema = z.object({ taskId: z.string().min(1) }).passthrough();
const ListParamsSchema = z.object({ cursor: z.string().optional() }).passthrough();
// Governed methods' params (attacker-controlled): only what the kernel judges is relayed.
const ResourceParamsSchema = z.object({ uri: z.string().min(1) }).passthrough();
const PromptParamsSchema = z.object({ name: z.string().min(1), arguments: z.record(z.string(), z.string()).optional() }).passthrough();
/** JSON-RPC code of a governed method the kernel denied (the code of the edge's `unknown tool`). */
export const GOVERNED_DENIED = INVALID_PARAMS;
const CancelledParamsSchema = z.object({ requestId: z.union([z.string(), z.number()]).optional(), reason: z.string().optional() }).passthrough();

/** An upstream whose resources, prompts, completion and logging the edge relays unchanged. */
export interface McpPassthrough {
  passthroughCapabilities(): Record<string, unknown>;
  forward(method: string, params: Record<string, unknown> | undefined, signal?: AbortSignal): Promise<unknown>;
  onNotification?(listener: (notification: { method: string; params?: unknown }) => void): () => void;
  /** The upstream's own initialize identity, presented as the edge's (the client sees the server it configured). */
  identity?(): UpstreamIdentity;
}

/** What an upstream said about itself in its initialize result (attacker-controlled: validated before use). */
export interface UpstreamIdentity {
  serverInfo?: Record<string, unknown> | undefined;
  instructions?: string | undefined;
}

/** MCP `Implementation`: name and version required; title, websiteUrl, icons… pass through as the upstream wrote them. */
const ServerInfoSchema = z.object({ name: z.string(), version: z.string(), title: z.string().optional() }).passthrough();

/** Upstream notifications relayed to the client (tools/list_changed is not: the edge owns the tool list). */
export const RELAYED_NOTIFICATIONS = new Set([
  'notifications/message', 'notifications/resources/updated', 'notifications/resources/list_changed', 'notifications/prompts/list_changed',
]);

/** Methods relayed to the upstream as they are (issue 4: the client sees the upstream's full surface); resources/read, resources/subscribe and prompts/get are governed instead. */
export const PASSTHROUGH_METHODS = new Set([
  'resources/list', 'resources/templates/list', 'resources/unsubscribe',
  'prompts/list', 'completion/complete', 'logging/setLevel',
]);

export interface McpSessionOptions {
  kernel: Kernel;
  passthrough?: McpPassthrough | undefined;
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
  private readonly tools: McpToolTable;
  private readonly tasks = new TaskStore();

  private outbound: ((message: object) => void) | undefined;
  private chunkNotifications = false;
  /** The client declared the roots capability; its roots are bases for relative paths (roots.ts). */
  private clientHasRoots = false;
  private readonly roots = new ClientRoots();
  private readonly unsubscribe: (() => void) | undefined;

  constructor(private readonly options: McpSessionOptions) {
    this.tools = new McpToolTable(options.kernel, options.pageSize ?? 50, options.nullNextCursor === true);
    this.unsubscribe = options.passthrough?.onNotification?.((n) => {
      if (RELAYED_NOTIFICATIONS.has(n.method) && this.state === 'ready') this.send(n.method, n.params);
    });
  }

  /** Where server-to-client notifications go (the transport sets it). */
  setOutbound(sink: (message: object) => void): void {
    this.outbound = sink;
  }

  /** Stops relaying upstream notifications to this session. */
  close(): void {
    this.unsubscribe?.();
  }

  private send(method: string, params: unknown): void {
    this.outbound?.({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) });
  }

  get negotiatedVersion(): string {
    return this.protocolVersion;
  }

  /** Handles one parsed message; returns the response to send, or null (notifications, responses). */
  async handle(value: unknown): Promise<object | null> {
    const incoming = classify(value);
    switch (incoming.kind) {
      case 'invalid':
        return errorResponse(incoming.id, INVALID_REQUEST, incoming.reason);
      case 'response':
        this.roots.accept(incoming.message);
        return null;
      case 'notification':
        this.notify(incoming.message.method, incoming.message.params);
        return null;
      case 'request': {
        const id = incoming.message.id;
        let response: object;
        try {
          response = resultResponse(id, await this.request(incoming.message));
        } catch (e) {
          if (e instanceof RpcError) response = errorResponse(id, e.code, e.message, e.data);
          else response = errorResponse(id, INTERNAL_ERROR, isChioError(e) ? `${e.code}: ${e.message}` : 'internal error');
        }
        // MCP cancellation: the receiver SHOULD NOT respond to a cancelled request. The call's
        // receipt (decision `cancelled`) is already in the ledger; the client has moved on.
        if (this.cancelled.delete(id)) return null;
        return response;
      }
    }
  }

  private notify(method: string, params: Record<string, unknown> | undefined): void {
    if (method === 'notifications/initialized' && this.state === 'initializing') {
      this.state = 'ready';
      if (this.clientHasRoots) this.outbound?.(this.roots.request());
    }
    if (method === 'notifications/roots/list_changed' && this.clientHasRoots && this.state === 'ready') this.outbound?.(this.roots.request());
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
    if (!r.success) throw new RpcError(INVALID_PARAMS, `invalid params: ${r.error.issues.map((i) => `${i.path.join('.') || '$'}: ${i.message}`).join('; ')}`);
    return r.data;
  }

  private async request(req: JsonRpcRequest): Promise<unknown> {
    if (req.method === 'ping') return {};
    if (req.method === 'initialize') return this.initialize(req);
    if (this.state !== 'ready') {
      throw new RpcError(SESSION_NOT_INITIALIZED, this.state === 'new' ? 'session not initialized: send initialize first' : 'session not initialized: send notifications/initialized first');
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
        return this.governedMethod(req, { name: p.name, ...(p.arguments === undefined ? {} : { arguments: p.arguments }) });
      }
      default:
        if (this.options.passthrough !== undefined && PASSTHROUGH_METHODS.has(req.method)) return this.relay(req);
        throw new RpcError(METHOD_NOT_FOUND, `Method not found: ${req.method}`);
    }
  }

  private initialize(req: JsonRpcRequest): unknown {
    if (this.state !== 'new') throw new RpcError(INVALID_REQUEST, 'session already initialized');
    const p = this.params(InitializeParamsSchema, req.params);
    // MCP lifecycle: answer the requested version if supported, else our latest.
    this.protocolVersion = p.protocolVersion !== undefined && (SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(p.protocolVersion) ? p.protocolVersion : LATEST_PROTOCOL_VERSION;
    this.capability = this.options.kernel.issueCapability({ subject: this.agent.publicKeyHex });
    const streaming = (p.capabilities['experimental'] as Record<string, { toolCallChunkNotifications?: unknown } | undefined> | undefined)?.[TOOL_STREAMING_KEY];
    this.chunkNotifications = streaming?.toolCallChunkNotifications === true;
    this.clientHasRoots = p.capabilities['roots'] !== undefined && p.capabilities['roots'] !== null;
    this.state = 'initializing';
    // A wrapped server is presented as itself: its name, title, version and instructions (the
    // edge shows itself only in capabilities.experimental.chioProtocol).
    const identity = this.options.passthrough?.identity?.() ?? {};
    const info = ServerInfoSchema.safeParse(identity.serverInfo);
    const upstream = { serverInfo: info.success ? info.data : undefined, instructions: typeof identity.instructions === 'string' ? identity.instructions : undefined };
    return {
      protocolVersion: this.protocolVersion,
      capabilities: {
        ...this.options.passthrough?.passthroughCapabilities(),
        tools: { listChanged: false },
        tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
        experimental: {
          chioProtocol: {
            supportedProtocolVersions: [...SUPPORTED_PROTOCOL_VERSIONS],
            selectedProtocolVersion: this.protocolVersion,
            compatibility: 'exact_match',
            downgradeBehavior: 'reject',
            errorRegistry: { ...ERROR_REGISTRY },
            requestIdentity: { requestBoundArtifactsRequireStableId: true, stableRequestIdMetaField: 'chioRequestId' },
            receiptSchema: 'chio.receipt.v1', kernelKey: this.options.kernel.publicKeyHex, sessionId: this.sessionId, capabilityId: this.capability.id,
          },
          // experimental entries must be objects (the MCP schema types them as Record<string, object>)
          [TOOL_STREAMING_KEY]: { toolCallChunkNotifications: true },
        },
      },
      serverInfo: this.options.serverInfo ?? upstream.serverInfo ?? { name: 'chio-mcp-edge', version: '0.1.0' },
      ...(upstream.instructions === undefined ? {} : { instructions: upstream.instructions }),
    };
  }

  private async relay(req: JsonRpcRequest): Promise<unknown> {
    const controller = new AbortController();
    this.inFlight.set(req.id, controller);
    try {
      return await this.options.passthrough!.forward(req.method, req.params, controller.signal);
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      throw new RpcError(typeof code === 'number' ? code : INTERNAL_ERROR, (e as Error).message.replace(/^MCP error -?\d+: /, ''));
    } finally {
      this.inFlight.delete(req.id);
    }
  }

  /**
   * resources/read, resources/subscribe, prompts/get: a governed call through the kernel (receipt
   * signed either way). Denied → JSON-RPC error GOVERNED_DENIED with the receipt in `data`, the
   * upstream never asked; an upstream error → its own code; allowed → the upstream's result plus
   * our receipt in `_meta`. A method no upstream offers is −32601, as before.
   */
  private async governedMethod(req: JsonRpcRequest, args: Record<string, unknown>): Promise<unknown> {
    const target = this.tools.method(req.method);
    if (target === undefined) throw new RpcError(METHOD_NOT_FOUND, `Method not found: ${req.method}`);
    const controller = new AbortController();
    this.inFlight.set(req.id, controller);
    let r;
    try {
      r = await this.options.kernel.evaluateToolCall({
        capability: this.capability,
        caller: this.agent.publicKeyHex,
        serverId: target.serverId,
        toolName: target.toolName,
        arguments: args,
        requestId: `${this.sessionId}-${String(req.id)}`,
        sessionId: this.sessionId,
        pathBases: this.roots.paths,
        signal: controller.signal,
      });
    } finally {
      this.inFlight.delete(req.id);
    }
    const receipt = { id: r.receipt.id, decision: r.receipt.decision?.verdict ?? null, seq: r.entry.seq };
    if (!r.ok) {
      if (r.verdict === 'deny') {
        throw new RpcError(GOVERNED_DENIED, `denied: ${r.guard === undefined ? r.reason : `${r.reason} (${r.guard})`}`, { decision: 'deny', reason: r.reason, guard: r.guard ?? null, [RECEIPT_META_KEY]: receipt });
      }
      // The upstream's own error (resource not found, …) keeps its code; the receipt says incomplete.
      const upstream = /MCP error (-?\d+): (.*)$/s.exec(r.reason);
      throw new RpcError(upstream === null ? INTERNAL_ERROR : Number(upstream[1]), upstream === null ? r.reason : upstream[2]!, { [RECEIPT_META_KEY]: receipt });
    }
    return { ...(r.output as Record<string, unknown>), _meta: { [RECEIPT_META_KEY]: receipt } };
  }

  private async callTool(req: JsonRpcRequest): Promise<unknown> {
    const p = this.params(CallToolParamsSchema, req.params);
    const target = this.tools.resolve(p.name);
    // The product's documented wire answer is exactly {code: -32602, message: "unknown tool"}.
    if (target === undefined) throw new RpcError(INVALID_PARAMS, 'unknown tool', { name: p.name });
    if (p.task !== undefined) {
      // Task-augmented: answer with the working task now; the governed call runs in the background.
      const requestId = `${String(req.id)}-task`;
      return { task: this.tasks.start(p.task.ttl ?? null, (signal) => this.governedCall(target, p.arguments ?? {}, requestId, signal)) };
    }
    const controller = new AbortController();
    this.inFlight.set(req.id, controller);
    const token = (req.params?.['_meta'] as { progressToken?: unknown } | undefined)?.progressToken;
    const onProgress = typeof token === 'string' || typeof token === 'number'
      ? (u: { progress: number; total?: number; message?: string }) => this.send('notifications/progress', { progressToken: token, ...u })
      : undefined;
    const onChunk = this.chunkNotifications ? (data: unknown, index: number) => this.send(TOOL_CHUNK_NOTIFICATION, { requestId: req.id, chunkIndex: index, data }) : undefined;
    try {
      return await this.governedCall(target, p.arguments ?? {}, String(req.id), controller.signal, onProgress, onChunk);
    } finally {
      this.inFlight.delete(req.id);
    }
  }

  private async governedCall(target: { serverId: string; toolName: string; passthrough: boolean }, args: Record<string, unknown>, callId: string, signal: AbortSignal, onProgress?: (u: { progress: number; total?: number; message?: string }) => void, onChunk?: (data: unknown, index: number) => void): Promise<Record<string, unknown>> {
    const r = await this.options.kernel.evaluateToolCall({
      capability: this.capability,
      caller: this.agent.publicKeyHex,
      serverId: target.serverId,
      toolName: target.toolName,
      arguments: args,
      requestId: `${this.sessionId}-${callId}`,
      sessionId: this.sessionId,
      pathBases: this.roots.paths,
      signal,
      ...(onProgress === undefined ? {} : { onProgress }),
      // Streamed tools stream when the client negotiated chunk notifications; the receipt's
      // content_hash covers every chunk either way (DESIGN §4).
      ...(onChunk === undefined ? {} : { stream: true, onChunk }),
    });
    const meta = { [RECEIPT_META_KEY]: { id: r.receipt.id, decision: r.receipt.decision?.verdict ?? null, seq: r.entry.seq } };
    if (!r.ok) return { content: [{ type: 'text', text: r.guard === undefined ? r.reason : `${r.reason} (${r.guard})` }], isError: true, _meta: meta };
    if (target.passthrough) return { ...(r.output as Record<string, unknown>), _meta: meta };
    const structured = onChunk !== undefined && Array.isArray(r.output) ? { chunks: r.output } : r.output !== null && typeof r.output === 'object' && !Array.isArray(r.output) ? r.output : { result: r.output ?? null };
    return { content: [{ type: 'text', text: JSON.stringify(r.output ?? null) }], structuredContent: structured, isError: false, _meta: meta };
  }
}
