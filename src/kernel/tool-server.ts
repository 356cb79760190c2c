/**
 * Tool servers as the kernel sees them: a `ToolServerConnection` it dispatches to, and the
 * `chio.manifest.v1` manifest describing its tools. A tool name the manifest does not list is
 * refused (fail closed) before any capability or guard is consulted.
 * Owns: the dispatch contract and the manifest format. Must not import ledger internals, edges or cli.
 */
import { z } from 'zod';

export const MANIFEST_SCHEMA_ID = 'chio.manifest.v1';

export const ToolDefinitionSchema = z.strictObject({
  name: z.string().min(1).max(128),
  description: z.string().default(''),
  /** JSON Schema of the arguments (as MCP's `inputSchema`). */
  input_schema: z.record(z.string(), z.unknown()),
  output_schema: z.record(z.string(), z.unknown()).optional(),
  /** Whether calling the tool changes anything outside it (files, network, processes). */
  has_side_effects: z.boolean(),
  /** Hints an edge may read (ACP: x-chio-streaming, x-chio-partial-output, x-chio-cancellation, x-chio-publish). */
  hints: z.record(z.string(), z.union([z.boolean(), z.string(), z.number()])).optional(),
});
export type ToolDefinition = z.infer<typeof ToolDefinitionSchema>;

export const ToolManifestSchema = z.strictObject({
  schema: z.literal(MANIFEST_SCHEMA_ID),
  server_id: z.string().min(1).max(128),
  name: z.string().min(1),
  version: z.string().min(1),
  tools: z
    .array(ToolDefinitionSchema)
    .refine((tools) => new Set(tools.map((t) => t.name)).size === tools.length, 'tool names must be unique'),
});
export type ToolManifest = z.infer<typeof ToolManifestSchema>;

/** One chunk of a streamed result; `data` is any JSON value. */
export interface StreamChunk {
  data: unknown;
}

export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

export interface InvokeContext {
  /** Aborted when the caller cancels (MCP notifications/cancelled, ACP tool/cancel). */
  signal?: AbortSignal;
  /** Progress the tool reports while it runs (MCP notifications/progress). */
  onProgress?: (update: ProgressUpdate) => void;
  /** Each chunk of a streamed result as it arrives (before the receipt covers them all). */
  onChunk?: (data: unknown, index: number) => void;
}

/** What the kernel dispatches to: an in-process server, or an adapter in front of an MCP upstream. */
export interface ToolServerConnection {
  readonly manifest: ToolManifest;
  /** Runs one tool call; resolves with its output (any JSON value). */
  invoke(toolName: string, args: unknown, context?: InvokeContext): Promise<unknown>;
  /** Optional streaming form: yields chunks; the receipt's content_hash covers all of them. */
  invokeStream?(toolName: string, args: unknown, context?: InvokeContext): AsyncIterable<StreamChunk>;
}

export function findTool(manifest: ToolManifest, toolName: string): ToolDefinition | undefined {
  return manifest.tools.find((t) => t.name === toolName);
}
