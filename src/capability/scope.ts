/**
 * Scope matching: does a grant cover a call (server, tool, operation, constraints on the
 * arguments), and is one scope a subset of another (delegation may only narrow). What each
 * constraint means lives in constraints.ts; what the arguments name, in arguments.ts.
 * Must not import ledger, kernel, edges or cli. Arguments are attacker-controlled.
 */
import { argumentFacts } from './arguments.js';
import type { ArgumentFacts } from './arguments.js';
import { constraintImplies, constraintVerdictOn } from './constraints.js';
import type { MonetaryAmount, Operation, Scope, ToolGrant } from './schema.js';

export { constraintMatches, constraintVerdict, constraintImplies, globMatches, pathWithin } from './constraints.js';
export type { ConstraintVerdict } from './constraints.js';

export interface CallTarget {
  serverId: string;
  toolName: string;
  operation: Operation;
  arguments: unknown;
}

const targets = (grant: ToolGrant, target: CallTarget) =>
  (grant.server_id === '*' || grant.server_id === target.serverId) &&
  (grant.tool_name === '*' || grant.tool_name === target.toolName) &&
  grant.operations.includes(target.operation);

/** The arguments are walked once per call, however many grants and constraints judge them. */
function covers(grant: ToolGrant, target: CallTarget, facts: () => ArgumentFacts): boolean {
  return (
    targets(grant, target) &&
    (grant.constraints ?? []).every((c) => constraintVerdictOn(c, facts(), target.arguments).ok)
  );
}

function lazyFacts(args: unknown): () => ArgumentFacts {
  let facts: ArgumentFacts | undefined;
  return () => (facts ??= argumentFacts(args));
}

export function grantCovers(grant: ToolGrant, target: CallTarget): boolean {
  return covers(grant, target, lazyFacts(target.arguments));
}

/** Indexes of the grants in `scope` that cover the call (budgets are kept per grant). */
export function matchingGrants(scope: Scope, target: CallTarget): number[] {
  const facts = lazyFacts(target.arguments);
  return scope.grants.flatMap((g, i) => (covers(g, target, facts) ? [i] : []));
}

/**
 * Why no grant of `scope` covers the call: the first violated constraint of the first grant that
 * names its (server, tool, operation), as `grant <i>: <reason>`; null when a grant covers it or
 * none names the target. For a deny reason (it names the constraint and where, never a value).
 */
export function constraintViolation(scope: Scope, target: CallTarget): string | null {
  const facts = lazyFacts(target.arguments);
  let first: string | null = null;
  for (const [i, g] of scope.grants.entries()) {
    if (!targets(g, target)) continue;
    let violated: string | null = null;
    for (const c of g.constraints ?? []) {
      const v = constraintVerdictOn(c, facts(), target.arguments);
      if (!v.ok) {
        violated = v.reason;
        break;
      }
    }
    if (violated === null) return null;
    first ??= `grant ${i}: ${violated}`;
  }
  return first;
}

const within = (child: number | undefined, parent: number | undefined) =>
  parent === undefined || (child !== undefined && child <= parent);
const amountWithin = (child: MonetaryAmount | undefined, parent: MonetaryAmount | undefined) =>
  parent === undefined || (child !== undefined && child.currency === parent.currency && child.units <= parent.units);

/**
 * Whether `child` grants nothing `parent` does not: same or narrower target, every parent limit
 * kept. Each parent constraint must be implied by a child constraint (the same one, or a narrower
 * one of its kind: constraintImplies); a grant's constraints all hold at once, so a child that
 * adds constraints only narrows.
 */
export function grantWithin(child: ToolGrant, parent: ToolGrant): boolean {
  return (
    (parent.server_id === '*' || parent.server_id === child.server_id) &&
    (parent.tool_name === '*' || parent.tool_name === child.tool_name) &&
    child.operations.every((op) => parent.operations.includes(op)) &&
    (parent.constraints ?? []).every((pc) => (child.constraints ?? []).some((cc) => constraintImplies(cc, pc))) &&
    within(child.max_invocations, parent.max_invocations) &&
    amountWithin(child.max_cost_per_invocation, parent.max_cost_per_invocation) &&
    amountWithin(child.max_total_cost, parent.max_total_cost) &&
    (parent.dpop_required !== true || child.dpop_required === true)
  );
}

/** Index of the first child grant no parent grant contains, or -1 when the child scope is a subset. */
export function firstWideningGrant(child: Scope, parent: Scope): number {
  return child.grants.findIndex((g) => !parent.grants.some((p) => grantWithin(g, p)));
}
