/**
 * What the ACP edge publishes: one `AcpCapability` per tool, its category
 * inferred from the tool name, and a bridge-fidelity rating from the manifest's hints. A tool
 * rated `unsupported` is withheld from discovery and cannot be invoked.
 * Upstream's edge (chio-acp-edge bridge) spells the no-caveat kind `lossless`; this
 * edge says `native` (docs/acp.md, the ACP edge).
 * Owns: category inference, fidelity rules and caveat texts. Imports kernel types only.
 */
import type { ToolDefinition, ToolManifest } from '../../kernel/index.js';

export type AcpCategory = 'filesystem' | 'terminal' | 'browser' | 'tool';

export type BridgeFidelity =
  | { kind: 'native'; caveats: string[] }
  | { kind: 'adapted'; caveats: string[] }
  | { kind: 'unsupported'; reason: string };

/** The six fields of a published capability, camelCase on the wire. */
export interface AcpCapability {
  id: string;
  name: string;
  description: string;
  category: AcpCategory;
  requiresPermission: boolean;
  bridgeFidelity: { kind: 'native' | 'adapted'; caveats: string[] };
}

/** Caveat texts, in the order they are added (upstream's hello-acp walkthrough). */
export const CAVEATS = {
  approval: 'permission preview is advisory only; enforcement happens at invoke time with Chio capability checks',
  streaming:
    'stream-capable tools execute through deferred `tool/stream` tasks and surface output when resumed via `tool/resume` rather than as incremental push updates',
  partialOutput: 'partial output is preserved only inside the resumed terminal payload, not incremental ACP updates',
  cancellation:
    'cancellation is available on deferred `tool/stream` tasks via `tool/cancel`; blocking `tool/invoke` remains terminal',
  genericTool: "generic Chio tools are exposed through ACP's tool category rather than a native ACP primitive",
} as const;

export const UNSUPPORTED_REASONS = {
  unpublished: 'publication disabled by x-chio-publish=false',
  noExecutor: (serverId: string) => `no registered executor for tool server ${serverId}`,
  browser: 'browser/session automation semantics are not yet truthfully projected on the ACP edge',
  sideEffects: 'generic side-effectful tools do not map honestly to ACP capability classes on this edge',
  ambiguous: (id: string, sources: string[]) =>
    `ACP capability \`${id}\` is withheld from discovery because multiple manifests map it to different upstream bindings: ${sources.join(', ')}`,
} as const;

/** First match wins; the name is compared lowercased (upstream `infer_acp_category`). */
export function inferCategory(toolName: string, fallback: AcpCategory = 'tool'): AcpCategory {
  const n = toolName.toLowerCase();
  if (['read_file', 'write_file', 'list_dir'].some((s) => n.includes(s)) || n.startsWith('fs_')) return 'filesystem';
  if (['terminal', 'exec', 'shell', 'command'].some((s) => n.includes(s))) return 'terminal';
  if (['browser', 'navigate', 'screenshot'].some((s) => n.includes(s))) return 'browser';
  return fallback;
}

/** A boolean hint: the manifest's `hints`, else an `x-chio-*` key of the input schema, else of the output schema. */
export function hint(tool: ToolDefinition, key: string): boolean | undefined {
  for (const source of [tool.hints, tool.input_schema, tool.output_schema]) {
    const v = source?.[key];
    if (typeof v === 'boolean') return v;
  }
  return undefined;
}

export function rateFidelity(
  tool: ToolDefinition,
  category: AcpCategory,
  hasExecutor: boolean,
  serverId: string,
): BridgeFidelity {
  if (hint(tool, 'x-chio-publish') === false) return { kind: 'unsupported', reason: UNSUPPORTED_REASONS.unpublished };
  if (!hasExecutor) return { kind: 'unsupported', reason: UNSUPPORTED_REASONS.noExecutor(serverId) };
  if (category === 'browser') return { kind: 'unsupported', reason: UNSUPPORTED_REASONS.browser };
  if (category === 'tool' && tool.has_side_effects)
    return { kind: 'unsupported', reason: UNSUPPORTED_REASONS.sideEffects };
  const streaming = hint(tool, 'x-chio-streaming') === true;
  const caveats: string[] = [];
  if (hint(tool, 'x-chio-approval-required') === true) caveats.push(CAVEATS.approval);
  if (streaming) caveats.push(CAVEATS.streaming);
  if (hint(tool, 'x-chio-partial-output') ?? streaming) caveats.push(CAVEATS.partialOutput);
  if (hint(tool, 'x-chio-cancellation') === true) caveats.push(CAVEATS.cancellation);
  if (category === 'tool') caveats.push(CAVEATS.genericTool);
  return { kind: caveats.length > 0 ? 'adapted' : 'native', caveats };
}

/** A published capability and the kernel binding it dispatches to. */
export interface CapabilityBinding {
  capability: AcpCapability;
  serverId: string;
  toolName: string;
}

export interface CapabilityTableOptions {
  requirePermission: boolean;
  defaultCategory: AcpCategory;
}

/**
 * Builds the table from manifests; `executors` are the server ids the kernel can dispatch to.
 * Published capabilities are sorted by id; withheld ones keep their reason (for tests and logs).
 */
export function buildCapabilityTable(
  manifests: readonly ToolManifest[],
  executors: ReadonlySet<string>,
  options: CapabilityTableOptions,
) {
  const sources = new Map<string, Array<{ manifest: ToolManifest; tool: ToolDefinition }>>();
  for (const manifest of manifests) {
    for (const tool of manifest.tools) {
      const list = sources.get(tool.name) ?? [];
      if (!list.some((s) => s.manifest.server_id === manifest.server_id)) list.push({ manifest, tool });
      sources.set(tool.name, list);
    }
  }
  const published = new Map<string, CapabilityBinding>();
  const withheld = new Map<string, string>();
  for (const [id, list] of [...sources.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (list.length > 1) {
      withheld.set(
        id,
        UNSUPPORTED_REASONS.ambiguous(id, list.map((s) => `${s.manifest.server_id}/${s.tool.name}`).sort()),
      );
      continue;
    }
    const { manifest, tool } = list[0]!;
    const category = inferCategory(tool.name, options.defaultCategory);
    const fidelity = rateFidelity(tool, category, executors.has(manifest.server_id), manifest.server_id);
    if (fidelity.kind === 'unsupported') {
      withheld.set(id, fidelity.reason);
      continue;
    }
    published.set(id, {
      serverId: manifest.server_id,
      toolName: tool.name,
      capability: {
        id,
        name: tool.name,
        description: tool.description,
        category,
        requiresPermission: options.requirePermission || tool.has_side_effects,
        bridgeFidelity: { kind: fidelity.kind, caveats: fidelity.caveats },
      },
    });
  }
  return { published, withheld };
}
