/**
 * Wrapping an existing MCP server (issue 4 item 3): the edge is an MCP client of the upstream
 * (the real SDK client, over stdio or Streamable HTTP), and presents the upstream's tools to the
 * kernel as one ToolServerConnection. The kernel governs every call; the upstream's
 * `CallToolResult` is what the receipt's content_hash covers and what the edge's client gets back.
 * Owns: the upstream connection and tool-list import. The upstream is untrusted: its tool list is
 * validated like any manifest, and its results pass through the canonicaliser before signing.
 * Must not import cli.
 */
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { z } from 'zod';
import { ChioError } from '../../errors.js';
import { ToolManifestSchema } from '../../kernel/index.js';
import type { InvokeContext, ToolManifest, ToolServerConnection } from '../../kernel/index.js';
import { describeIssues } from '../../validation.js';

/** Any JSON object: pass-through results are relayed, not interpreted. */
const PassthroughResultSchema = z.object({}).passthrough();

export type UpstreamTarget = { command: string; args: string[]; env?: Record<string, string>; cwd?: string } | { url: string };

/** Marks a server whose outputs are MCP `CallToolResult`s to pass through as they are. */
export const MCP_RESULT_PASSTHROUGH = Symbol('chio.mcp.result-passthrough');

/**
 * MCP methods the kernel governs like tool calls on the upstream's server id (the method name is the
 * tool name), offered only when the upstream advertises the capability behind them. Their arguments
 * are exactly what is relayed: resources by `{uri}`, prompts by `{name, arguments}`.
 */
export const GOVERNED_METHODS = {
  'resources/read': { capability: 'resources', input_schema: { type: 'object', properties: { uri: { type: 'string' } }, required: ['uri'] } },
  'resources/subscribe': { capability: 'resources.subscribe', input_schema: { type: 'object', properties: { uri: { type: 'string' } }, required: ['uri'] } },
  'prompts/get': { capability: 'prompts', input_schema: { type: 'object', properties: { name: { type: 'string' }, arguments: { type: 'object' } }, required: ['name'] } },
} as const;
export type GovernedMethod = keyof typeof GOVERNED_METHODS;
/** Manifest hint marking a governed method's pseudo-tool (never listed in tools/list, never an ACP capability). */
export const GOVERNED_METHOD_HINT = 'x-chio-mcp-method';

export function isGovernedMethod(name: string): name is GovernedMethod {
  return Object.prototype.hasOwnProperty.call(GOVERNED_METHODS, name);
}

/** The pseudo-tools for the governed methods an upstream's capabilities offer (attacker-controlled: only presence is read). */
function governedTools(capabilities: Record<string, unknown>): Array<Record<string, unknown>> {
  const offered = (path: string): boolean => {
    const [head, sub] = path.split('.');
    const v = capabilities[head!];
    if (v === undefined || v === null || typeof v !== 'object') return false;
    return sub === undefined || (v as Record<string, unknown>)[sub] === true;
  };
  return (Object.keys(GOVERNED_METHODS) as GovernedMethod[]).filter((m) => offered(GOVERNED_METHODS[m].capability)).map((m) => ({
    name: m,
    description: `MCP ${m} (governed by the MCP edge)`,
    input_schema: GOVERNED_METHODS[m].input_schema,
    has_side_effects: false,
    hints: { [GOVERNED_METHOD_HINT]: true, 'x-chio-publish': false },
  }));
}

export class UpstreamMcpServer implements ToolServerConnection {
  readonly [MCP_RESULT_PASSTHROUGH] = true;

  /**
   * @param upstreamTools the upstream's own tool definitions, served unchanged on tools/list so a
   *                      client sees titles, annotations and schemas exactly as the upstream wrote them
   */
  private readonly listeners = new Set<(notification: { method: string; params?: unknown }) => void>();
  private readonly progress = new Map<string, (update: { progress: number; total?: number; message?: string }) => void>();

