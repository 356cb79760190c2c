/**
 * Wrapping an existing MCP server: the edge is an MCP client of the upstream (the real SDK client,
 * over stdio or Streamable HTTP), one connection per edge session, made when that session's client
 * initializes. The upstream sees the client as it is: the edge declares to it exactly the roots,
 * sampling and elicitation capabilities the client declared, and relays the requests the upstream
 * sends the client (sampling/createMessage, elicitation/create, roots/list, ping) to that client,
 * with their params as the upstream wrote them. To the kernel the connection is one
 * ToolServerConnection whose manifest follows the upstream's `notifications/tools/list_changed`.
 * The upstream's `CallToolResult` is what the receipt's content_hash covers and what the client
 * gets back. A tool whose `execution.taskSupport` is `required` is run as an upstream task.
 * Owns: the upstream connection. The upstream is untrusted: its tool list is validated like any
 * manifest (upstream-tools.ts), its results pass through the canonicaliser before signing.
 * Must not import cli or the session.
 */
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  PingRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ChioError } from '../../errors.js';
import type { InvokeContext, ToolManifest, ToolServerConnection } from '../../kernel/index.js';
import { GOVERNED_METHOD_HINT, isGovernedMethod, listAllTools, upstreamManifest } from './upstream-tools.js';
import { isolatedAbortFetch } from '../../isolated-abort-fetch.js';

export { GOVERNED_METHODS, GOVERNED_METHOD_HINT, isGovernedMethod } from './upstream-tools.js';
export type { GovernedMethod } from './upstream-tools.js';

/** Any JSON object: pass-through results are relayed, not interpreted. */
const PassthroughResultSchema = z.object({}).passthrough();

export type UpstreamTarget =
  | { command: string; args: string[]; env?: Record<string, string>; cwd?: string }
  | { url: string };

/** Marks a server whose outputs are MCP `CallToolResult`s to pass through as they are. */
export const MCP_RESULT_PASSTHROUGH = Symbol('chio.mcp.result-passthrough');

/** The requests an upstream may send the client, each behind the client capability that allows it (ping needs none). */
export const RELAYED_REQUESTS = [
  { method: 'sampling/createMessage', schema: CreateMessageRequestSchema, capability: 'sampling' },
  { method: 'elicitation/create', schema: ElicitRequestSchema, capability: 'elicitation' },
  { method: 'roots/list', schema: ListRootsRequestSchema, capability: 'roots' },
  { method: 'ping', schema: PingRequestSchema, capability: undefined },
] as const;

/** The edge's client as the upstream is to see it. */
export interface UpstreamClientSide {
  /** The capabilities the client declared in its initialize (attacker-controlled: only roots, sampling and elicitation are passed on). */
  capabilities: Record<string, unknown>;
  clientInfo?: { name: string; version: string } | undefined;
  /** Relays a request the upstream sent to the client; resolves with the client's result, rejects with its error. */
  request(
    method: string,
    params: Record<string, unknown> | undefined,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>>;
}

/** The client capabilities declared upstream: the client's own roots, sampling and elicitation, nothing it did not declare. */
export function declaredUpstream(capabilities: Record<string, unknown>): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const name of ['roots', 'sampling', 'elicitation']) {
    const v = capabilities[name];
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) out[name] = v as Record<string, unknown>;
  }
  return out;
}

type Listener = (notification: { method: string; params?: unknown }) => void;

export class UpstreamMcpServer implements ToolServerConnection {
  readonly [MCP_RESULT_PASSTHROUGH] = true;
  private readonly listeners = new Set<Listener>();
  private readonly progress = new Map<
    string,
    (update: { progress: number; total?: number; message?: string }) => void
  >();
  /** Params of the upstream's requests to the client, as they came off the wire (the SDK's parse may drop members). */
  private readonly rawParams = new Map<string | number, Record<string, unknown> | undefined>();
  /** The upstream's requests to the client still being answered, by the upstream's id. */
  private readonly relayedInFlight = new Map<string | number, AbortController>();
  private refreshing: Promise<void> = Promise.resolve();
  private current: { manifest: ToolManifest; tools: ReadonlyMap<string, Record<string, unknown>> } | undefined;

