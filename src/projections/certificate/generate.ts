/**
 * `chio cert generate`: select every receipt of a session by walking its chain, check
 * signatures (and the trusted kernel key), the chain, scope prefixes, the budget and required
 * guard evidence, then sign a certificate. Fail-fast: a certificate is produced only when every
 * check passes — there is never a certificate recording a failure. Order of the checks: empty
 * session → receipt signatures and kernel key → chain → scope → budget → guards.
 * The caller names the signer and its role; this module never makes a key. A kernel signs
 * certificates for its own sessions only, so with a kernel signer every receipt must be signed by
 * that same key (verification holds a kernel signer to signer_key === body.kernel_key).
 * Scope, budget and guards are judged on allowed receipts: a denial is enforcement, not a breach.
 * Owns: generation. Reads the ledger; must not import the append path.
 */
import { canonicalJson, hashCanonical, toHex } from '../../crypto/index.js';
import type { Ed25519Signer } from '../../crypto/index.js';
import { ChioError } from '../../errors.js';
import type { Ledger } from '../../ledger/index.js';
import type { PgLedger } from '../../ledger/pg/open.js';
import { verifyReceipt } from '../../receipt/index.js';
import type { Receipt } from '../../receipt/index.js';
import { CERTIFICATE_SCHEMA_ID } from './schema.js';
import type { Certificate, CertificateBody } from './schema.js';
import { readSession, readSessionPg } from './session.js';
import type { SessionRead } from './session.js';

/**
 * Who signs the certificate. `kernel`: the key that signed the session's receipts (verifiers
 * trust it with their kernel keys). `authority`: a separate certifying key (verifiers must trust
 * it as an authority key).
 */
export interface CertificateSigner {
  role: 'kernel' | 'authority';
  key: Ed25519Signer;
}

export interface GenerateOptions {
  sessionId: string;
  /** Most allowed receipts the session may hold; 0 = unlimited. */
  budgetLimit?: number;
  /** Tool-name prefixes an allowed receipt must start with (none = any). */
  authorizedScopes?: readonly string[];
  /** Guards that must have passed on every allowed receipt. */
  requiredGuards?: readonly string[];
  /** When given, every receipt must be signed by one of these kernel keys. */
  trustedKernelKeys?: ReadonlySet<string> | undefined;
  signer: CertificateSigner;
  now?: number;
  onProgress?: (done: number, total: number) => void;
}

export function signCertificate(body: CertificateBody, signer: Ed25519Signer): Certificate {
  return { body, signer_key: signer.publicKeyHex, signature: toHex(signer.sign(canonicalJson(body))) };
}

/** Reads the session from an SQLite ledger and certifies it. */
export function generateCertificate(ledger: Ledger, o: GenerateOptions): Certificate {
  return certifySession(readSession(ledger, o.sessionId), o);
}

/** The same on either ledger: an SQLite file, or PostgreSQL (the session read in one snapshot). */
export async function generateCertificateOn(ledger: Ledger | PgLedger, o: GenerateOptions): Promise<Certificate> {
  return certifySession(
    'kind' in ledger ? await readSessionPg(ledger, o.sessionId) : readSession(ledger, o.sessionId),
    o,
  );
}

