/**
 * The guard pipeline: classify the call, run each guard in order, record evidence for every guard
 * that ran, stop at the first deny. A guard that throws denies (fail closed), and a call whose
 * arguments do not fit the kind of tool it names is denied before any guard runs. The context says
 * where relative paths are resolved (types.ts GuardContext).
 * Owns: order and the deny rule. Must not import ledger, edges or cli.
 */
import { z } from 'zod';
import { classifyAction } from './action.js';
import { EgressAllowlistConfigSchema, EgressAllowlistGuard } from './egress-allowlist.js';
import { ForbiddenPathConfigSchema, ForbiddenPathGuard } from './forbidden-path.js';
import { InternalNetworkConfigSchema, InternalNetworkGuard } from './internal-network.js';
import { McpToolConfigSchema, McpToolGuard } from './mcp-tool.js';
import { PatchIntegrityConfigSchema, PatchIntegrityGuard } from './patch-integrity.js';
import { PathAllowlistConfigSchema, PathAllowlistGuard } from './path-allowlist.js';
import { SecretLeakConfigSchema, SecretLeakGuard } from './secret-leak.js';
import { ShellCommandConfigSchema, ShellCommandGuard } from './shell-command.js';
import { NO_CONTEXT } from './types.js';
import type { Guard, GuardContext, GuardInput } from './types.js';

/** The `guards` section of a policy: every guard's settings, each with upstream's defaults. */
export const GuardsConfigSchema = z.strictObject({
  'forbidden-path': ForbiddenPathConfigSchema.prefault({}),
  'shell-command': ShellCommandConfigSchema.prefault({}),
  'egress-allowlist': EgressAllowlistConfigSchema.prefault({}),
  'internal-network': InternalNetworkConfigSchema.prefault({}),
  'path-allowlist': PathAllowlistConfigSchema.prefault({}),
  'mcp-tool': McpToolConfigSchema.prefault({}),
  'secret-leak': SecretLeakConfigSchema.prefault({}),
  'patch-integrity': PatchIntegrityConfigSchema.prefault({}),
});
export type GuardsConfig = z.infer<typeof GuardsConfigSchema>;

/** The guards in pipeline order: path rules first, then commands, network, tools, content. */
export function buildGuards(config: GuardsConfig = GuardsConfigSchema.parse({})): Guard[] {
  const forbidden = new ForbiddenPathGuard(config['forbidden-path']);
  return [
    forbidden,
    new PathAllowlistGuard(config['path-allowlist']),
    new ShellCommandGuard(forbidden, config['shell-command']),
    new InternalNetworkGuard(config['internal-network']),
    new EgressAllowlistGuard(config['egress-allowlist']),
    new McpToolGuard(config['mcp-tool']),
    new SecretLeakGuard(config['secret-leak']),
    new PatchIntegrityGuard(config['patch-integrity']),
  ];
}

export interface Evidence {
  guard_name: string;
  verdict: boolean;
  details?: string;
}

export type GuardDecision =
  | { verdict: 'allow'; evidence: Evidence[] }
  | { verdict: 'deny'; reason: string; guard: string; evidence: Evidence[] };

/** Name used in evidence and decisions when the call is refused before any guard runs. */
export const CLASSIFIER = 'action-classifier';

export interface GuardCall {
  serverId: string;
  toolName: string;
  arguments: unknown;
}

export function runGuards(
  guards: readonly Guard[],
  call: GuardCall,
  context: GuardContext = NO_CONTEXT,
): GuardDecision {
  const classified = classifyAction(call.toolName, call.arguments);
  if (!classified.ok) {
    return {
      verdict: 'deny',
      reason: `malformed arguments: ${classified.reason}`,
      guard: CLASSIFIER,
      evidence: [{ guard_name: CLASSIFIER, verdict: false, details: classified.reason }],
    };
  }
  const input: GuardInput = { ...call, action: classified.action, context };
  const evidence: Evidence[] = [];
  for (const guard of guards) {
    let outcome;
    try {
      outcome = guard.evaluate(input);
    } catch (e) {
      const details = `guard error: ${(e as Error).message}`;
      evidence.push({ guard_name: guard.name, verdict: false, details });
      return { verdict: 'deny', reason: details, guard: guard.name, evidence };
    }
    if (outcome === null) continue;
    if (outcome.verdict === 'deny') {
      evidence.push({ guard_name: guard.name, verdict: false, details: outcome.details ?? outcome.reason });
      return { verdict: 'deny', reason: outcome.reason, guard: guard.name, evidence };
    }
    evidence.push(
      outcome.details === undefined
        ? { guard_name: guard.name, verdict: true }
        : { guard_name: guard.name, verdict: true, details: outcome.details },
    );
  }
  return { verdict: 'allow', evidence };
}
