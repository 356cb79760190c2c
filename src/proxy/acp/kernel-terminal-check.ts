/**
 * The kernel's guard pipeline as a terminal check: a `terminal/create` the proxy's own rules let
 * through is judged like any tool call the kernel governs — its argv by the shell-command guard
 * (interpreters handed inline code, destructive commands, forbidden paths in any argument), its cwd
 * by forbidden-path, the hosts its arguments reach by internal-network —
 * with the policy's settings. Relative paths resolve against the terminal's cwd, or else against
 * every allowed prefix. It runs on every terminal/create unless the policy switches the guards off.
 * Owns: the mapping from a terminal request to a guarded call. Imports the kernel's guards.
 */
import { guards } from '../../kernel/index.js';
import type { Kernel } from '../../kernel/index.js';
import type { TerminalCheck } from './terminal-guard.js';
import { allow, refuse } from './verdict.js';

export function kernelTerminalCheck(kernel: Kernel | undefined, prefixes: readonly string[]): TerminalCheck {
  const pipeline = guards.buildGuards(kernel?.policy.policy.guards ?? guards.GuardsConfigSchema.parse({}));
  return (command, args, cwd) => {
    const d = guards.runGuards(
      pipeline,
      {
        serverId: 'acp-terminal',
        toolName: 'terminal/create',
        arguments: { command, args: [...args], ...(cwd === undefined ? {} : { cwd }) },
      },
      { pathBases: cwd === undefined ? prefixes : [] },
    );
    return d.verdict === 'allow' ? allow() : refuse(d.guard, `access denied: terminal denied: ${d.reason}`);
  };
}