  private constructor(readonly manifest: ToolManifest, readonly upstreamTools: ReadonlyMap<string, Record<string, unknown>>, private readonly client: Client, transport: Transport) {
    // Progress is taken off the wire before the SDK sees it: the SDK runs notification handlers a
    // microtask late but settles responses at once, so a tool's last progress notification,
    // arriving in the same read as its result, would be dropped. Here it is relayed in order.
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      const m = message as { method?: string; params?: { progressToken?: unknown; progress?: number; total?: number; message?: string } };
      if (m.method === 'notifications/progress' && typeof m.params?.progressToken === 'string') {
        const listener = this.progress.get(m.params.progressToken);
        if (listener !== undefined) {
          const { progressToken: _t, ...update } = m.params;
          listener(update as { progress: number; total?: number; message?: string });
          return;
        }
      }
      deliver?.(message, extra);
    };
    // Notifications the SDK client does not handle itself (logging messages, resource updates,
    // list changes) go to every session that listens.
    client.fallbackNotificationHandler = async (notification) => {
      for (const listener of this.listeners) listener(notification);
    };
  }

  /** Subscribes to the upstream's notifications; returns the unsubscribe function. */
  onNotification(listener: (notification: { method: string; params?: unknown }) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Connects, imports every page of the upstream's tools, and builds the manifest. */
  static async connect(target: UpstreamTarget, serverId: string): Promise<UpstreamMcpServer> {
    const transport: Transport = 'url' in target
      ? new StreamableHTTPClientTransport(new URL(target.url))
      : new StdioClientTransport({ command: target.command, args: target.args, ...(target.env === undefined ? {} : { env: target.env }), ...(target.cwd === undefined ? {} : { cwd: target.cwd }), stderr: 'inherit' });
    const client = new Client({ name: 'chio-mcp-edge', version: '0.1.0' }, { capabilities: {} });
    try {
      await client.connect(transport);
    } catch (e) {
      throw new ChioError('CHIO-MCP-UPSTREAM', `cannot connect to the upstream MCP server: ${(e as Error).message}`, { cause: e });
    }
    const tools: Array<Record<string, unknown>> = [];
    let cursor: string | undefined;
    for (let page = 0; page < 1000; page++) {
      const r = await client.listTools(cursor === undefined ? {} : { cursor });
      tools.push(...(r.tools as Array<Record<string, unknown>>));
      cursor = r.nextCursor;
      if (cursor === undefined) break;
    }
    const info = client.getServerVersion();
    const manifest = ToolManifestSchema.safeParse({
      schema: 'chio.manifest.v1',
      server_id: serverId,
      name: info?.name ?? serverId,
      version: info?.version ?? '0',
      tools: [...tools.map((t) => {
        const annotations = (t['annotations'] ?? {}) as { readOnlyHint?: boolean };
        return {
          name: t['name'],
          description: typeof t['description'] === 'string' ? t['description'] : '',
          input_schema: t['inputSchema'] ?? { type: 'object' },
          ...(t['outputSchema'] === undefined ? {} : { output_schema: t['outputSchema'] }),
          // MCP's default for a tool without annotations is "may have side effects" (readOnlyHint false).
          has_side_effects: annotations.readOnlyHint !== true,
        };
      }),
      // resources/read, resources/subscribe, prompts/get as pseudo-tools, so the kernel's "tool
      // known" step, the capability and the guards judge them. An upstream tool with one of these
      // names makes the names collide and the manifest unusable: fail closed.
      ...governedTools((client.getServerCapabilities() ?? {}) as Record<string, unknown>)],
    });
    if (!manifest.success) {
      await client.close();
      throw new ChioError('CHIO-MCP-UPSTREAM', `the upstream's tool list is not usable: ${describeIssues(manifest.error).join('; ')}`);
    }
    return new UpstreamMcpServer(manifest.data, new Map(tools.map((t) => [t['name'] as string, t])), client, transport);
  }

  /** The upstream's advertised capabilities, minus tools (the edge owns tools). */
  passthroughCapabilities(): Record<string, unknown> {
    const { tools: _t, experimental: _e, tasks: _k, ...rest } = (this.client.getServerCapabilities() ?? {}) as Record<string, unknown>;
    return rest;
  }

  /** The upstream's serverInfo and instructions from its initialize result, as the SDK client parsed them. */
  identity(): { serverInfo?: Record<string, unknown>; instructions?: string } {
    const serverInfo = this.client.getServerVersion() as Record<string, unknown> | undefined;
    const instructions = this.client.getInstructions();
    return { ...(serverInfo === undefined ? {} : { serverInfo }), ...(instructions === undefined ? {} : { instructions }) };
  }

  /** Forwards a non-tool request (resources, prompts, completion, logging) unchanged. */
  forward(method: string, params: Record<string, unknown> | undefined, signal?: AbortSignal): Promise<unknown> {
    return this.client.request({ method, ...(params === undefined ? {} : { params }) } as never, PassthroughResultSchema, signal === undefined ? {} : { signal });
  }

  async invoke(toolName: string, args: unknown, context?: InvokeContext): Promise<unknown> {
    // By the manifest's hint, not the name: an upstream tool may itself be called `prompts/get`
    // when the upstream offers no prompts.
    if (isGovernedMethod(toolName) && this.manifest.tools.find((t) => t.name === toolName)?.hints?.[GOVERNED_METHOD_HINT] === true) {
      // A governed method: relay exactly the arguments the kernel judged.
      const result = await this.forward(toolName, args as Record<string, unknown>, context?.signal);
      const { _meta: _ignored, ...rest } = result as Record<string, unknown>;
      return rest;
    }
    const onProgress = context?.onProgress;
    const token = onProgress === undefined ? undefined : `chio-progress-${randomUUID()}`;
    if (token !== undefined) this.progress.set(token, onProgress!);
    let result;
    try {
      result = await this.client.callTool(
        { name: toolName, arguments: args as Record<string, unknown>, ...(token === undefined ? {} : { _meta: { progressToken: token } }) },
        undefined,
        context?.signal === undefined ? {} : { signal: context.signal },
      );
    } finally {
      if (token !== undefined) this.progress.delete(token);
    }
    // The receipt covers exactly what the client gets: drop the upstream's _meta (ours replaces it).
    const { _meta: _ignored, ...rest } = result as Record<string, unknown>;
    return rest;
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

export function passesMcpResultThrough(server: ToolServerConnection): server is UpstreamMcpServer {
  return (server as Partial<Record<typeof MCP_RESULT_PASSTHROUGH, boolean>>)[MCP_RESULT_PASSTHROUGH] === true;
}
