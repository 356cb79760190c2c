/**
 * A dry run of the policy for one call (`chio check`): would the session's default grants cover
 * it, and what do the guards say? Nothing is invoked, signed or written.
 * Owns: the dry-run verdict. Must not import ledger, edges or cli.
 */
import { constraintMatches } from '../capability/index.js';
import type { ToolGrant } from '../capability/index.js';
import { buildGuards, runGuards } from './guards/index.js';
import type { Evidence } from './guards/index.js';
import type { LoadedPolicy } from './policy.js';

export interface CheckCall {
  /** Omitted: grants are matched on the tool name alone. */
  serverId?: string | undefined;
  toolName: string;
  arguments: unknown;
  /** Bases for relative paths besides the policy's path_base (where the tool would run). */
  pathBases?: readonly string[];
}

export type CheckResult =
  | { verdict: 'allow'; evidence: Evidence[]; policyHash: string; grant: number | null }
  | { verdict: 'deny'; guard: string; reason: string; evidence: Evidence[]; policyHash: string };

/** Decision name for a call no grant covers (the capability check, before any guard). */
export const CAPABILITY_CHECK = 'capability';

function grantApplies(g: ToolGrant, call: CheckCall): boolean {
  return (
    (call.serverId === undefined || g.server_id === '*' || g.server_id === call.serverId) &&
    (g.tool_name === '*' || g.tool_name === call.toolName) &&
    g.operations.includes('invoke')
  );
}

export function checkCall(loaded: LoadedPolicy, call: CheckCall): CheckResult {
  const { policy, policyHash } = loaded;
  let grant: number | null = null;
  if (policy.default_grants !== undefined) {
    const candidates = policy.default_grants.flatMap((g, i) => (grantApplies(g, call) ? [i] : []));
    if (candidates.length === 0) {
      return {
        verdict: 'deny',
        guard: CAPABILITY_CHECK,
        reason: `no default grant covers ${call.serverId ?? '*'}/${call.toolName}`,
        evidence: [],
        policyHash,
      };
    }
    try {
      grant =
        candidates.find((i) =>
          (policy.default_grants![i]!.constraints ?? []).every((c) => constraintMatches(c, call.arguments)),
        ) ?? null;
    } catch (e) {
      return {
        verdict: 'deny',
        guard: CAPABILITY_CHECK,
        reason: `a grant constraint cannot be evaluated: ${(e as Error).message}`,
        evidence: [],
        policyHash,
      };
    }
    if (grant === null)
      return {
        verdict: 'deny',
        guard: CAPABILITY_CHECK,
        reason: 'the arguments violate the constraints of every grant for this tool',
        evidence: [],
        policyHash,
      };
  }
  const pathBases = [...(call.pathBases ?? []), ...policy.path_base];
  const decision = runGuards(
    buildGuards(policy.guards),
    { serverId: call.serverId ?? '*', toolName: call.toolName, arguments: call.arguments },
    { pathBases },
  );
  return decision.verdict === 'allow'
    ? { verdict: 'allow', evidence: decision.evidence, policyHash, grant }
    : { verdict: 'deny', guard: decision.guard, reason: decision.reason, evidence: decision.evidence, policyHash };
}