/** Checks a session as read from the ledger, in the order above, and signs its certificate. */
export function certifySession(read: SessionRead, o: GenerateOptions): Certificate {
  const { entries, chainProblem } = read;
  if (entries.length === 0) {
    throw new ChioError('CHIO-CLI-SESSION-EMPTY', `no receipts found for session ${o.sessionId}`);
  }
  const receipts: Receipt[] = [];
  let kernelKey: string | undefined;
  for (const [i, e] of entries.entries()) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(e.body);
    } catch {
      throw new ChioError('CHIO-CERT-RECEIPT-INVALID', `receipt at seq ${e.seq} is not JSON`);
    }
    const v = verifyReceipt(parsed);
    if (!v.ok || v.id !== e.receiptId) {
      throw new ChioError(
        'CHIO-CERT-RECEIPT-INVALID',
        `receipt at seq ${e.seq} fails verification (${v.ok ? 'receipt_id column' : v.check}): ${v.ok ? 'it does not match the receipt' : v.message}`,
      );
    }
    if (o.trustedKernelKeys !== undefined && !o.trustedKernelKeys.has(v.receipt.kernel_key)) {
      throw new ChioError(
        'CHIO-CERT-UNTRUSTED-KERNEL-KEY',
        `receipt at seq ${e.seq} is signed by ${v.receipt.kernel_key}, not a trusted kernel key`,
      );
    }
    if (o.signer.role === 'kernel' && v.receipt.kernel_key !== o.signer.key.publicKeyHex) {
      throw new ChioError(
        'CHIO-CERT-UNTRUSTED-KERNEL-KEY',
        `receipt at seq ${e.seq} is signed by ${v.receipt.kernel_key}, not by the signing kernel key ${o.signer.key.publicKeyHex}; a kernel key certifies its own sessions only`,
      );
    }
    if (kernelKey !== undefined && kernelKey !== v.receipt.kernel_key) {
      throw new ChioError(
        'CHIO-CERT-KERNEL-KEY-MISMATCH',
        `the session is signed by more than one kernel key (${kernelKey} and ${v.receipt.kernel_key} at seq ${e.seq})`,
      );
    }
    kernelKey = v.receipt.kernel_key;
    receipts.push(v.receipt);
    if (o.onProgress !== undefined && (i + 1) % 1000 === 0) o.onProgress(i + 1, entries.length);
  }
  if (chainProblem !== null)
    throw new ChioError('CHIO-CERT-CHAIN-BROKEN', `the session chain is broken: ${chainProblem}`);

  const allowed = receipts
    .map((r, i) => ({ r, seq: entries[i]!.seq }))
    .filter(({ r }) => r.decision?.verdict === 'allow');
  const scopes = o.authorizedScopes ?? [];
  if (scopes.length > 0) {
    const out = allowed.find(({ r }) => !scopes.some((s) => r.tool_name.startsWith(s)));
    if (out !== undefined)
      throw new ChioError(
        'CHIO-CERT-SCOPE-VIOLATION',
        `allowed receipt at seq ${out.seq} calls ${out.r.tool_name}, outside the authorized scope (${scopes.join(', ')})`,
      );
  }
  const limit = o.budgetLimit ?? 0;
  if (limit > 0 && allowed.length > limit) {
    throw new ChioError(
      'CHIO-CERT-BUDGET-EXCEEDED',
      `the session has ${allowed.length} allowed receipts, more than the budget of ${limit}`,
    );
  }
  for (const guard of o.requiredGuards ?? []) {
    const bypass = allowed.find(({ r }) => !(r.evidence ?? []).some((e) => e.guard_name === guard && e.verdict));
    if (bypass !== undefined)
      throw new ChioError(
        'CHIO-CERT-GUARD-BYPASS',
        `allowed receipt at seq ${bypass.seq} carries no passing evidence from required guard ${guard}`,
      );
  }

  const body: CertificateBody = {
    schema: CERTIFICATE_SCHEMA_ID,
    session_id: o.sessionId,
    issued_at: o.now ?? Math.floor(Date.now() / 1000),
    receipt_count: receipts.length,
    first_receipt_at: receipts[0]!.timestamp,
    last_receipt_at: receipts.at(-1)!.timestamp,
    all_signatures_valid: true,
    chain_continuous: true,
    scope_compliant: true,
    budget_compliant: true,
    guards_compliant: true,
    anomalies: [],
    kernel_key: kernelKey!,
    ledger_binding: {
      first_seq: entries[0]!.seq,
      last_seq: entries.at(-1)!.seq,
      session_head_entry_hash: entries.at(-1)!.entryHash,
      receipt_set_digest: hashCanonical(entries.map((e) => e.receiptId)),
    },
  };
  return signCertificate(body, o.signer.key);
}
