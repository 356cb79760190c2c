/**
 * Whether the kernel would allow a call, in DESIGN §7's order: the tool is known → capability
 * (signature, time, subject, scope and constraints, delegation) → budget (a covering grant with
 * invocations left, its ancestors' too) → revocation (the token and every ancestor) → guards.
 * Nothing is written: the budget is checked here so that a denial names it, and again, atomically,
 * when the call is reserved (kernel.ts).
 * Owns: that order of checks, and the copy of a request they judge. Imports capability and the
 * guards; must not import edges or cli.
 */
import { verifyCapability } from '../capability/index.js';
import { ChioError } from '../errors.js';
import type { BudgetKey } from '../ledger/index.js';
import type { GuardEvidence } from '../receipt/index.js';
import { ancestorBudgetKeys } from './budgets.js';
import { runGuards } from './guards/index.js';
import type { Guard } from './guards/index.js';
import type { ToolCallPreview } from './kernel-types.js';
import type { KernelStore } from './store.js';
import { findTool } from './tool-server.js';
import type { ToolServerConnection } from './tool-server.js';

/**
 * The request the checks judge and the dispatch runs: each field read once, the arguments a copy
 * of plain data (structuredClone reads every accessor once and refuses proxies and functions).
 */
export function judgedRequest<T extends ToolCallPreview>(request: T): T {
  const copy = { ...request };
  if (copy.arguments !== undefined) {
    try {
      copy.arguments = structuredClone(copy.arguments);
    } catch (e) {
      throw new ChioError(
        'CHIO-KERNEL-INVALID-REQUEST',
        `the call's arguments are not plain data: ${(e as Error).message}`,
      );
    }
  }
  return copy;
}

export type Authorization =
  | { ok: false; reason: string; guard: string; evidence: GuardEvidence[] }
  | {
      ok: true;
      server: ToolServerConnection;
      capabilityId: string;
      candidates: Array<{ index: number; limit: number | undefined; ancestors: BudgetKey[] }>;
      evidence: GuardEvidence[];
    };

/** What the checks read: the kernel's servers, its ledger, its keys, guards and path bases. */
export interface AuthorizeContext {
  servers: ReadonlyMap<string, ToolServerConnection>;
  store: Pick<KernelStore, 'invocationsUsed' | 'firstRevoked'>;
  /** The kernel's own key: the only issuer whose capabilities it honours. */
  issuerKeyHex: string;
  /** Keys whose receipts count towards budgets and revocations. */
  trustedKernelKeys: readonly string[];
  guards: readonly Guard[];
  /** Bases for relative paths that hold for every call; a request may add its own. */
  pathBases: readonly string[];
}

export async function authorizeCall(
  ctx: AuthorizeContext,
  request: ToolCallPreview,
  now: number,
): Promise<Authorization> {
  const server = request.toolServer ?? ctx.servers.get(request.serverId);
  if (
    server === undefined ||
    server.manifest.server_id !== request.serverId ||
    findTool(server.manifest, request.toolName) === undefined
  ) {
    return {
      ok: false,
      reason: `unknown tool ${request.serverId}/${request.toolName}`,
      guard: 'kernel',
      evidence: [],
    };
  }
  const cap = verifyCapability(request.capability, {
    target: {
      serverId: request.serverId,
      toolName: request.toolName,
      operation: 'invoke',
      arguments: request.arguments ?? {},
    },
    caller: request.caller,
    trustedIssuers: new Set([ctx.issuerKeyHex]),
    now,
  });
  if (!cap.ok)
    return {
      ok: false,
      reason: `capability ${cap.check}: ${cap.reason}`,
      guard: 'capability',
      evidence: [{ guard_name: 'capability', verdict: false, details: cap.check }],
    };
  // Budget (DESIGN §7 order: capability → budget → revocation → guards): the first covering grant
  // with invocations left. Checked here so the deny names the budget; re-checked atomically when
  // the call is reserved, which also proves the ledger takes writes before the tool runs.
  // A grant has room when it and every ancestor grant it narrows (budgets.ts) have invocations left.
  const grants = cap.grantIndexes.map((index) => ({
    index,
    limit: cap.token.scope.grants[index]!.max_invocations,
    ancestors: ancestorBudgetKeys(cap.token, index),
  }));
  let exhausted = '';
  const candidates: typeof grants = [];
  covering: for (const g of grants) {
    for (const k of [{ capabilityId: cap.token.id, grantIndex: g.index, maxInvocations: g.limit }, ...g.ancestors]) {
      if (k.maxInvocations === undefined) continue;
      const used = await ctx.store.invocationsUsed(k.capabilityId, k.grantIndex, ctx.trustedKernelKeys);
      if (used >= k.maxInvocations) {
        exhausted ||= `${k.capabilityId === cap.token.id ? '' : `ancestor ${k.capabilityId} `}grant ${k.grantIndex} has used ${used} of ${k.maxInvocations} invocations`;
        continue covering;
      }
    }
    candidates.push(g);
  }
  if (candidates.length === 0) {
    return {
      ok: false,
      reason: `budget exhausted: ${exhausted}`,
      guard: 'budget',
      evidence: [{ guard_name: 'budget', verdict: false, details: exhausted }],
    };
  }
  const revoked = await ctx.store.firstRevoked([cap.token.id, ...cap.ancestorIds], ctx.trustedKernelKeys);
  if (revoked !== undefined) {
    return {
      ok: false,
      reason: `capability ${revoked === cap.token.id ? 'is' : `ancestor ${revoked} is`} revoked`,
      guard: 'revocation',
      evidence: [{ guard_name: 'revocation', verdict: false, details: revoked }],
    };
  }
  const pathBases =
    request.pathBases === undefined || request.pathBases.length === 0
      ? ctx.pathBases
      : [...ctx.pathBases, ...request.pathBases];
  const guards = runGuards(
    ctx.guards,
    { serverId: request.serverId, toolName: request.toolName, arguments: request.arguments ?? {} },
    { pathBases },
  );
  if (guards.verdict === 'deny')
    return { ok: false, reason: guards.reason, guard: guards.guard, evidence: guards.evidence };
  return { ok: true, server, capabilityId: cap.token.id, candidates, evidence: guards.evidence };
}
