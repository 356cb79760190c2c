/**
 * TerminalGuard (issue 7, upstream chio-acp-proxy terminal_guard): the command must equal an
 * allowed entry exactly, and no argument may carry shell metacharacters that would matter if the
 * client ran it through a shell: a backtick, `$(`, `|`, `;`, a newline or a carriage return.
 * Owns: the command rule and its messages. Imports nothing. Commands are attacker-controlled.
 */
import type { GuardVerdict } from './fs-guard.js';

const SUSPICIOUS = ['`', '$(', '|', ';', '\n', '\r'];

export class TerminalGuard {
  constructor(private readonly commands: readonly string[]) {}

  check(command: string, args: readonly string[]): GuardVerdict {
    if (this.commands.length === 0) return { ok: false, message: 'access denied: terminal denied: no allowed commands configured' };
    if (command.trim() === '') return { ok: false, message: 'access denied: terminal denied: empty command' };
    if (!this.commands.includes(command)) return { ok: false, message: `access denied: terminal denied: command not allowed: ${command}` };
    const bad = args.find((a) => SUSPICIOUS.some((s) => a.includes(s)));
    if (bad !== undefined) return { ok: false, message: `access denied: terminal denied: suspicious argument: ${bad}` };
    return { ok: true };
  }
}
