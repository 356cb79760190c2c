/**
 * The MCP view of one session's tool servers (the kernel's registered servers and the session's
 * own upstream connection): `tools/list` pages (opaque cursors, invalid ones refused) and the map
 * from an MCP tool name back to (server, tool). Tool names must be unique across the servers one
 * edge serves. Built again when an upstream's tool list changes.
 * Owns: MCP tool shapes. Imports the kernel types only.
 */
import type { ToolServerConnection } from '../../kernel/index.js';
import { INVALID_PARAMS, RpcError } from './jsonrpc.js';
import { GOVERNED_METHOD_HINT } from './upstream-tools.js';
import { passesMcpResultThrough } from './upstream.js';

interface Entry {
  server: ToolServerConnection;
  serverId: string;
  toolName: string;
  mcp: Record<string, unknown>;
  /** Upstream MCP server: its CallToolResult goes back to the client as it is. */
  passthrough: boolean;
}

/** Where a tool call goes: the connection, its server id and tool name, and whether its result is an MCP CallToolResult to pass through. */
export type Target = Omit<Entry, 'mcp'>;

export class McpToolTable {
  private readonly entries: Entry[] = [];
  private readonly byName = new Map<string, Entry>();
  /** Governed MCP methods (resources/read, …) → the upstream server whose pseudo-tool they are. */
  private readonly methods = new Map<string, Target>();

  constructor(
    servers: readonly ToolServerConnection[],
    private readonly pageSize: number,
    private readonly nullNextCursor = false,
  ) {
    for (const server of servers) {
      for (const t of server.manifest.tools) {
        if (passesMcpResultThrough(server) && t.hints?.[GOVERNED_METHOD_HINT] === true) {
          if (this.methods.has(t.name)) throw new Error(`${t.name} is offered by two upstreams; an MCP edge needs one`);
          this.methods.set(t.name, {
            server,
            serverId: server.manifest.server_id,
            toolName: t.name,
            passthrough: true,
          });
          continue;
        }
        if (this.byName.has(t.name))
          throw new Error(`tool ${t.name} is offered by two servers; an MCP edge needs unique names`);
        const mcp: Record<string, unknown> = {
          name: t.name,
          description: t.description,
          inputSchema: { type: 'object', ...t.input_schema },
          annotations: { readOnlyHint: !t.has_side_effects, destructiveHint: t.has_side_effects },
          execution: { taskSupport: 'optional' },
        };
        if (t.output_schema !== undefined) mcp.outputSchema = { type: 'object', ...t.output_schema };
        const passthrough = passesMcpResultThrough(server);
        const entry = {
          server,
          serverId: server.manifest.server_id,
          toolName: t.name,
          mcp: passthrough ? (server.upstreamTools.get(t.name) ?? mcp) : mcp,
          passthrough,
        };
        this.entries.push(entry);
        this.byName.set(t.name, entry);
      }
    }
  }

  resolve(name: string): Target | undefined {
    return this.byName.get(name);
  }

  /** The server that governs an MCP method (resources/read, resources/subscribe, prompts/get), if any offers it. */
  method(name: string): Target | undefined {
    return this.methods.get(name);
  }

  list(cursor: string | undefined): { tools: unknown[]; nextCursor?: string | null } {
    let start = 0;
    if (cursor !== undefined) {
      const m = /^o:(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
      if (m === null || Number(m[1]) > this.entries.length) throw new RpcError(INVALID_PARAMS, 'invalid cursor');
      start = Number(m[1]);
    }
    const page = this.entries.slice(start, start + this.pageSize).map((e) => e.mcp);
    const next = start + this.pageSize;
    if (next < this.entries.length) return { tools: page, nextCursor: Buffer.from(`o:${next}`).toString('base64url') };
    return this.nullNextCursor ? { tools: page, nextCursor: null } : { tools: page };
  }
}