  private constructor(
    private readonly serverId: string,
    private readonly client: Client,
    private readonly transport: Transport,
    side: UpstreamClientSide | undefined,
  ) {
    // Handlers exist before connect: an upstream may ask (roots/list) as soon as it is initialized.
    if (side !== undefined) {
      const declared = declaredUpstream(side.capabilities);
      for (const r of RELAYED_REQUESTS) {
        if (r.capability !== undefined && declared[r.capability] === undefined) continue;
        client.setRequestHandler(r.schema as typeof PingRequestSchema, async (request, extra) => {
          const raw = this.rawParams.get(extra.requestId);
          this.rawParams.delete(extra.requestId);
          // Cancelled by the SDK's signal, or by tap() (the SDK ignores a cancellation of request id 0).
          const controller = new AbortController();
          const abort = () => controller.abort(extra.signal.reason);
          extra.signal.addEventListener('abort', abort, { once: true });
          this.relayedInFlight.set(extra.requestId, controller);
          try {
            return (await side.request(
              r.method,
              raw ?? (request.params as Record<string, unknown> | undefined),
              controller.signal,
            )) as never;
          } finally {
            extra.signal.removeEventListener('abort', abort);
            this.relayedInFlight.delete(extra.requestId);
          }
        });
      }
    }
    // Notifications the SDK client does not handle itself (logging messages, resource updates,
    // list changes) go to every listener; a tool list change is read first, so a listener that
    // rebuilds its view sees the new list.
    client.fallbackNotificationHandler = async (notification) => {
      if (notification.method === 'notifications/tools/list_changed' && this.current !== undefined) {
        this.refreshing = this.refreshing.then(() => this.refreshTools());
        await this.refreshing;
      }
      for (const listener of this.listeners) listener(notification);
    };
  }

