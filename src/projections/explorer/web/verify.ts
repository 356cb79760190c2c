/**
 * Checks a receipt in the browser, so the page trusts the data, not the server that sent it
 * (DESIGN §4–§6): RFC 8785 canonical JSON, the id as SHA-256 of the body without id, signature and
 * algorithm, the Ed25519 signature (WebCrypto) over the body with its id, the semantic rule, the
 * parameter hash of unredacted parameters, and the ledger entry hash of its chain position.
 * A server that forges receipts must also hold the kernel's key: which key signed is shown, and
 * the user can pin the keys they trust (kept in this browser).
 * Owns: the checks. Imports nothing; runs the same in Node's WebCrypto (tested against the golden vectors).
 */

/**
 * RFC 8785 (JCS) text of a JSON value parsed by JSON.parse: numbers and strings serialize as
 * ECMAScript's JSON.stringify does (§3.2.2.3, §3.2.2.2), object members sorted by their names'
 * UTF-16 code units (§3.2.3), which is what Array.prototype.sort compares.
 */
export function jcs(value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error('not JSON: a non-finite number');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(jcs).join(',')}]`;
  if (typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${jcs((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  throw new Error(`not JSON: a ${typeof value}`);
}

export type Check = { ok: true; detail: string } | { ok: false; detail: string };
export interface ReceiptChecks {
  /** WebCrypto is missing (a page served over plain HTTP from another host is not a secure context): nothing was checked. */
  unavailable?: string;
  id?: Check;
  signature?: Check;
  semantics?: Check;
  parameterHash?: Check;
  kernelKey?: string;
  /** Every check above passed. */
  ok: boolean;
}

const HEX64 = /^[0-9a-f]{64}$/;
const HEX128 = /^[0-9a-f]{128}$/;
const utf8 = (text: string) => new TextEncoder().encode(text);
const bytes = (hex: string) => Uint8Array.from(hex.match(/../g) ?? [], (b) => parseInt(b, 16));

export async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', utf8(text)));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

const without = (o: Record<string, unknown>, ...names: string[]) =>
  Object.fromEntries(Object.entries(o).filter(([k]) => !names.includes(k)));

/** DESIGN §5's rule: each kind has one boundary class and trust level; only a mediated decision carries a decision. */
function semantics(r: Record<string, unknown>): Check {
  const rule: Record<string, [string, string, boolean]> = {
    mediated_decision: ['prevent', 'mediated', true],
    trace_observation: ['detect_only', 'verified', false],
    advisory_evaluation: ['advisory_only', 'advisory', false],
  };
  const want = rule[String(r.receipt_kind)];
  if (want === undefined) return { ok: false, detail: `unknown receipt_kind ${JSON.stringify(r.receipt_kind)}` };
  const [boundary, trust, decision] = want;
  if (r.boundary_class !== boundary || r.trust_level !== trust || (r.decision !== undefined) !== decision) {
    return {
      ok: false,
      detail: `${String(r.receipt_kind)} must have boundary_class ${boundary}, trust_level ${trust} and ${decision ? 'a' : 'no'} decision`,
    };
  }
  return { ok: true, detail: `${String(r.receipt_kind)}: ${boundary}, ${trust}` };
}

export async function checkReceipt(input: unknown): Promise<ReceiptChecks> {
  if (globalThis.crypto?.subtle === undefined) {
    return {
      ok: false,
      unavailable:
        'this page is not a secure context (open it on localhost or over HTTPS), so the browser offers no WebCrypto to check signatures with',
    };
  }
  if (input === null || typeof input !== 'object' || Array.isArray(input))
    return { ok: false, id: { ok: false, detail: 'not a JSON object' } };
  const r = input as Record<string, unknown>;
  const out: ReceiptChecks = { ok: false };
  const recomputed = await sha256Hex(jcs(without(r, 'id', 'signature', 'algorithm')));
  out.id =
    recomputed === r.id
      ? { ok: true, detail: 'the id is the hash of the content' }
      : { ok: false, detail: `the content hashes to ${recomputed}, not to the id ${String(r.id)}` };
  out.semantics = semantics(r);
  const params = (r.action as { parameters?: unknown; parameter_hash?: unknown } | undefined) ?? {};
  if (r.redaction_mode === 'none') {
    const h = await sha256Hex(jcs(params.parameters));
    out.parameterHash =
      h === params.parameter_hash
        ? { ok: true, detail: 'parameters match parameter_hash' }
        : { ok: false, detail: `parameters hash to ${h}, not ${String(params.parameter_hash)}` };
  }
  const key = r.kernel_key;
  const sig = r.signature;
  // `algorithm` is outside the signed text (DESIGN §5): only its absence or "ed25519" is a receipt chio verifies.
  if (r.algorithm !== undefined && r.algorithm !== 'ed25519') {
    out.signature = { ok: false, detail: `algorithm ${JSON.stringify(r.algorithm)} is not ed25519` };
  } else if (typeof key !== 'string' || !HEX64.test(key) || typeof sig !== 'string' || !HEX128.test(sig)) {
    out.signature = { ok: false, detail: 'kernel_key or signature is not lowercase hex of the right length' };
  } else {
    out.kernelKey = key;
    try {
      const publicKey = await crypto.subtle.importKey('raw', bytes(key), { name: 'Ed25519' }, false, ['verify']);
      const good = await crypto.subtle.verify(
        { name: 'Ed25519' },
        publicKey,
        bytes(sig),
        utf8(jcs(without(r, 'signature', 'algorithm'))),
      );
      out.signature = good
        ? { ok: true, detail: 'Ed25519 signature over the canonical body verifies under kernel_key' }
        : { ok: false, detail: 'the Ed25519 signature does not verify under kernel_key' };
    } catch (e) {
      out.signature = { ok: false, detail: `cannot check the signature: ${(e as Error).message}` };
    }
  }
  out.ok = [out.id, out.signature, out.semantics, out.parameterHash].every((c) => c === undefined || c.ok);
  return out;
}

export interface Position {
  seq: number;
  sessionId: string | null;
  sessionPrevSeq: number | null;
  prevHash: string;
  entryHash: string;
}

/** The ledger entry hash (DESIGN §6) recomputed from the receipt's body and the position the server states. */
export async function checkPosition(receipt: unknown, p: Position): Promise<Check> {
  if (globalThis.crypto?.subtle === undefined) return { ok: false, detail: 'no WebCrypto here: not checked' };
  const receiptSha256 = await sha256Hex(jcs(receipt));
  const entry = {
    schema: 'chio.ledger.entry.v1',
    seq: p.seq,
    prev_hash: p.prevHash,
    receipt_sha256: receiptSha256,
    session_id: p.sessionId,
    session_prev_seq: p.sessionPrevSeq,
  };
  const h = await sha256Hex(jcs(entry));
  return h === p.entryHash
    ? { ok: true, detail: `entry ${p.seq}'s hash commits to this receipt and to the entry before it` }
    : {
        ok: false,
        detail: `this receipt at this position hashes to ${h}, not to the stated entry hash ${p.entryHash}`,
      };
}

/** Kernel keys the user trusts, kept in this browser; empty means none pinned yet. */
const PINS = 'chio-explorer-pinned-keys';
export const pinnedKeys = {
  all: (): string[] => {
    try {
      const v = JSON.parse(localStorage.getItem(PINS) ?? '[]') as unknown;
      return Array.isArray(v) ? v.filter((k): k is string => typeof k === 'string' && HEX64.test(k)) : [];
    } catch {
      return [];
    }
  },
  add: (key: string) => localStorage.setItem(PINS, JSON.stringify([...new Set([...pinnedKeys.all(), key])])),
  remove: (key: string) => localStorage.setItem(PINS, JSON.stringify(pinnedKeys.all().filter((k) => k !== key))),
};
