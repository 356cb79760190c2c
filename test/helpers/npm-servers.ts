/**
 * The compatibility suite's side of a comparison: real npm MCP servers reached three ways (directly,
 * through `chio mcp serve`, through `chio mcp serve-http`) by the same real SDK client, and what that
 * client can observe of a server (identity, capabilities, lists, results) in a form two routes can be
 * compared in. The client answers the server's roots/sampling/elicitation requests deterministically
 * and logs each one, so a relayed request can be compared with the direct one too.
 * Owns: routes, client profiles, observation. Must not import src/ (the edge is only driven from outside).
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResultSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { ClientCapabilities, ElicitResult, CreateMessageResult, Root } from '@modelcontextprotocol/sdk/types.js';
import { CHIO_BIN } from './cli.js';
import { startHttpEdge } from './http-edge.js';

const require = createRequire(import.meta.url);
const packageDir = (name: string) => join(require.resolve(`${name}/package.json`), '..');
export const EVERYTHING = join(packageDir('@modelcontextprotocol/server-everything'), 'dist', 'index.js');
export const FILESYSTEM = join(packageDir('@modelcontextprotocol/server-filesystem'), 'dist', 'index.js');
export const MEMORY = join(packageDir('@modelcontextprotocol/server-memory'), 'dist', 'index.js');
/** The Inspector's launcher (`mcp-inspector-cli`, the same as `npx @modelcontextprotocol/inspector --cli`). */
export const INSPECTOR_CLI = join(packageDir('@modelcontextprotocol/inspector-cli'), 'build', 'cli.js');

export type Route = 'direct' | 'stdio' | 'http';

export interface Upstream {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

/** What the client declares and how it answers the server's requests. */
export interface Profile {
  capabilities: ClientCapabilities;
  roots?: Root[];
  sampling?: (params: Record<string, unknown>) => CreateMessageResult;
  elicitation?: (params: Record<string, unknown>) => ElicitResult;
}

export interface Connected {
  client: Client;
  /** Every request the server sent this client (method and params), in arrival order. */
  requests: Array<{ method: string; params: Record<string, unknown> }>;
  /** The `data` of every notifications/message (log) the server sent this client. */
  logs: unknown[];
  /** The edge's stderr (empty for direct). */
  stderr(): string;
  close(): Promise<void>;
}

function makeClient(profile: Profile, requests: Connected['requests'], logs: unknown[]): Client {
  const client = new Client({ name: 'chio-compat', version: '1.0.0' }, { capabilities: profile.capabilities });
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params.data));
  const log = (method: string, params: unknown) =>
    requests.push({ method, params: structuredClone(params) as Record<string, unknown> });
  if (profile.roots !== undefined) {
    const roots = profile.roots;
    client.setRequestHandler(ListRootsRequestSchema, async (r) => {
      log(r.method, r.params ?? {});
      return { roots };
    });
  }
  if (profile.sampling !== undefined) {
    const answer = profile.sampling;
    client.setRequestHandler(CreateMessageRequestSchema, async (r) => {
      log(r.method, r.params);
      return answer(r.params as Record<string, unknown>);
    });
  }
  if (profile.elicitation !== undefined) {
    const answer = profile.elicitation;
    client.setRequestHandler(ElicitRequestSchema, async (r) => {
      log(r.method, r.params);
      return answer(r.params as Record<string, unknown>);
    });
  }
  return client;
}

/** Connects a fresh client to the upstream by `route`; each edge gets its own receipt ledger `receiptDb`. */
export async function connect(
  route: Route,
  upstream: Upstream,
  profile: Profile,
  receiptDb: string,
): Promise<Connected> {
  const requests: Connected['requests'] = [];
  const logs: unknown[] = [];
  const client = makeClient(profile, requests, logs);
  const env = { ...(process.env as Record<string, string>), ...upstream.env };
  if (route === 'direct' || route === 'stdio') {
    const transport =
      route === 'direct'
        ? new StdioClientTransport({ command: upstream.command, args: upstream.args, env, stderr: 'pipe' })
        : new StdioClientTransport({
            command: process.execPath,
            args: [CHIO_BIN, 'mcp', 'serve', '--receipt-db', receiptDb, '--', upstream.command, ...upstream.args],
            env,
            stderr: 'pipe',
          });
    let err = '';
    transport.stderr?.on('data', (d: Buffer) => (err += d));
    await client.connect(transport);
    return { client, requests, logs, stderr: () => (route === 'direct' ? '' : err), close: () => client.close() };
  }
  // startHttpEdge passes this process's environment on; an upstream that needs extra variables is stdio-only here.
  if (upstream.env !== undefined) throw new Error('the http route cannot give the upstream extra environment');
  const edge = await startHttpEdge(['--receipt-db', receiptDb, '--', upstream.command, ...upstream.args]);
  const transport = new StreamableHTTPClientTransport(edge.url);
  try {
    await client.connect(transport);
  } catch (e) {
    await edge.stop();
    throw e;
  }
  return {
    client,
    requests,
    logs,
    stderr: edge.stderr,
    close: async () => {
      // Ends the session (DELETE) as a well-behaved client does, then stops the edge.
      await transport.terminateSession();
      await client.close();
      await edge.stop();
    },
  };
}