  /** Wraps the connected transport's message handler (see the comment inside). */
  private tap(transport: Transport): void {
    // Progress is taken off the wire before the SDK sees it: the SDK runs notification handlers a
    // microtask late but settles responses at once, so a tool's last progress notification,
    // arriving in the same read as its result, would be dropped. Here it is relayed in order.
    // The params of the upstream's requests are kept as they came (the SDK's parse may drop members).
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      const m = message as {
        id?: string | number;
        method?: string;
        params?: { progressToken?: unknown; progress?: number; total?: number; message?: string };
      };
      if (m.method === 'notifications/progress' && typeof m.params?.progressToken === 'string') {
        const listener = this.progress.get(m.params.progressToken);
        if (listener !== undefined) {
          const { progressToken: _t, ...update } = m.params;
          listener(update as { progress: number; total?: number; message?: string });
          return;
        }
      }
      if (m.method !== undefined && m.id !== undefined && RELAYED_REQUESTS.some((r) => r.method === m.method))
        this.rawParams.set(m.id, m.params as Record<string, unknown> | undefined);
      if (m.method === 'notifications/cancelled') {
        const p = m.params as { requestId?: unknown; reason?: unknown } | undefined;
        const id = p?.requestId;
        if (typeof id === 'string' || typeof id === 'number')
          this.relayedInFlight.get(id)?.abort(typeof p?.reason === 'string' ? p.reason : 'cancelled by the server');
      }
      deliver?.(message, extra);
    };
  }

  /** The kernel's view of the upstream's tools now (it changes on the upstream's list_changed). */
  get manifest(): ToolManifest {
    return this.loaded().manifest;
  }

  private loaded(): { manifest: ToolManifest; tools: ReadonlyMap<string, Record<string, unknown>> } {
    if (this.current === undefined)
      throw new ChioError('CHIO-MCP-UPSTREAM', "the upstream's tools are not imported yet");
    return this.current;
  }

  /** The upstream's own tool definitions, served unchanged on tools/list (titles, annotations, schemas as the upstream wrote them). */
  get upstreamTools(): ReadonlyMap<string, Record<string, unknown>> {
    return this.loaded().tools;
  }

  /** Subscribes to the upstream's notifications; returns the unsubscribe function. */
  onNotification(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Connects (declaring the client's capabilities when `side` is given), imports every page of the
   * upstream's tools, and builds the manifest.
   */
  static async connect(
    target: UpstreamTarget,
    serverId: string,
    side?: UpstreamClientSide,
  ): Promise<UpstreamMcpServer> {
    const transport: Transport =
      'url' in target
        ? new StreamableHTTPClientTransport(new URL(target.url), { fetch: isolatedAbortFetch() })
        : new StdioClientTransport({
            command: target.command,
            args: target.args,
            ...(target.env === undefined ? {} : { env: target.env }),
            ...(target.cwd === undefined ? {} : { cwd: target.cwd }),
            stderr: 'inherit',
          });
    const client = new Client(side?.clientInfo ?? { name: 'chio-mcp-edge', version: '0.1.0' }, {
      capabilities: declaredUpstream(side?.capabilities ?? {}),
    });
    const server = new UpstreamMcpServer(serverId, client, transport, side);
    try {
      await client.connect(transport);
    } catch (e) {
      await client.close().catch(() => {});
      throw new ChioError('CHIO-MCP-UPSTREAM', `cannot connect to the upstream MCP server: ${(e as Error).message}`, {
        cause: e,
      });
    }
    server.tap(transport);
    try {
      await server.refreshing;
      await server.loadTools();
      return server;
    } catch (e) {
      await client.close().catch(() => {});
      throw e;
    }
  }

  /** Reads every page of the upstream's tools and takes them with their manifest; throws CHIO-MCP-UPSTREAM when unusable (nothing taken). */
  private async loadTools(): Promise<void> {
    const tools = await listAllTools(this.client);
    this.current = {
      manifest: upstreamManifest(this.serverId, this.client, tools),
      tools: new Map(tools.map((t) => [t.name as string, t])),
    };
  }

  /** Re-reads the upstream's tools after it said they changed; an unusable new list keeps the last one (nothing new becomes callable ungoverned). */
  private async refreshTools(): Promise<void> {
    try {
      await this.loadTools();
    } catch (e) {
      process.stderr.write(
        `chio: the upstream's changed tool list was not taken (the previous one stays): ${(e as Error).message}\n`,
      );
    }
  }

  /** The upstream's advertised capabilities, minus tools and tasks (the edge owns both). */
  passthroughCapabilities(): Record<string, unknown> {
    const {
      tools: _t,
      experimental: _e,
      tasks: _k,
      ...rest
    } = (this.client.getServerCapabilities() ?? {}) as Record<string, unknown>;
    return rest;
  }

  /** Whether the upstream says its tool list may change (the edge then says so too). */
  toolsListChanged(): boolean {
    const tools = this.client.getServerCapabilities()?.tools as { listChanged?: unknown } | undefined;
    return tools?.listChanged === true;
  }

  /** The upstream's serverInfo and instructions from its initialize result, as the SDK client parsed them. */
  identity(): { serverInfo?: Record<string, unknown>; instructions?: string } {
    const serverInfo = this.client.getServerVersion() as Record<string, unknown> | undefined;
    const instructions = this.client.getInstructions();
    return {
      ...(serverInfo === undefined ? {} : { serverInfo }),
      ...(instructions === undefined ? {} : { instructions }),
    };
  }

  /** Forwards a non-tool request (resources, prompts, completion, logging) unchanged. */
  forward(method: string, params: Record<string, unknown> | undefined, signal?: AbortSignal): Promise<unknown> {
    return this.client.request(
      { method, ...(params === undefined ? {} : { params }) } as never,
      PassthroughResultSchema,
      signal === undefined ? {} : { signal },
    );
  }

  /** Sends the upstream a notification from the client (progress on a relayed request). */
  notify(method: string, params: Record<string, unknown> | undefined): Promise<void> {
    return this.client.notification({ method, ...(params === undefined ? {} : { params }) } as never);
  }

  async invoke(toolName: string, args: unknown, context?: InvokeContext): Promise<unknown> {
    // By the manifest's hint, not the name: an upstream tool may itself be called `prompts/get`
    // when the upstream offers no prompts.
    if (
      isGovernedMethod(toolName) &&
      this.manifest.tools.find((t) => t.name === toolName)?.hints?.[GOVERNED_METHOD_HINT] === true
    ) {
      // A governed method: relay exactly the arguments the kernel judged.
      const result = await this.forward(toolName, args as Record<string, unknown>, context?.signal);
      const { _meta: _ignored, ...rest } = result as Record<string, unknown>;
      return rest;
    }
    const onProgress = context?.onProgress;
    const token = onProgress === undefined ? undefined : `chio-progress-${randomUUID()}`;
    if (token !== undefined) this.progress.set(token, onProgress!);
    const params = {
      name: toolName,
      arguments: args as Record<string, unknown>,
      ...(token === undefined ? {} : { _meta: { progressToken: token } }),
    };
    const options = context?.signal === undefined ? {} : { signal: context.signal };
    let result;
    try {
      result = this.taskRequired(toolName)
        ? await this.callAsTask(params, options)
        : await this.client.callTool(params, undefined, options);
    } finally {
      if (token !== undefined) this.progress.delete(token);
    }
    // The receipt covers exactly what the client gets: drop the upstream's _meta (ours replaces it).
    const { _meta: _ignored, ...rest } = result as Record<string, unknown>;
    return rest;
  }

  private taskRequired(toolName: string): boolean {
    return (
      (this.loaded().tools.get(toolName)?.execution as { taskSupport?: unknown } | undefined)?.taskSupport ===
      'required'
    );
  }

  /** MCP tasks (2025-11-25): a task-augmented tools/call, polled to its result (the SDK's task stream). */
  private async callAsTask(
    params: { name: string; arguments: Record<string, unknown> },
    options: { signal?: AbortSignal },
  ): Promise<unknown> {
    for await (const message of this.client.experimental.tasks.callToolStream(params, undefined, {
      ...options,
      task: {},
    })) {
      if (message.type === 'result') return message.result;
      if (message.type === 'error') throw message.error;
    }
    throw new ChioError('CHIO-MCP-UPSTREAM', `the upstream's task for ${params.name} ended without a result`);
  }

  /** Ends the connection: an HTTP upstream's session is ended (DELETE) first, a stdio upstream's process stopped. */
  async close(): Promise<void> {
    if (this.transport instanceof StreamableHTTPClientTransport)
      await this.transport.terminateSession().catch(() => {});
    await this.client.close();
  }
}

export function passesMcpResultThrough(server: ToolServerConnection): server is UpstreamMcpServer {
  return (server as Partial<Record<typeof MCP_RESULT_PASSTHROUGH, boolean>>)[MCP_RESULT_PASSTHROUGH] === true;
}
