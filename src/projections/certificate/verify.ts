/**
 * `chio cert verify` (issue 5). Light: the certificate's signature under its signer_key, a body
 * that records no failure, and a kernel key the caller trusts. Full (with the ledger): the session
 * walked again, every receipt re-verified, and the count and ledger_binding matched — so a receipt
 * that vanished from the store after issue is caught. The verdict is a value.
 * Owns: certificate verification. Reads the ledger; must not import the append path.
 */
import { canonicalJson, hashCanonical, verifySignature } from '../../crypto/index.js';
import type { Ledger } from '../../ledger/index.js';
import { verifyReceipt } from '../../receipt/index.js';
import type { Certificate } from './schema.js';
import { readSession } from './session.js';

export type CertificateVerdict = { passed: true; full: boolean } | { passed: false; reason: string };

export function verifyCertificate(
  cert: Certificate,
  o: { trustedKernelKeys: ReadonlySet<string>; ledger?: Ledger | undefined; onProgress?: (done: number, total: number) => void },
): CertificateVerdict {
  const fail = (reason: string): CertificateVerdict => ({ passed: false, reason });
  if (!verifySignature(cert.signer_key, canonicalJson(cert.body), cert.signature)) return fail('certificate signature invalid');
  const b = cert.body;
  const failed = [
    ['signatures', b.all_signatures_valid], ['chain', b.chain_continuous], ['scope', b.scope_compliant], ['budget', b.budget_compliant], ['guards', b.guards_compliant],
  ].filter(([, ok]) => ok !== true).map(([name]) => name);
  if (failed.length > 0 || b.anomalies.length > 0) return fail(`certificate records a failed check (${[...failed, ...b.anomalies].join(', ')})`);
  if (!o.trustedKernelKeys.has(b.kernel_key)) return fail(`kernel key ${b.kernel_key} is not trusted`);
  if (o.ledger === undefined) return { passed: true, full: false };

  const { entries, chainProblem } = readSession(o.ledger, b.session_id);
  if (chainProblem !== null) return fail(`session chain broken in the store: ${chainProblem}`);
  if (entries.length !== b.receipt_count) return fail(`the store holds ${entries.length} receipts for session ${b.session_id}, the certificate ${b.receipt_count}`);
  const trusted = new Set([b.kernel_key]);
  for (const [i, e] of entries.entries()) {
    const v = verifyReceipt(JSON.parse(e.body), { trustedKernelKeys: trusted });
    if (!v.ok || v.id !== e.receiptId) return fail(`receipt at seq ${e.seq} fails re-verification${v.ok ? '' : ` (${v.check})`}`);
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
