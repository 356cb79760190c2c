import { describe, expect, it } from 'vitest';
import { fromHex, signerFromSeed } from '../../src/crypto/index.js';
import {
  idInputText,
  signReceipt,
  signReceiptAsync,
  signedText,
  canonicalMembers,
  verifyReceipt,
} from '../../src/receipt/index.js';
import type { Receipt, ReceiptDraft } from '../../src/receipt/index.js';
import { loadVector } from '../helpers/vectors.js';

const v = loadVector('receipt/chio-v1.json');
const signer = signerFromSeed(fromHex(v.ed25519_seed_hex));

/** The vector receipt as a producer would hand it over: no id, kernel_key or signature, nonce given separately. */
function draftOf(receipt: Receipt): { draft: ReceiptDraft; nonce: string } {
  const { id: _id, signature: _sig, kernel_key: _key, ...rest } = receipt;
  const { chio_receipt_signing_nonce: nonce, ...metadata } = rest.metadata as Record<string, unknown>;
  const draft = { ...rest, metadata } as ReceiptDraft;
  return { draft, nonce: nonce as string };
}

describe('chio.receipt.v1 golden vectors (independent implementation)', () => {
  it('derives the vector public key from the seed', () => {
    expect(signer.publicKeyHex).toBe(v.ed25519_public_key_hex);
  });

  for (const [name, vec] of Object.entries<any>(v.receipts)) {
    describe(name, () => {
      it('signing the draft reproduces id input, id, signed bytes and signature exactly', () => {
        const { draft, nonce } = draftOf(vec.receipt);
        const receipt = signReceipt(draft, signer, { nonce });
        const members = canonicalMembers(receipt);
        expect(idInputText(members)).toBe(vec.id_input_jcs);
        expect(receipt.id).toBe(vec.id);
        expect(signedText(members)).toBe(vec.signed_jcs);
        expect(receipt.signature).toBe(vec.signature);
        expect(receipt).toEqual(vec.receipt);
      });

      it('signing on the thread pool (signReceiptAsync) gives the same bytes', async () => {
        const { draft, nonce } = draftOf(vec.receipt);
        const receipt = await signReceiptAsync(draft, signer, { nonce });
        expect(receipt).toEqual(vec.receipt);
      });

      it('the vector receipt verifies', () => {
        const verdict = verifyReceipt(vec.receipt);
        expect(verdict).toMatchObject({ ok: true, id: vec.id });
      });
    });
  }

  it('H("null") is the no-output content hash', async () => {
    const { NULL_CONTENT_HASH } = await import('../../src/crypto/index.js');
    expect(NULL_CONTENT_HASH).toBe(v.sha256_of_null_bytes);
  });
});

describe('hostile member names', () => {
  it('a "__proto__" member in metadata is signed, stored and verified as an ordinary member', () => {
    const draft = JSON.parse(
      '{"timestamp":1,"capability_id":"c","tool_server":"s","tool_name":"t","action":{"parameters":{"__proto__":{"x":1}}},' +
        '"decision":{"verdict":"allow"},"receipt_kind":"mediated_decision","boundary_class":"prevent","tool_origin":"caller_executed",' +
        '"redaction_mode":"none","content_hash":"' +
        '0'.repeat(64) +
        '","policy_hash":"","trust_level":"mediated","metadata":{"__proto__":{"polluted":true}}}',
    );
    const receipt = signReceipt(draft, signer, { nonce: 'proto' });
    const text = JSON.stringify(receipt);
    expect(text).toContain('"__proto__":{"polluted":true}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(verifyReceipt(JSON.parse(text))).toMatchObject({ ok: true, id: receipt.id });
  });
});
