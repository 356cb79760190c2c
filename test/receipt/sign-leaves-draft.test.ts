/**
 * Signing builds the receipt from the draft without touching it: a producer may keep its draft,
 * sign it again (a retry, a second nonce) or share its parameters and metadata objects with other
 * code. The receipt is a new, frozen object: the draft's members, then kernel_key, id and
 * signature; only the parameters object is shared with the draft (the hash
 * covers it as the caller sent it, DESIGN §4), and it is left unfrozen.
 */
import { describe, expect, it } from 'vitest';
import { signReceipt, signReceiptAsync, verifyReceipt } from '../../src/receipt/index.js';
import type { ReceiptDraft } from '../../src/receipt/index.js';
import { allowDraft, denyDraft, testSigner } from '../helpers/receipts.js';

function withMetadata(draft: ReceiptDraft): ReceiptDraft {
  return { ...draft, metadata: { request_id: 'req-7', nested: { a: [1, 2] } } };
}

describe('signing a receipt leaves the draft as the producer built it', () => {
  for (const [name, sign] of [
    ['signReceipt', (d: ReceiptDraft, nonce: string) => Promise.resolve(signReceipt(d, testSigner, { nonce }))],
    ['signReceiptAsync', (d: ReceiptDraft, nonce: string) => signReceiptAsync(d, testSigner, { nonce })],
  ] as const) {
    it(`${name}: the draft, its metadata and its parameters are unchanged and unfrozen; signing it twice gives two valid receipts`, async () => {
      const draft = withMetadata(denyDraft(3));
      const before = structuredClone(draft);
      const first = await sign(draft, 'nonce-1');
      const second = await sign(draft, 'nonce-2');
      expect(draft).toStrictEqual(before);
      expect(Object.isFrozen(draft)).toBe(false);
      expect(Object.isFrozen(draft.metadata)).toBe(false);
      expect(Object.isFrozen(draft.action)).toBe(false);
      expect(Object.isFrozen(draft.action.parameters)).toBe(false);
      expect(draft.metadata).not.toHaveProperty('chio_receipt_signing_nonce');
      expect(draft).not.toHaveProperty('kernel_key');
      expect(draft).not.toHaveProperty('id');
      expect(first.id).not.toBe(second.id);
      expect(verifyReceipt(first).ok).toBe(true);
      expect(verifyReceipt(second).ok).toBe(true);
    });

    it(`${name}: the receipt is a new frozen object, the draft's members, then kernel_key, id and signature`, async () => {
      const draft = withMetadata(allowDraft(5));
      const receipt = await sign(draft, 'nonce-order');
      expect(receipt).not.toBe(draft);
      expect(Object.isFrozen(receipt)).toBe(true);
      expect(Object.isFrozen(receipt.metadata)).toBe(true);
      expect(receipt.metadata).not.toBe(draft.metadata);
      expect(receipt.action).not.toBe(draft.action);
      // The parameters are the caller's object, hashed as sent.
      expect(receipt.action.parameters).toBe(draft.action.parameters);
      // The draft's members (in the order of its schema, as validated), then what the signer adds.
      const keys = Object.keys(receipt);
      expect(keys.slice(-3)).toEqual(['kernel_key', 'id', 'signature']);
      expect(keys.slice(0, -3).sort()).toEqual(Object.keys(draft).sort());
      expect(receipt.metadata).toEqual({ ...draft.metadata, chio_receipt_signing_nonce: 'nonce-order' });
    });
  }
});
