/**
 * Verifying a capability for a call, in the order of DESIGN §7: signature → issued_at ≤ now <
 * expires_at → subject is the calling agent → scope covers (server, tool, operation) and its
 * constraints → delegation chain. Revocation and budgets need the ledger and are the kernel's
 * next steps. The first failure is returned, named, as a value: the kernel turns it into a
 * signed deny receipt.
 * Tokens are presented again and again, so what depends only on a token's bytes (every signature
 * in it, every id its content gives) is remembered for tokens that passed, by those exact bytes;
 * everything that depends on the call or the clock runs on every call.
 * Owns: the check order and those caches. Must not import ledger, kernel, edges or cli. The token is attacker-controlled.
 */
import { sha256Hex, verifySignature } from '../crypto/index.js';
import { describeIssues } from '../validation.js';
import { CapabilityTokenSchema } from './schema.js';
import type { AncestorToken, CapabilityToken } from './schema.js';
import { constraintViolation, firstWideningGrant, matchingGrants } from './scope.js';
import type { CallTarget } from './scope.js';
import { capabilitySigningText, delegatedCapabilityId } from './sign.js';

export type CapabilityCheck =
  | 'schema'
  | 'signature'
  | 'not_yet_valid'
  | 'expired'
  | 'subject'
  | 'untrusted_issuer'
  | 'scope'
  | 'constraint'
  | 'delegation';

export type CapabilityVerdict =
  | { ok: true; token: CapabilityToken; grantIndexes: number[]; ancestorIds: string[] }
  | { ok: false; check: CapabilityCheck; reason: string };

export interface VerifyCapabilityOptions {
  /** The call being authorised. */
  target: CallTarget;
  /** Public key of the agent making the call; the token's subject must equal it. */
  caller: string;
  /** Keys allowed to issue root tokens (the kernel's). */
  trustedIssuers: ReadonlySet<string>;
  /** Unix seconds; default the clock. */
  now?: number;
}

const fail = (check: CapabilityCheck, reason: string): CapabilityVerdict => ({ ok: false, check, reason });

/**
 * Tokens are presented again and again; their Ed25519 check is the costliest step. A token whose
 * exact signed bytes verified before is remembered by (issuer, signature) together with the hash
 * of those bytes, so a changed token never hits the cache.
 */
const VERIFIED_LIMIT = 4096;
const verified = new Map<string, string>();

function signatureValid(token: AncestorToken | CapabilityToken): boolean {
  const text = capabilitySigningText(token);
  const key = `${token.issuer}:${token.signature}`;
  const digest = sha256Hex(text);
  if (verified.get(key) === digest) return true;
  if (!verifySignature(token.issuer, text, token.signature)) return false;
  if (verified.size >= VERIFIED_LIMIT) verified.clear();
  verified.set(key, digest);
  return true;
}

/**
 * Whole tokens whose bytes were found intact: the token's and every ancestor's signature verify,
 * and every id is the one its content gives. Keyed by the JSON text of the token as zod returned
 * it (its SHA-256 when long) — a fresh object of plain JSON values, so that text is exactly the
 * token's content, delegation chain included (never the caller's object, which it could change
 * after a check). A token differing in any byte has another key and is checked in full. Only a
 * token that passed every check is remembered (an attacker's stream of junk or self-signed tokens
 * adds nothing), and the map is an LRU of INTACT_LIMIT keys of at most INTACT_TEXT_CHARS each, so
 * no run of distinct (or large) tokens grows it past a few megabytes. A hit skips canonicalisation,
 * hashing and signature checks; time, subject, issuer trust, the chain's links and attenuation,
 * scope and constraints are checked on every call.
 */
const INTACT_LIMIT = 1024;
/** A token's JSON text up to this length is its own key (hashing it would cost more than the look-up); a longer one is keyed by its SHA-256. */
const INTACT_TEXT_CHARS = 2048;
const intact = new Map<string, true>();

/** The cache key of a token as zod returned it. JSON text starts with `{`, a hex digest never does: the two kinds cannot collide. */
function intactKey(token: CapabilityToken): string {
  const text = JSON.stringify(token);
  return text.length <= INTACT_TEXT_CHARS ? text : sha256Hex(text);
}

let intactHits = 0;
let intactMisses = 0;

function knownIntact(key: string): boolean {
  if (!intact.delete(key)) {
    intactMisses++;
    return false;
  }
  intact.set(key, true); // most recently used last
  intactHits++;
  return true;
}

function rememberIntact(key: string): void {
  if (intact.size >= INTACT_LIMIT) intact.delete(intact.keys().next().value!);
  intact.set(key, true);
}

/**
 * For tests and the bench only: the intact-token cache's size, its bound, and how many look-ups hit
 * or missed since the process started (or the last `clearCapabilityCache`). Nothing decides by it.
 */
export function capabilityCacheStats(): { size: number; limit: number; hits: number; misses: number } {
  return { size: intact.size, limit: INTACT_LIMIT, hits: intactHits, misses: intactMisses };
}

