/**
 * The policy file (YAML or JSON): guard settings, the grants a session receives by default,
 * redaction, budgets, capability lifetime. Validated strictly — an unknown or mistyped field is
 * an error that names it — and normalised (every default filled in), so `policy_hash` =
 * H(normalised policy) (DESIGN §4) changes exactly when the effective policy does.
 * Owns: the policy format. Must not import ledger internals, edges or cli. The file is user input.
 */
import { readInputText } from '../input-file.js';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { MonetaryAmountSchema, ToolGrantSchema } from '../capability/index.js';
import type { Scope, ToolGrant } from '../capability/index.js';
import { hashCanonical } from '../crypto/index.js';
import { ChioError } from '../errors.js';
import { describeIssues } from '../validation.js';
import { GuardsConfigSchema } from './guards/index.js';

export const POLICY_SCHEMA_ID = 'chio.policy.v1';

export const RedactionSchema = z
  .strictObject({
    /**
     * none: parameters stored as sent; hash_only: only parameter_hash is stored (receipt
     * redaction_mode "summary"); redact_keys: the values of the named keys, at any depth, become
     * "[REDACTED]" (receipt redaction_mode "redacted"). parameter_hash is always over the original.
     */
    mode: z.enum(['none', 'hash_only', 'redact_keys']).default('none'),
    keys: z.array(z.string().min(1)).default([]),
  })
  .refine((r) => r.mode !== 'redact_keys' || r.keys.length > 0, {
    message: 'redact_keys needs at least one key',
    path: ['keys'],
  });
export type Redaction = z.infer<typeof RedactionSchema>;

export const PolicySchema = z.strictObject({
  schema: z.literal(POLICY_SCHEMA_ID).default(POLICY_SCHEMA_ID),
  guards: GuardsConfigSchema.prefault({}),
  /**
   * The grants each session's capability carries. Absent: every tool its servers list, invoke only
   * (DESIGN §7a secure defaults: the guards still run).
   */
  default_grants: z.array(ToolGrantSchema).optional(),
  redaction: RedactionSchema.prefault({}),
  /** Limits added to every default grant that does not set its own. */
  budgets: z
    .strictObject({
      max_invocations: z.number().int().nonnegative().optional(),
      max_total_cost: MonetaryAmountSchema.optional(),
    })
    .prefault({}),
  capability: z.strictObject({ ttl_seconds: z.number().int().positive().default(3600) }).prefault({}),
  /**
   * Directories the tools resolve relative paths against (besides the MCP roots and the upstream's
   * own directories): each relative path argument is judged against every one. Absolute paths.
   */
  path_base: z
    .preprocess(
      (v) => (typeof v === 'string' ? [v] : v),
      z.array(
        z
          .string()
          .min(1)
          .refine((p) => p.startsWith('/'), 'must be an absolute path'),
      ),
    )
    .default([]),
});
export type Policy = z.infer<typeof PolicySchema>;

export interface LoadedPolicy {
  policy: Policy;
  /** H(normalised policy document), DESIGN §4. */
  policyHash: string;
}

/** Validates a parsed document. Throws CHIO-POLICY-INVALID naming every bad field. */
export function normalizePolicy(document: unknown, source = 'policy'): LoadedPolicy {
  const parsed = PolicySchema.safeParse(document ?? {});
  if (!parsed.success) {
    throw new ChioError('CHIO-POLICY-INVALID', `${source} is invalid: ${describeIssues(parsed.error).join('; ')}`, {
      details: { issues: describeIssues(parsed.error) },
    });
  }
  try {
    return { policy: parsed.data, policyHash: hashCanonical(parsed.data) };
  } catch (e) {
    throw new ChioError('CHIO-POLICY-INVALID', `${source} is invalid: ${(e as Error).message}`, { cause: e });
  }
}

/** Parses YAML or JSON text (by extension; YAML is a superset, so anything else is read as YAML). */
export function parsePolicyText(text: string, source: string): unknown {
  try {
    if (source.endsWith('.json')) {
      const value = JSON.parse(text) as unknown;
      // JSON.parse keeps the last of two equal keys ({"enabled": true, "enabled": false} silently
      // switches a guard off); read it again as YAML's JSON schema, which refuses duplicates.
      parseYaml(text, { schema: 'json', uniqueKeys: true, maxAliasCount: 0 });
      return value;
    }
    // The core schema only: no custom tags, no JavaScript types; aliases are capped.
    return parseYaml(text, { schema: 'core', uniqueKeys: true, maxAliasCount: 100 }) as unknown;
  } catch (e) {
    throw new ChioError('CHIO-POLICY-INVALID', `${source} cannot be parsed: ${(e as Error).message.split('\n')[0]}`, {
      cause: e,
    });
  }
}

export function loadPolicy(path: string): LoadedPolicy {
  const text = readInputText(path, 'policy', 'policy'); // regular files only, size-capped; CHIO-CLI-IO if unreadable
  return normalizePolicy(parsePolicyText(text, path), path);
}

/** The policy in force when none is given: every default filled in. */
export function defaultPolicy(): LoadedPolicy {
  return normalizePolicy({}, 'default policy');
}

/**
 * The grants a session gets (DESIGN §7a): the policy's `default_grants`, else invoke on every tool
 * of `serverIds`; the policy's budgets fill in each grant that names none of its own.
 */
export function defaultScope(policy: Policy, serverIds: Iterable<string>): Scope {
  const budgets = policy.budgets;
  const withBudget = (g: ToolGrant): ToolGrant => ({
    ...g,
    ...(g.max_invocations === undefined && budgets.max_invocations !== undefined
      ? { max_invocations: budgets.max_invocations }
      : {}),
    ...(g.max_total_cost === undefined && budgets.max_total_cost !== undefined
      ? { max_total_cost: budgets.max_total_cost }
      : {}),
  });
  const grants =
    policy.default_grants ??
    [...new Set(serverIds)].map((id): ToolGrant => ({ server_id: id, tool_name: '*', operations: ['invoke'] }));
  return { grants: grants.map(withBudget) };
}
