// The compliance certificate golden vector: generating over the shared ledger vectors reproduces the body bytes and signature exactly.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalJson, fromHex, hashCanonical, signerFromSeed, verifySignature } from '../../src/crypto/index.js';
import { appendReceiptSync, openLedger } from '../../src/ledger/index.js';
import { generateCertificate, verifyCertificate } from '../../src/projections/certificate/index.js';
import { tempDir } from '../helpers/tmp.js';
import { loadVector } from '../helpers/vectors.js';

const v = loadVector('receipt/chio-v1.json');
const c = loadVector('certificate/chio-certificate-v1.json');

describe('chio.compliance.certificate.v1 golden vector', () => {
  it('is reproduced byte for byte from the ledger vectors', () => {
    const ledger = openLedger(join(tempDir(), 'vec.sqlite'));
    const receipts = [v.receipts.allow.receipt, v.receipts.deny.receipt, v.receipts.trace_observation.receipt];
    v.ledger.entries.forEach((e: any, i: number) => appendReceiptSync(ledger, { receipt: receipts[i], sessionId: e.session_id }));
    const cert = generateCertificate(ledger, { sessionId: c.session_id, signer: { role: 'authority', key: signerFromSeed(fromHex(c.authority_seed_hex)) }, now: c.certificate.body.issued_at });
    ledger.close();
    expect(cert).toEqual(c.certificate);
    expect(canonicalJson(cert.body)).toBe(c.body_jcs);
    expect(c.certificate.body.ledger_binding).toEqual({
      first_seq: 1,
      last_seq: 3,
      session_head_entry_hash: v.ledger.entries[2].entry_hash,
      receipt_set_digest: hashCanonical(c.receipt_ids_in_session_order),
    });
    expect(canonicalJson(c.receipt_ids_in_session_order)).toBe(c.receipt_set_digest_input_jcs);
    expect(verifySignature(c.certificate.signer_key, c.body_jcs, c.certificate.signature)).toBe(true);
    // The vector is signed by an authority key: it verifies when that key is trusted as an authority, not as a kernel.
    expect(verifyCertificate(c.certificate, { trustedAuthorityKeys: new Set([c.certificate.signer_key]) })).toEqual({ passed: true, full: false });
    expect(verifyCertificate(c.certificate, { trustedKernelKeys: new Set([c.certificate.body.kernel_key, c.certificate.signer_key]) })).toMatchObject({ passed: false });
  });
});