/** Runs `body` with a connected client and always closes it. */
export async function withRoute<T>(
  route: Route,
  upstream: Upstream,
  profile: Profile,
  receiptDb: string,
  body: (c: Connected) => Promise<T>,
): Promise<T> {
  const c = await connect(route, upstream, profile, receiptDb);
  try {
    return await body(c);
  } finally {
    await c.close();
  }
}

/** Every page of a list method, items concatenated (the edge may page tools its own way; items must match). */
async function listAll(
  client: Client,
  method: 'tools/list' | 'prompts/list' | 'resources/list' | 'resources/templates/list',
  key: string,
): Promise<unknown[]> {
  const items: unknown[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const r = (await client.request(
      { method, params: cursor === undefined ? {} : { cursor } } as never,
      ResultSchema,
    )) as Record<string, unknown>;
    items.push(...((r[key] as unknown[] | undefined) ?? []));
    cursor = typeof r.nextCursor === 'string' ? r.nextCursor : undefined;
    if (cursor === undefined) return items;
  }
  throw new Error(`${method}: more than 100 pages`);
}

/**
 * The capabilities a client sees, minus what the edge is allowed to add: `experimental.chioProtocol`,
 * `experimental.chioToolStreaming` and `tasks` (the edge runs its own task store). An empty
 * `experimental` left after that is dropped too.
 */
export function comparableCapabilities(caps: Record<string, unknown> | undefined): Record<string, unknown> {
  const { tasks: _tasks, experimental, ...rest } = caps ?? {};
  const {
    chioProtocol: _p,
    chioToolStreaming: _s,
    ...otherExperimental
  } = (experimental ?? {}) as Record<string, unknown>;
  return Object.keys(otherExperimental).length === 0 ? rest : { ...rest, experimental: otherExperimental };
}

/** Everything a client learns about a server without calling a tool. */
export async function surface(client: Client) {
  const caps = client.getServerCapabilities() as Record<string, unknown> | undefined;
  return {
    serverInfo: client.getServerVersion(),
    instructions: client.getInstructions(),
    capabilities: comparableCapabilities(caps),
    tools: caps?.tools === undefined ? undefined : await listAll(client, 'tools/list', 'tools'),
    prompts: caps?.prompts === undefined ? undefined : await listAll(client, 'prompts/list', 'prompts'),
    resources: caps?.resources === undefined ? undefined : await listAll(client, 'resources/list', 'resources'),
    resourceTemplates:
      caps?.resources === undefined
        ? undefined
        : await listAll(client, 'resources/templates/list', 'resourceTemplates'),
  };
}

export interface Receipt {
  decision?: string;
  [k: string]: unknown;
}

/** A tool result split into the edge's receipt and the rest (with any other `_meta` kept). */
export function splitReceipt(result: Record<string, unknown>): {
  rest: Record<string, unknown>;
  receipt: Receipt | undefined;
} {
  const { _meta, ...rest } = result;
  if (_meta === undefined) return { rest, receipt: undefined };
  const { 'chio/receipt': receipt, ...otherMeta } = _meta as Record<string, unknown>;
  return {
    rest: Object.keys(otherMeta).length === 0 ? rest : { ...rest, _meta: otherMeta },
    receipt: receipt as Receipt | undefined,
  };
}

/** The text of every text content block of a result. */
export function texts(result: Record<string, unknown>): string[] {
  return ((result.content as Array<{ type: string; text?: string }> | undefined) ?? [])
    .filter((c) => c.type === 'text')
    .map((c) => c.text!);
}

/** Waits, boundedly (a readiness wait, not a timed assertion), until `ready()` holds; throws if it never does. */
export async function until(what: string, ready: () => boolean | Promise<boolean>, attempts = 400): Promise<void> {
  for (let i = 0; i < attempts; i++) {
    if (await ready()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`gave up waiting for ${what}`);
}
