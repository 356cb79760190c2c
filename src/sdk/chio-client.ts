/**
 * `ChioClient`: a governed MCP session with a hosted Chio edge (`chio mcp serve-http`), built on
 * the MCP SDK's client (not a second MCP implementation). `initialize()` makes the `initialize`
 * request and sends `notifications/initialized` in one call; each `callTool` result carries the
 * id, verdict and ledger seq of the receipt the call produced (`_meta["chio/receipt"]`).
 * Owns: the SDK's session surface. Imports the MCP SDK client, zod, src/errors and
 * src/isolated-abort-fetch only.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ChioError } from '../errors.js';
import { isolatedAbortFetch } from '../isolated-abort-fetch.js';

/** What the edge says about the receipt of a call (the full receipt: ReceiptQueryClient.get(id)). */
const ReceiptRefSchema = z.object({
  id: z.string(),
  decision: z.string().nullable(),
  seq: z.number().int().positive(),
});
export type ReceiptRef = z.infer<typeof ReceiptRefSchema>;

export type GovernedToolResult = CallToolResult & {
  /** The receipt this call left in the ledger; null only when the answer carried none (not a Chio edge). */
  receipt: ReceiptRef | null;
};

const CLIENT_INFO = { name: 'chio-sdk', version: '0.1.0' };

export class ChioSession {
  /** @internal */
  constructor(private readonly client: Client) {}

  /** Every tool the edge offers (all pages). */
  async listTools(): Promise<Tool[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.client.listTools(cursor === undefined ? {} : { cursor });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return tools;
  }

  /**
   * A governed call. A denial is a result with `isError: true` and a `deny` receipt; a refusal the
   * edge answers as a JSON-RPC error (an unknown tool, say) rejects with the MCP SDK's McpError,
   * whose `code` and `data` are the edge's.
   */
  async callTool(name: string, args: Record<string, unknown> = {}): Promise<GovernedToolResult> {
    const result = (await this.client.callTool({ name, arguments: args })) as CallToolResult;
    const ref = ReceiptRefSchema.safeParse((result._meta as Record<string, unknown> | undefined)?.['chio/receipt']);
    return { ...result, receipt: ref.success ? ref.data : null };
  }

  /** Ends the MCP session (the edge stops its upstream for it). */
  async close(): Promise<void> {
    await this.client.close();
  }
}

export class ChioClient {
  private constructor(
    private readonly endpoint: URL,
    private readonly token: string,
  ) {}

  /**
   * A client that sends `Authorization: Bearer <token>` on every request. `url` is the edge's base
   * URL (`http://127.0.0.1:8931`, the MCP endpoint `/mcp` is added) or the endpoint itself.
   */
  static withStaticBearer(url: string, token: string): ChioClient {
    let endpoint: URL;
    try {
      endpoint = new URL(url);
    } catch (e) {
      throw new ChioError('CHIO-SDK-RESPONSE', `not a URL: ${url}`, { cause: e });
    }
    if (!endpoint.pathname.endsWith('/mcp'))
      endpoint = new URL(`${endpoint.pathname.replace(/\/$/, '')}/mcp`, endpoint);
    return new ChioClient(endpoint, token);
  }

  /** Connects and initializes one MCP session (`initialize` and `notifications/initialized`). */
  async initialize(): Promise<ChioSession> {
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    const transport = new StreamableHTTPClientTransport(this.endpoint, {
      // Each request on a signal of its own: a long session does not pile up Node fetch's abort listeners.
      fetch: isolatedAbortFetch(),
      requestInit: { headers: { authorization: `Bearer ${this.token}` } },
    });
    try {
      await client.connect(transport);
    } catch (e) {
      await client.close().catch(() => {});
      throw new ChioError(
        'CHIO-SDK-RESPONSE',
        `cannot initialize an MCP session with ${this.endpoint.href}: ${(e as Error).message}`,
        { cause: e },
      );
    }
    return new ChioSession(client);
  }
}
