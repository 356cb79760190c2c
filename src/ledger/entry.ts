/**
 * The `chio.ledger.entry.v1` hash (DESIGN §6) and the columns an entry projects from its receipt.
 * Owns: what entry_hash commits to. Must not import kernel, edges or cli.
 *
 * entry_hash = H({schema, seq, prev_hash, receipt_sha256, session_id, session_prev_seq}) with JSON
 * null for absent session fields; receipt_sha256 = sha256_hex(body), body being the receipt's exact
 * RFC 8785 text. Committing to session_id and session_prev_seq makes each session's own chain part
 * of the global one: re-linking a session means re-hashing everything after it.
 */
import { canonicalJson, hashCanonical, isHex, sha256Hex } from '../crypto/index.js';
import type { Receipt } from '../receipt/index.js';

export const LEDGER_ENTRY_SCHEMA_ID = 'chio.ledger.entry.v1';
export const GENESIS_PREV_HASH = '0'.repeat(64);

export interface EntryLink {
  seq: number;
  prevHash: string;
  receiptSha256: string;
  sessionId: string | null;
  sessionPrevSeq: number | null;
}

/**
 * The RFC 8785 text of the entry hash input, written out directly: its members are fixed and
 * already in JCS order (prev_hash < receipt_sha256 < schema < seq < session_id < session_prev_seq),
 * hashes are hex, seqs are safe integers, and the session id goes through the canonicalizer's own
 * string rule. It is on the hot path of every append and every verify; the golden vectors and a
 * property test pin it to `canonicalJson` of the same object.
 */
export function entryHashInput(link: EntryLink): string {
  return (
    `{"prev_hash":"${link.prevHash}","receipt_sha256":"${link.receiptSha256}","schema":"${LEDGER_ENTRY_SCHEMA_ID}",` +
    `"seq":${link.seq},"session_id":${link.sessionId === null ? 'null' : canonicalJson(link.sessionId)},` +
    `"session_prev_seq":${link.sessionPrevSeq === null ? 'null' : link.sessionPrevSeq}}`
  );
}

export function entryHash(link: EntryLink): string {
  if (
    !isHex(link.prevHash, 32) ||
    !isHex(link.receiptSha256, 32) ||
    !Number.isSafeInteger(link.seq) ||
    (link.sessionPrevSeq !== null && !Number.isSafeInteger(link.sessionPrevSeq))
  ) {
    // Values read back from a tampered file can be anything: hash them the slow, general way.
    return hashCanonical({
      schema: LEDGER_ENTRY_SCHEMA_ID,
      seq: link.seq,
      prev_hash: link.prevHash,
      receipt_sha256: link.receiptSha256,
      session_id: link.sessionId,
      session_prev_seq: link.sessionPrevSeq,
    });
  }
  return sha256Hex(entryHashInput(link));
}

export function receiptSha256(body: string): string {
  return sha256Hex(body);
}

/** Columns copied from the receipt for indexing; verify checks they still match the body. */
export interface ProjectedColumns {
  timestamp: number;
  capabilityId: string;
  toolServer: string;
  toolName: string;
  verdict: string | null;
  receiptKind: string;
  trustLevel: string;
  kernelKey: string;
  tenantId: string | null;
}

/** Entry kinds. A revocation is a receipt the kernel signs for its own revoke action. */
export type EntryKind = 'receipt' | 'revocation';
export const REVOCATION_TOOL_SERVER = 'chio-kernel';
export const REVOCATION_TOOL_NAME = 'revoke_capability';
/** metadata member naming the grant an allowed call used (budgets count per grant). */
export const GRANT_INDEX_KEY = 'chio_grant_index';

/** The kind a receipt's content makes it: derived from signed members, so the column is checkable. */
export function kindOf(r: Receipt): EntryKind {
  return r.tool_server === REVOCATION_TOOL_SERVER && r.tool_name === REVOCATION_TOOL_NAME ? 'revocation' : 'receipt';
}

/** The capability a revocation revokes, or undefined if the receipt is not a well-formed revocation. */
export function revokedCapabilityOf(r: Receipt): string | undefined {
  if (kindOf(r) !== 'revocation' || r.decision?.verdict !== 'allow') return undefined;
  const id = (r.action.parameters as { capability_id?: unknown } | null)?.capability_id;
  return typeof id === 'string' && id.length > 0 ? id : undefined;
}

/** Receipt metadata naming the ancestor grants a delegated call also counts against (`[{capability_id, grant_index}]`). */
export const ANCESTOR_GRANTS_KEY = 'chio_ancestor_grants';
const MAX_ANCESTOR_GRANTS = 256;

export interface GrantKey {
  capabilityId: string;
  grantIndex: number;
}

/**
 * Every grant an allowed mediated call counts against: the grant of its own capability
 * (metadata.chio_grant_index) and, for a delegated capability, each ancestor grant it narrows
 * (metadata.chio_ancestor_grants). Empty for anything else. The SQL rebuild in sessions.ts and
 * migration 0005 apply exactly these rules.
 */
export function grantsOf(r: Receipt): GrantKey[] {
  const index = r.metadata?.[GRANT_INDEX_KEY];
  if (r.receipt_kind !== 'mediated_decision' || r.decision?.verdict !== 'allow' || kindOf(r) !== 'receipt') return [];
  if (!(typeof index === 'number' && Number.isSafeInteger(index) && index >= 0)) return [];
  const keys: GrantKey[] = [{ capabilityId: r.capability_id, grantIndex: index }];
  const ancestors = r.metadata?.[ANCESTOR_GRANTS_KEY];
  if (Array.isArray(ancestors)) {
    for (const a of ancestors.slice(0, MAX_ANCESTOR_GRANTS)) {
      const id = (a as { capability_id?: unknown } | null)?.capability_id;
      const i = (a as { grant_index?: unknown } | null)?.grant_index;
      if (typeof id === 'string' && typeof i === 'number' && Number.isSafeInteger(i) && i >= 0)
        keys.push({ capabilityId: id, grantIndex: i });
    }
  }
  return keys;
}

export function projectReceipt(r: Receipt): ProjectedColumns {
  return {
    timestamp: r.timestamp,
    capabilityId: r.capability_id,
    toolServer: r.tool_server,
    toolName: r.tool_name,
    verdict: r.decision?.verdict ?? null,
    receiptKind: r.receipt_kind,
    trustLevel: r.trust_level,
    kernelKey: r.kernel_key,
    tenantId: r.tenant_id ?? null,
  };
}
