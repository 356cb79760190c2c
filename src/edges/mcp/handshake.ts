/**
 * The MCP initialize handshake as the edge answers it: which protocol version is selected, what
 * initialize params are accepted, and the result — the upstream's identity and capabilities (a
 * wrapped server is presented as itself), the edge's tools and tasks, and the edge itself only in
 * `capabilities.experimental.chioProtocol` (upstream chio's documented block plus this product's
 * receipt schema, kernel key, session and capability ids).
 * Owns: version selection and the initialize result. Imports zod and upstream types; must not import the session.
 */
import { z } from 'zod';
import type { UpstreamMcpServer } from './upstream.js';

export const SUPPORTED_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;
export const LATEST_PROTOCOL_VERSION = SUPPORTED_PROTOCOL_VERSIONS[0];
/** `_meta` key under which every tools/call result names its receipt. */
export const RECEIPT_META_KEY = 'chio/receipt';
/** Upstream chio's streaming extension: negotiated in initialize, chunks as notifications. */
export const TOOL_STREAMING_KEY = 'chioToolStreaming';
export const TOOL_CHUNK_NOTIFICATION = 'notifications/chio/tool_call_chunk';

// protocolVersion, capabilities and clientInfo may be absent, as upstream's edge accepts them
// (`"params": {}` selects the latest version); when present they must be well-typed.
export const InitializeParamsSchema = z.object({
  protocolVersion: z.string().min(1).optional(),
  capabilities: z.record(z.string(), z.unknown()).default({}),
  clientInfo: z.object({ name: z.string(), version: z.string() }).passthrough().optional(),
});
/** Where the error registry the edge's codes come from lives (upstream's errorRegistry block). */
export const ERROR_REGISTRY = {
  schema: 'chio.error-registry.v1',
  path: 'spec/errors/chio-error-registry.v1.json',
} as const;
/** MCP lifecycle: the requested version if supported, else the latest (never an older one than asked). */
export function selectVersion(requested: string | undefined): string {
  return requested !== undefined && (SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(requested)
    ? requested
    : LATEST_PROTOCOL_VERSION;
}

/** What an upstream said about itself in its initialize result (attacker-controlled: validated before use). */
export interface UpstreamIdentity {
  serverInfo?: Record<string, unknown> | undefined;
  instructions?: string | undefined;
}

/** MCP `Implementation`: name and version required; title, websiteUrl, icons… pass through as the upstream wrote them. */
const ServerInfoSchema = z
  .object({ name: z.string(), version: z.string(), title: z.string().optional() })
  .passthrough();

export function initializeResult(o: {
  protocolVersion: string;
  kernelKey: string;
  sessionId: string;
  capabilityId: string;
  upstream: UpstreamMcpServer | undefined;
  /** The native edge's own identity (the examples' `Chio MCP Edge`); a wrapped server's is the upstream's. */
  serverInfo?: { name: string; version: string } | undefined;
}): Record<string, unknown> {
  const identity: UpstreamIdentity = o.upstream?.identity() ?? {};
  const info = ServerInfoSchema.safeParse(identity.serverInfo);
  const instructions = typeof identity.instructions === 'string' ? identity.instructions : undefined;
  return {
    protocolVersion: o.protocolVersion,
    capabilities: {
      ...o.upstream?.passthroughCapabilities(),
      tools: { listChanged: o.upstream?.toolsListChanged() ?? false },
      tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
      experimental: {
        chioProtocol: {
          supportedProtocolVersions: [...SUPPORTED_PROTOCOL_VERSIONS],
          selectedProtocolVersion: o.protocolVersion,
          compatibility: 'exact_match',
          downgradeBehavior: 'reject',
          errorRegistry: { ...ERROR_REGISTRY },
          requestIdentity: { requestBoundArtifactsRequireStableId: true, stableRequestIdMetaField: 'chioRequestId' },
          receiptSchema: 'chio.receipt.v1',
          kernelKey: o.kernelKey,
          sessionId: o.sessionId,
          capabilityId: o.capabilityId,
        },
        // experimental entries must be objects (the MCP schema types them as Record<string, object>)
        [TOOL_STREAMING_KEY]: { toolCallChunkNotifications: true },
      },
    },
    serverInfo: o.serverInfo ?? (info.success ? info.data : undefined) ?? { name: 'chio-mcp-edge', version: '0.1.0' },
    ...(instructions === undefined ? {} : { instructions }),
  };
}
