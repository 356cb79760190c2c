/**
 * What the ACP proxy's own guards answer, and the guard names their refusals carry on signed deny
 * receipts. The name says which rule refused: `forbidden-path` (the kernel's forbidden-path
 * patterns, as the kernel's own receipts name them), `acp-fs-guard` (prefixes, the git-directory
 * write rule, directories named in terminal options), `acp-terminal-guard` (commands, arguments,
 * environment, option forms, wrappers). A plugged-in terminal check names its own guard.
 * Owns: the verdict shape and the names. Imports nothing.
 */
export const FS_GUARD = 'acp-fs-guard';
export const TERMINAL_GUARD = 'acp-terminal-guard';
export const FORBIDDEN_PATH_GUARD = 'forbidden-path';

export type GuardVerdict = { ok: true } | { ok: false; message: string; guard: string };

export const allow = (): GuardVerdict => ({ ok: true });
export const refuse = (guard: string, message: string): GuardVerdict => ({ ok: false, message, guard });
