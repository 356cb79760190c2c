/**
 * Issuing and delegating capability tokens (DESIGN §7). The signature is Ed25519 by the issuer
 * over JCS(token minus signature and delegation_chain); a delegated token names its parent in
 * the signed `parent_id` and carries its ancestors, root first, in `delegation_chain`. A root
 * token's id is the kernel's (`cap-<uuidv7>`); a delegated token's id is derived from its own
 * content (`delegatedCapabilityId`), so its signer cannot choose it — let alone borrow another
 * token's, which budgets and revocations are keyed by.
 * Owns: token construction. Must not import ledger, kernel, edges or cli.
 */
import { canonicalJson, sha256Hex, toHex } from '../crypto/index.js';
import type { Ed25519Signer } from '../crypto/index.js';
import { ChioError } from '../errors.js';
import { describeIssues } from '../validation.js';
import { CAPABILITY_SCHEMA_ID, CapabilityTokenSchema, MAX_DELEGATION_DEPTH, ScopeSchema } from './schema.js';
import type { AncestorToken, CapabilityToken, Scope } from './schema.js';
import { firstWideningGrant } from './scope.js';
import { uuidv7 } from './uuidv7.js';

/** The bytes a token's signature covers. */
export function capabilitySigningText(token: Readonly<Record<string, unknown>>): string {
  const { signature: _s, delegation_chain: _d, ...body } = token;
  return canonicalJson(body);
}

/**
 * The id a delegated token must carry: `cap-` + SHA-256 (hex) of RFC 8785 JSON of the token
 * without `id`, `signature` and `delegation_chain` — its issuer, subject, scope, lifetime and
 * `parent_id`, so the id names this content under this parent and no other.
 */
export function delegatedCapabilityId(token: Readonly<Record<string, unknown>>): string {
  const { id: _i, signature: _s, delegation_chain: _d, ...content } = token;
  return `cap-${sha256Hex(canonicalJson(content))}`;
}

export interface IssueOptions {
  /** Public key (64 hex) of the agent the token is for. */
  subject: string;
  scope: Scope;
  /** Lifetime in seconds from `now`. */
  ttlSeconds: number;
  /** Unix seconds; default the clock. */
  now?: number;
}

function parseScope(scope: Scope): Scope {
  const parsed = ScopeSchema.safeParse(scope);
  if (!parsed.success) {
    throw new ChioError(
      'CHIO-CAPABILITY-INVALID',
      `capability scope is invalid: ${describeIssues(parsed.error).join('; ')}`,
    );
  }
  return parsed.data;
}

function build(
  signer: Ed25519Signer,
  fields: Omit<CapabilityToken, 'signature' | 'delegation_chain' | 'schema' | 'id' | 'issuer'>,
  chain?: AncestorToken[],
): CapabilityToken {
  const content = { schema: CAPABILITY_SCHEMA_ID, issuer: signer.publicKeyHex, ...fields };
  const id = fields.parent_id === undefined ? `cap-${uuidv7(fields.issued_at * 1000)}` : delegatedCapabilityId(content);
  const body = { schema: CAPABILITY_SCHEMA_ID, id, issuer: signer.publicKeyHex, ...fields };
  const signature = toHex(signer.sign(capabilitySigningText(body)));
  const token = { ...body, signature, ...(chain === undefined ? {} : { delegation_chain: chain }) };
  const parsed = CapabilityTokenSchema.safeParse(token);
  if (!parsed.success)
    throw new ChioError('CHIO-CAPABILITY-INVALID', `capability is invalid: ${describeIssues(parsed.error).join('; ')}`);
  return parsed.data;
}

/** A root token, signed by the kernel (or another trusted issuer). */
export function issueCapability(issuer: Ed25519Signer, options: IssueOptions): CapabilityToken {
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (!Number.isSafeInteger(options.ttlSeconds) || options.ttlSeconds <= 0) {
    throw new ChioError('CHIO-CAPABILITY-INVALID', 'ttlSeconds must be a positive integer');
  }
  return build(issuer, {
    subject: options.subject,
    scope: parseScope(options.scope),
    issued_at: now,
    expires_at: now + options.ttlSeconds,
  });
}

export interface DelegateOptions {
  /** Public key of the agent receiving the narrowed token. */
  delegatee: string;
  /** Must be a subset of the parent's scope. */
  scope: Scope;
  /** Default and upper bound: the parent's expiry. */
  expiresAt?: number;
  now?: number;
}

/**
 * Delegates `parent` to another agent. `holder` must be the parent's subject: only the holder of
 * a token can pass it on, and only narrower (scope and lifetime).
 */
export function delegateCapability(
  parent: CapabilityToken,
  holder: Ed25519Signer,
  options: DelegateOptions,
): CapabilityToken {
  if (holder.publicKeyHex !== parent.subject) {
    throw new ChioError('CHIO-CAPABILITY-INVALID', 'only the subject of a capability can delegate it');
  }
  const scope = parseScope(options.scope);
  const widening = firstWideningGrant(scope, parent.scope);
  if (widening >= 0)
    throw new ChioError('CHIO-CAPABILITY-INVALID', `grant ${widening} is not within the parent capability's scope`);
  const now = options.now ?? Math.floor(Date.now() / 1000);
  const expiresAt = Math.min(options.expiresAt ?? parent.expires_at, parent.expires_at);
  const { delegation_chain: parentChain, ...parentAlone } = parent;
  const chain = [...(parentChain ?? []), parentAlone];
  if (chain.length > MAX_DELEGATION_DEPTH)
    throw new ChioError('CHIO-CAPABILITY-INVALID', `delegation deeper than ${MAX_DELEGATION_DEPTH} links`);
  return build(
    holder,
    {
      subject: options.delegatee,
      scope,
      issued_at: Math.max(now, parent.issued_at),
      expires_at: expiresAt,
      parent_id: parent.id,
    },
    chain,
  );
}
