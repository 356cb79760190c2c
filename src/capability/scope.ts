/**
 * Scope matching: does a grant cover a call (server, tool, operation, constraints on the
 * arguments), and is one scope a subset of another (delegation may only narrow).
 * Owns: constraint semantics, matching upstream's kernel (chio-kernel request_matching.rs):
 *  - path_prefix:   every path-like string argument (under a path key, or starting with / or ~)
 *                   lies under the prefix on a segment boundary; none present → no match
 *  - domain_exact / domain_glob: every host named by a URL or host-like argument matches; none → no match
 *  - regex_match:   some string argument matches the pattern (JavaScript RegExp syntax)
 *  - max_length:    every string argument is at most this many UTF-16 code units
 *  - max_args_size: the canonical JSON of the arguments is at most this many bytes
 * Must not import ledger, kernel, edges or cli. Arguments are attacker-controlled.
 */
import { posix } from 'node:path';
import { canonicalBytes } from '../crypto/index.js';
import type { Constraint, MonetaryAmount, Operation, Scope, ToolGrant } from './schema.js';

export interface CallTarget {
  serverId: string;
  toolName: string;
  operation: Operation;
  arguments: unknown;
}

interface Leaf {
  key: string | undefined;
  value: string;
}

const PATH_KEYS = new Set(['path', 'paths', 'file', 'file_path', 'filepath', 'filename', 'dir', 'directory', 'cwd', 'root', 'source', 'destination', 'target', 'src', 'dest']);
const HOST_KEYS = new Set(['host', 'hostname', 'domain']);

function stringLeaves(value: unknown, key: string | undefined, out: Leaf[], depth = 0): Leaf[] {
  if (depth > 64) return out;
  if (typeof value === 'string') out.push({ key, value });
  else if (Array.isArray(value)) for (const v of value) stringLeaves(v, key, out, depth + 1);
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) stringLeaves(v, k.toLowerCase(), out, depth + 1);
  }
  return out;
}

/** Lexically normalised absolute path, or null: `..` can never climb above the prefix. */
function normalisePath(p: string): string | null {
  if (!p.startsWith('/') || p.includes('\0')) return null;
  return posix.normalize(p);
}

export function pathWithin(path: string, prefix: string): boolean {
  const p = normalisePath(path);
  const base = normalisePath(prefix);
  if (p === null || base === null) return false;
  if (base === '/') return true;
  const root = base.endsWith('/') ? base.slice(0, -1) : base;
  return p === root || p.startsWith(`${root}/`);
}

function domainOf(leaf: Leaf): string | null {
  if (HOST_KEYS.has(leaf.key ?? '')) return leaf.value.toLowerCase().replace(/\.$/, '');
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(leaf.value)) return null;
  try {
    return new URL(leaf.value).hostname.toLowerCase().replace(/\.$/, '');
  } catch {
    return null;
  }
}

/** `*` matches any run of characters (including dots: `*.example.com` covers `a.b.example.com`). */
export function globMatches(pattern: string, value: string): boolean {
  const re = new RegExp(`^${pattern.toLowerCase().split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
  return re.test(value);
}

/** Whether `constraint` admits `args`; an unusable constraint (bad regex) throws. */
export function constraintMatches(constraint: Constraint, args: unknown): boolean {
  const leaves = stringLeaves(args, undefined, []);
  switch (constraint.type) {
    case 'path_prefix': {
      const paths = leaves.filter((l) => PATH_KEYS.has(l.key ?? '') || l.value.startsWith('/') || l.value.startsWith('~'));
      return paths.length > 0 && paths.every((l) => pathWithin(l.value, constraint.value));
    }
    case 'domain_exact':
    case 'domain_glob': {
      const domains = leaves.map(domainOf).filter((d): d is string => d !== null);
      const want = constraint.value.toLowerCase();
      const ok = constraint.type === 'domain_exact' ? (d: string) => d === want : (d: string) => globMatches(want, d);
      return domains.length > 0 && domains.every(ok);
    }
    case 'regex_match': {
      const re = new RegExp(constraint.value, 'u');
      return leaves.some((l) => re.test(l.value));
    }
    case 'max_length':
      return leaves.every((l) => l.value.length <= constraint.value);
    case 'max_args_size':
      return canonicalBytes(args ?? {}).length <= constraint.value;
  }
}

export function grantCovers(grant: ToolGrant, target: CallTarget): boolean {
  return (
    (grant.server_id === '*' || grant.server_id === target.serverId) &&
    (grant.tool_name === '*' || grant.tool_name === target.toolName) &&
    grant.operations.includes(target.operation) &&
    (grant.constraints ?? []).every((c) => constraintMatches(c, target.arguments))
  );
}

/** Indexes of the grants in `scope` that cover the call (budgets are kept per grant). */
export function matchingGrants(scope: Scope, target: CallTarget): number[] {
  return scope.grants.flatMap((g, i) => (grantCovers(g, target) ? [i] : []));
}

const within = (child: number | undefined, parent: number | undefined) => parent === undefined || (child !== undefined && child <= parent);
const amountWithin = (child: MonetaryAmount | undefined, parent: MonetaryAmount | undefined) =>
  parent === undefined || (child !== undefined && child.currency === parent.currency && child.units <= parent.units);
const sameConstraint = (a: Constraint, b: Constraint) => a.type === b.type && a.value === b.value;

/** Whether `child` grants nothing `parent` does not: same or narrower target, every parent limit kept. */
export function grantWithin(child: ToolGrant, parent: ToolGrant): boolean {
  return (
    (parent.server_id === '*' || parent.server_id === child.server_id) &&
    (parent.tool_name === '*' || parent.tool_name === child.tool_name) &&
    child.operations.every((op) => parent.operations.includes(op)) &&
    (parent.constraints ?? []).every((pc) => (child.constraints ?? []).some((cc) => sameConstraint(pc, cc))) &&
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