/** For tests and the bench only: forgets every remembered token and signature, and zeroes the counts. */
export function clearCapabilityCache(): void {
  intact.clear();
  verified.clear();
  intactHits = 0;
  intactMisses = 0;
}

export function verifyCapability(input: unknown, options: VerifyCapabilityOptions): CapabilityVerdict {
  const parsed = CapabilityTokenSchema.safeParse(input);
  if (!parsed.success)
    return fail('schema', `not a valid chio.capability.v1 token: ${describeIssues(parsed.error).join('; ')}`);
  const token = parsed.data;
  const now = options.now ?? Math.floor(Date.now() / 1000);
  const key = intactKey(token);
  const known = knownIntact(key);

  if (!known && !signatureValid(token))
    return fail('signature', `signature does not verify under issuer ${token.issuer}`);
  if (now < token.issued_at)
    return fail('not_yet_valid', `capability ${token.id} is not valid before ${token.issued_at}`);
  if (now >= token.expires_at) return fail('expired', `capability ${token.id} expired at ${token.expires_at}`);
  if (token.subject !== options.caller)
    return fail('subject', `capability ${token.id} was issued to ${token.subject}, not to the caller`);

  // Who signed it comes before what it allows: a token's constraints (its regexes, its globs) are
  // run on the arguments only once its chain of signers leads to a trusted kernel key.
  const chain = token.delegation_chain ?? [];
  // A delegated token's id is its content's hash (sign.ts): its signer cannot pick it, nor reuse one.
  // (A token known intact carries exactly the bytes that passed this before.)
  for (const t of known ? [] : [...chain, token]) {
    const delegated = t.parent_id !== undefined;
    if (delegated !== /^cap-[0-9a-f]{64}$/.test(t.id) || (delegated && t.id !== delegatedCapabilityId(t))) {
      return fail(
        'delegation',
        `capability ${t.id} does not carry the id its content gives it (${delegated ? delegatedCapabilityId(t) : 'a root token is named cap-<uuidv7>'})`,
      );
    }
  }
  if (chain.length === 0) {
    if (token.parent_id !== undefined)
      return fail('delegation', 'a delegated capability must carry its delegation chain');
    if (!options.trustedIssuers.has(token.issuer))
      return fail('untrusted_issuer', `issuer ${token.issuer} is not a trusted kernel key`);
  } else {
    const reason = delegationFault(token, chain, options.trustedIssuers, known);
    if (reason !== null) return fail('delegation', reason);
  }

  let grantIndexes: number[];
  try {
    const t = options.target;
    const targeted = token.scope.grants.some(
      (g) =>
        (g.server_id === '*' || g.server_id === t.serverId) &&
        (g.tool_name === '*' || g.tool_name === t.toolName) &&
        g.operations.includes(t.operation),
    );
    if (!targeted)
      return fail('scope', `capability ${token.id} does not grant ${t.operation} on ${t.serverId}/${t.toolName}`);
    grantIndexes = matchingGrants(token.scope, t);
  } catch (e) {
    return fail('constraint', `a constraint of capability ${token.id} cannot be evaluated: ${(e as Error).message}`);
  }
  if (grantIndexes.length === 0) {
    // The reason names the grant, the constraint and where the value sits (never the value).
    const why = constraintViolation(token.scope, options.target);
    return fail(
      'constraint',
      `the arguments violate the constraints of capability ${token.id}${why === null ? '' : ` (${why})`}`,
    );
  }

  if (!known) rememberIntact(key);
  return { ok: true, token, grantIndexes, ancestorIds: chain.map((a) => a.id) };
}

/** Why the chain root → … → token is not a valid narrowing, or null. `intact`: the ancestors' signatures are known to verify. */
function delegationFault(
  token: CapabilityToken,
  chain: AncestorToken[],
  trusted: ReadonlySet<string>,
  intact: boolean,
): string | null {
  const root = chain[0]!;
  if (root.parent_id !== undefined) return `the chain's root ${root.id} claims a parent`;
  if (!trusted.has(root.issuer))
    return `the chain's root ${root.id} was issued by ${root.issuer}, not a trusted kernel key`;
  const links: Array<AncestorToken | CapabilityToken> = [...chain, token];
  for (let i = 0; i < links.length; i++) {
    const t = links[i]!;
    if (i < chain.length && !intact && !signatureValid(t)) return `ancestor ${t.id} has an invalid signature`;
    if (i === 0) continue;
    const parent = links[i - 1]!;
    if (t.parent_id !== parent.id) return `${t.id} names parent ${String(t.parent_id)}, not ${parent.id}`;
    if (t.issuer !== parent.subject) return `${t.id} was signed by ${t.issuer}, not by the holder of ${parent.id}`;
    if (t.issued_at < parent.issued_at || t.expires_at > parent.expires_at)
      return `${t.id} outlives or predates its parent ${parent.id}`;
    const widening = firstWideningGrant(t.scope, parent.scope);
    if (widening >= 0) return `${t.id} widens the scope of ${parent.id} (grant ${widening})`;
  }
  return null;
}
