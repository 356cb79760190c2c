/**
 * The ACP edge: Chio's tools as an ACP surface, every execution through the kernel.
 */
export { AcpEdge, ACP_EDGE_METHODS } from './edge.js';
export type { AcpEdgeOptions, AcpInvocationResult } from './edge.js';
export { serveAcpStdio } from './stdio.js';
export { inferCategory, rateFidelity, buildCapabilityTable, CAVEATS, UNSUPPORTED_REASONS } from './capabilities.js';
export type { AcpCapability, AcpCategory, BridgeFidelity } from './capabilities.js';
export { LIFECYCLE, RUNTIME_LIFECYCLE, AUTHORITY_PATH } from './metadata.js';
export { MAX_OPEN_TASKS, TASK_RETENTION_MS } from './tasks.js';
