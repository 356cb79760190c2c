/**
 * `chio cert verify`. A certificate is only as good as its signer, and the signer_key it
 * names is attacker-controlled (anyone can sign a body with a fresh key and name that key), so the
 * signer must be a key the verifier passed: a trusted authority key (which may certify any
 * session) or a trusted kernel key (which certifies its own sessions only: signer_key ===
 * body.kernel_key). Then light: the signature under that key, a body that records no failure, and
 * a kernel key the caller trusts (when it named any). Full (with the ledger): the kernel key must
 * be a trusted kernel key, the session is walked again, every receipt re-verified under that key,
 * and the count and ledger_binding matched — so a receipt that vanished from the store after issue
 * is caught. The verdict is a value.
 * Owns: certificate verification. Reads the ledger; must not import the append path.
 */
import { canonicalJson, hashCanonical, verifySignature } from '../../crypto/index.js';
import type { Ledger } from '../../ledger/index.js';
import type { PgLedger } from '../../ledger/pg/open.js';
import { verifyReceipt } from '../../receipt/index.js';
import type { Certificate } from './schema.js';
import { readSession, readSessionPg } from './session.js';
import type { SessionRead } from './session.js';

export type CertificateVerdict = { passed: true; full: boolean } | { passed: false; reason: string };

export interface VerifyCertificateOptions {
  /** Kernel public keys (hex) the verifier trusts. A kernel key may sign certificates for its own sessions; when any is given, the certificate's kernel_key must be one of them. */
  trustedKernelKeys?: ReadonlySet<string> | undefined;
  /** Authority public keys (hex) the verifier trusts to sign certificates for any session. */
  trustedAuthorityKeys?: ReadonlySet<string> | undefined;
  /**
   * With the ledger: full verification (needs a trusted kernel key). A PostgreSQL ledger is read
   * asynchronously: use `verifyCertificateOn`.
   */
  ledger?: Ledger | undefined;
  /** Or the session as already read from a ledger (`readSession`, `readSessionPg`): full verification against it. */
  session?: SessionRead | undefined;
  onProgress?: (done: number, total: number) => void;
}

const NONE: ReadonlySet<string> = new Set();

/** Why the certificate's signer is not one the verifier trusts, or null when it is. */
function untrustedSigner(
  cert: Certificate,
  kernels: ReadonlySet<string>,
  authorities: ReadonlySet<string>,
): string | null {
  if (kernels.size === 0 && authorities.size === 0)
    return 'no trusted kernel or authority key was given; a certificate verifies only under a key the verifier trusts';
  if (authorities.has(cert.signer_key)) return null;
  if (!kernels.has(cert.signer_key)) return `signer ${cert.signer_key} is not a trusted kernel or authority key`;
  // A kernel vouches for the receipts it signed, not for another kernel's session.
  if (cert.signer_key !== cert.body.kernel_key)
    return `signer ${cert.signer_key} is a trusted kernel key but not the session's kernel (${cert.body.kernel_key}); a kernel key signs certificates for its own sessions only`;
  return null;
}

export function verifyCertificate(cert: Certificate, o: VerifyCertificateOptions): CertificateVerdict {
  const fail = (reason: string): CertificateVerdict => ({ passed: false, reason });
  const kernels = o.trustedKernelKeys ?? NONE;
  const signerProblem = untrustedSigner(cert, kernels, o.trustedAuthorityKeys ?? NONE);
  if (signerProblem !== null) return fail(signerProblem);
  if (!verifySignature(cert.signer_key, canonicalJson(cert.body), cert.signature))
    return fail('certificate signature invalid');
  const b = cert.body;
  const failed = [
    ['signatures', b.all_signatures_valid],
    ['chain', b.chain_continuous],
    ['scope', b.scope_compliant],
    ['budget', b.budget_compliant],
    ['guards', b.guards_compliant],
  ]
    .filter(([, ok]) => ok !== true)
    .map(([name]) => name);
  if (failed.length > 0 || b.anomalies.length > 0)
    return fail(`certificate records a failed check (${[...failed, ...b.anomalies].join(', ')})`);
  // Light verification under an authority alone takes the kernel key on the authority's word;
  // naming kernel keys pins it, and re-verifying receipts needs it pinned.
  const full = o.session ?? (o.ledger === undefined ? undefined : () => readSession(o.ledger!, b.session_id));
  if ((kernels.size > 0 || full !== undefined) && !kernels.has(b.kernel_key))
    return fail(`kernel key ${b.kernel_key} is not trusted`);
  if (full === undefined) return { passed: true, full: false };

  const { entries, chainProblem } = typeof full === 'function' ? full() : full;
  if (chainProblem !== null) return fail(`session chain broken in the store: ${chainProblem}`);
  if (entries.length !== b.receipt_count)
    return fail(
      `the store holds ${entries.length} receipts for session ${b.session_id}, the certificate ${b.receipt_count}`,
    );
  // Every receipt under the certificate's kernel key, which was checked above to be a trusted one.
  const trusted = new Set([b.kernel_key]);
  for (const [i, e] of entries.entries()) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(e.body); // the store's bytes: attacker-controlled if the file was edited
    } catch {
      return fail(`receipt at seq ${e.seq} is not JSON`);
    }
    const v = verifyReceipt(parsed, { trustedKernelKeys: trusted });
    if (!v.ok || v.id !== e.receiptId)
      return fail(`receipt at seq ${e.seq} fails re-verification${v.ok ? '' : ` (${v.check})`}`);
    if (o.onProgress !== undefined && (i + 1) % 1000 === 0) o.onProgress(i + 1, entries.length);
  }
  const binding = b.ledger_binding;
  const actual = {
    first_seq: entries[0]!.seq,
    last_seq: entries.at(-1)!.seq,
    session_head_entry_hash: entries.at(-1)!.entryHash,
    receipt_set_digest: hashCanonical(entries.map((e) => e.receiptId)),
  };
  for (const key of Object.keys(actual) as Array<keyof typeof actual>) {
    if (binding[key] !== actual[key]) return fail(`ledger_binding.${key} does not match the store`);
  }
  return { passed: true, full: true };
}

/**
 * `verifyCertificate`, light without a ledger, full against either ledger: an SQLite file, or
 * PostgreSQL (the certificate's session read in one snapshot). The signature and trust checks run
 * first, so an untrusted certificate never costs a read.
 */
export async function verifyCertificateOn(
  cert: Certificate,
  o: Omit<VerifyCertificateOptions, 'ledger' | 'session'> & { ledger?: Ledger | PgLedger | undefined },
): Promise<CertificateVerdict> {
  const { ledger, ...rest } = o;
  if (ledger === undefined || !('kind' in ledger)) return verifyCertificate(cert, { ...rest, ledger });
  const light = verifyCertificate(cert, rest);
  if (!light.passed) return light;
  if (!(rest.trustedKernelKeys ?? NONE).has(cert.body.kernel_key))
    return { passed: false, reason: `kernel key ${cert.body.kernel_key} is not trusted` };
  return verifyCertificate(cert, { ...rest, session: await readSessionPg(ledger, cert.body.session_id) });
}
