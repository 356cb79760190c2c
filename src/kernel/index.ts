/**
 * The kernel area: policies, guards, tool-server contracts, and (next) the kernel that evaluates,
 * dispatches, signs and appends. Imports crypto, receipt, capability and ledger.
 */
export {
  PolicySchema,
  POLICY_SCHEMA_ID,
  loadPolicy,
  normalizePolicy,
  parsePolicyText,
  defaultPolicy,
} from './policy.js';
export type { Policy, LoadedPolicy, Redaction } from './policy.js';
export { redactParameters, redactAction, REDACTED } from './redaction.js';
export { RedactionKey } from './redaction-key.js';
export type { RedactionMode } from './redaction.js';
export { checkCall, CAPABILITY_CHECK } from './check.js';
export { testPolicy } from './policy-test.js';
export type { PolicyTestReport } from './policy-test.js';
export type { CheckCall, CheckResult } from './check.js';
export { ToolManifestSchema, ToolDefinitionSchema, MANIFEST_SCHEMA_ID, findTool } from './tool-server.js';
export type {
  ToolManifest,
  ToolDefinition,
  ToolServerConnection,
  StreamChunk,
  InvokeContext,
  ProgressUpdate,
} from './tool-server.js';
export * as guards from './guards/index.js';
export { Kernel } from './kernel.js';
export type { KernelOptions, ToolCallRequest, ToolCallResponse } from './kernel.js';
export { streamContentHash } from './receipts.js';
export { Checkpointer, DEFAULT_CHECKPOINT_EVERY_ENTRIES, DEFAULT_CHECKPOINT_EVERY_SECONDS } from './checkpointer.js';
export type { CheckpointSchedule } from './checkpointer.js';
