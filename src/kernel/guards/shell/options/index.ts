/**
 * Option forms of commands that run other commands or load configuration (git, the npm family,
 * cargo, make, find, rg, tar, ssh/scp/sftp, rsync, zip, vim, sed) and the wrappers that run
 * another command (env, sudo, nice, timeout, xargs, strace, …), read off an argv as findings — a
 * refused form, a path an option names, an environment variable an argument sets — for any guard
 * that judges command lines: the ACP proxy's terminal table and the kernel's shell-command guard.
 * Owns: the public face of the option readers. Imports them.
 */
export { optionFindings, COMMAND_RULES } from './commands.js';
export type { CommandRules } from './commands.js';
export { formMatches, formFindings, optionValues, longMatches } from './forms.js';
export type { OptionFinding, OptionForm, RefusedFinding, Syntax } from './forms.js';
export { gitFindings, GIT_SUBCOMMANDS } from './git.js';
export type { SubRule } from './git.js';
export { sedFindings, sedScriptRefusal } from './sed.js';
export { unwrap, WRAPPERS } from './wrappers.js';
export type { Unwrapped, WrapperSpec } from './wrappers.js';
