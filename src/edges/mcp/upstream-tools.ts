/**
 * What the edge imports from an upstream MCP server: every page of its tool list, and the kernel
 * manifest built from it (its tools plus the governed MCP methods its capabilities offer). Read at
 * connect and again on each `notifications/tools/list_changed`.
 * Owns: tool-list import and manifest construction. The upstream is untrusted: its list is
 * validated like any manifest. Must not import cli or the session.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ChioError } from '../../errors.js';
import { ToolManifestSchema } from '../../kernel/index.js';
import type { ToolManifest } from '../../kernel/index.js';
import { describeIssues } from '../../validation.js';

/** More pages than this is an upstream that never stops paging (attacker-controlled cursors). */
const MAX_PAGES = 1000;

/**
 * MCP methods the kernel governs like tool calls on the upstream's server id (the method name is the
 * tool name), offered only when the upstream advertises the capability behind them. Their arguments
 * are exactly what is relayed: resources by `{uri}`, prompts by `{name, arguments}`.
 */
export const GOVERNED_METHODS = {
  'resources/read': {
    capability: 'resources',
    input_schema: { type: 'object', properties: { uri: { type: 'string' } }, required: ['uri'] },
  },
  'resources/subscribe': {
    capability: 'resources.subscribe',
    input_schema: { type: 'object', properties: { uri: { type: 'string' } }, required: ['uri'] },
  },
  'prompts/get': {
    capability: 'prompts',
    input_schema: {
      type: 'object',
      properties: { name: { type: 'string' }, arguments: { type: 'object' } },
      required: ['name'],
    },
  },
} as const;
export type GovernedMethod = keyof typeof GOVERNED_METHODS;
/** Manifest hint marking a governed method's pseudo-tool (never listed in tools/list, never an ACP capability). */
export const GOVERNED_METHOD_HINT = 'x-chio-mcp-method';

export function isGovernedMethod(name: string): name is GovernedMethod {
  return Object.hasOwn(GOVERNED_METHODS, name);
}

/** The pseudo-tools for the governed methods an upstream's capabilities offer (attacker-controlled: only presence is read). */
function governedTools(capabilities: Record<string, unknown>): Array<Record<string, unknown>> {
  const offered = (path: string): boolean => {
    const [head, sub] = path.split('.');
    const v = capabilities[head!];
    if (v === undefined || v === null || typeof v !== 'object') return false;
    return sub === undefined || (v as Record<string, unknown>)[sub] === true;
  };
  return (Object.keys(GOVERNED_METHODS) as GovernedMethod[])
    .filter((m) => offered(GOVERNED_METHODS[m].capability))
    .map((m) => ({
      name: m,
      description: `MCP ${m} (governed by the MCP edge)`,
      input_schema: GOVERNED_METHODS[m].input_schema,
      has_side_effects: false,
      hints: { [GOVERNED_METHOD_HINT]: true, 'x-chio-publish': false },
    }));
}

/** Every page of the upstream's tools (attacker-controlled definitions, served to the client unchanged). */
export async function listAllTools(client: Client, signal?: AbortSignal): Promise<Array<Record<string, unknown>>> {
  const tools: Array<Record<string, unknown>> = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const r = await client.listTools(cursor === undefined ? {} : { cursor }, signal === undefined ? {} : { signal });
    tools.push(...(r.tools as Array<Record<string, unknown>>));
    cursor = r.nextCursor;
    if (cursor === undefined) return tools;
  }
  throw new ChioError('CHIO-MCP-UPSTREAM', `the upstream's tool list did not end after ${MAX_PAGES} pages`);
}

/** The kernel manifest of an upstream's tools and governed methods; throws CHIO-MCP-UPSTREAM when unusable. */
export function upstreamManifest(
  serverId: string,
  client: Client,
  tools: ReadonlyArray<Record<string, unknown>>,
): ToolManifest {
  const info = client.getServerVersion();
  const manifest = ToolManifestSchema.safeParse({
    schema: 'chio.manifest.v1',
    server_id: serverId,
    name: info?.name ?? serverId,
    version: info?.version ?? '0',
    tools: [
      ...tools.map((t) => {
        const annotations = (t.annotations ?? {}) as { readOnlyHint?: boolean };
        return {
          name: t.name,
          description: typeof t.description === 'string' ? t.description : '',
          input_schema: t.inputSchema ?? { type: 'object' },
          ...(t.outputSchema === undefined ? {} : { output_schema: t.outputSchema }),
          // MCP's default for a tool without annotations is "may have side effects" (readOnlyHint false).
          has_side_effects: annotations.readOnlyHint !== true,
        };
      }),
      // resources/read, resources/subscribe, prompts/get as pseudo-tools, so the kernel's "tool
      // known" step, the capability and the guards judge them. An upstream tool with one of these
      // names makes the names collide and the manifest unusable: fail closed.
      ...governedTools((client.getServerCapabilities() ?? {}) as Record<string, unknown>),
    ],
  });
  if (!manifest.success)
    throw new ChioError(
      'CHIO-MCP-UPSTREAM',
      `the upstream's tool list is not usable: ${describeIssues(manifest.error).join('; ')}`,
    );
  return manifest.data;
}
