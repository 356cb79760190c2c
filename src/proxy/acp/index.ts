/**
 * The ACP proxy: `chio acp proxy -- <agent>` between an editor and an ACP agent.
 */
export { AcpProxy, ACP_MAX_MESSAGE_BYTES } from './proxy.js';
export type { AcpProxyOptions, AcpProxyExit } from './proxy.js';
export { AcpProxyConfig, DEFAULT_SERVER_ID } from './config.js';
export type { AttestationMode, AcpProxyConfigFields } from './config.js';
export { AcpInterceptor, ACCESS_DENIED, mapPermissionKind } from './interceptor.js';
export type { Disposition, InterceptorOptions, Judged } from './interceptor.js';
export { OrderedPipeline, MAX_IN_FLIGHT } from './pipeline.js';
export { KernelCapabilityChecker, splitToken, authorityServer } from './checker.js';
export { FsGuard } from './fs-guard.js';
export type { FsOperation, ForbiddenPaths } from './fs-guard.js';
export { TerminalGuard } from './terminal-guard.js';
export type { TerminalCheck, TerminalGuardOptions, TerminalEnv } from './terminal-guard.js';
export { FS_GUARD, TERMINAL_GUARD, FORBIDDEN_PATH_GUARD } from './verdict.js';
export type { GuardVerdict } from './verdict.js';
export { ENV_RULES, envRefusal } from './terminal-env.js';
export type { EnvRule } from './terminal-env.js';
// The option-form table lives with the kernel's guards (both guard command lines with it).
export {
  COMMAND_RULES,
  optionFindings,
  gitFindings,
  GIT_SUBCOMMANDS,
  sedFindings,
  sedScriptRefusal,
  WRAPPERS,
  unwrap,
  formMatches,
} from '../../kernel/guards/shell/options/index.js';
export type { OptionFinding, OptionForm, Syntax } from '../../kernel/guards/shell/options/index.js';
export { gitWriteRefusal } from './git-dir.js';
export { CapabilityContexts, MAX_PENDING_PER_SESSION } from './contexts.js';
export { auditEntry, eventContentHash, readToolCallEvent, acpMetadata, receiptContext } from './audit.js';
export type { AcpToolCallAuditEntry, AuthorizationContext, EnforcementMode } from './audit.js';
export { auditDraft, auditNonce, refusalDraft, receiptToolName } from './receipts.js';
