/**
 * Budgets along a delegation chain: a call made with a delegated capability counts against the
 * grant it used and against every grant of every ancestor that grant narrows, so no number of
 * children, repeated grants or self-delegations gets more calls than the root allows. A grant
 * "narrows" an ancestor grant exactly when delegation would accept it inside that grant
 * (`grantWithin`): same or narrower target and operations, every constraint kept, limits no higher.
 * Owns: the mapping from a call's grant to its ancestors' budget keys. Imports capability and ledger types.
 */
import { grantWithin } from '../capability/index.js';
import type { CapabilityToken } from '../capability/index.js';
import type { BudgetKey } from '../ledger/index.js';

export function ancestorBudgetKeys(token: CapabilityToken, grantIndex: number): BudgetKey[] {
  const grant = token.scope.grants[grantIndex];
  if (grant === undefined) return [];
  return (token.delegation_chain ?? []).flatMap((ancestor) =>
    ancestor.scope.grants.flatMap((g, i) =>
      grantWithin(grant, g) ? [{ capabilityId: ancestor.id, grantIndex: i, maxInvocations: g.max_invocations }] : [],
    ),
  );
}
