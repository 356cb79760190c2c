/**
 * The guard pipeline and the eight guards (upstream chio-guards). Pure checks over a
 * classified call; the kernel runs them after the capability checks and records their evidence.
 */
export { runGuards, buildGuards, GuardsConfigSchema, CLASSIFIER } from './pipeline.js';
export type { GuardsConfig, GuardDecision, GuardCall, Evidence } from './pipeline.js';
export { classifyAction, egressTarget } from './action.js';
export { resolvedPath, lexicalPath, pathResolutions } from './paths.js';
export { NO_CONTEXT } from './types.js';
export type {
  Guard,
  GuardContext,
  GuardInput,
  GuardOutcome,
  ToolAction,
  EgressTarget,
  CommandArgument,
} from './types.js';
export { ForbiddenPathGuard, DEFAULT_FORBIDDEN_PATHS, ForbiddenPathConfigSchema } from './forbidden-path.js';
export { ShellCommandGuard, ShellCommandConfigSchema } from './shell-command.js';
export { EgressAllowlistGuard, DEFAULT_EGRESS_ALLOW } from './egress-allowlist.js';
export { InternalNetworkGuard, internalReason } from './internal-network.js';
export { PathAllowlistGuard } from './path-allowlist.js';
export { McpToolGuard } from './mcp-tool.js';
export { SecretLeakGuard, mask } from './secret-leak.js';
export { PatchIntegrityGuard } from './patch-integrity.js';
