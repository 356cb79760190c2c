/**
 * The signer and the verifier build a receipt's three texts (id input, signed text, stored body)
 * from runs of members sorted once (ReceiptTextParts); they must be byte for byte the RFC 8785
 * texts of DESIGN §5, which joinCanonicalMembers builds member by member, whatever member names a
 * receipt carries (attacker-controlled for a receipt read from a file: names that sort around
 * "algorithm", "id" and "signature", non-ASCII names).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, joinCanonicalMembers, toHex } from '../../src/crypto/index.js';
import { ReceiptTextParts } from '../../src/receipt/encode.js';
import {
  bodyText,
  canonicalMembers,
  idInputText,
  signedText,
  signReceipt,
  verifyReceipt,
} from '../../src/receipt/index.js';
import { allowDraft, denyDraft, observationDraft, testSigner } from '../helpers/receipts.js';

const NAMES = [
  'action',
  'algorithm',
  'a',
  'b',
  'i',
  'ia',
  'id',
  'id0',
  'idx',
  'kernel_key',
  'metadata',
  'sig',
  'signature',
  'signaturf',
  'signatures',
  'timestamp',
  'z',
  'Z',
  '_',
  'é',
  '€',
  '😀',
  '',
];

describe("a receipt's texts from members sorted once", () => {
  it('equal the member-by-member RFC 8785 joins for any set of member names', () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.oneof(fc.constantFrom(...NAMES), fc.string({ unit: 'grapheme', maxLength: 6 })),
          fc.jsonValue({ maxDepth: 1 }),
          {
            maxKeys: 12,
          },
        ),
        fc.uint8Array({ minLength: 32, maxLength: 32 }).map(toHex),
        fc.uint8Array({ minLength: 64, maxLength: 64 }).map(toHex),
        (value, id, signature) => {
          // Values JCS refuses (unsafe integers, lone surrogates) are another test's (canonical.test.ts).
          let members: Map<string, string>;
          try {
            members = canonicalMembers(value as Record<string, unknown>);
          } catch {
            fc.pre(false);
            return;
          }
          const parts = new ReceiptTextParts(members);
          // Built straight from the object (the signer's path), `action` given as its text.
          const record = value as Record<string, unknown>;
          const direct = ReceiptTextParts.ofReceipt(record, members.get('action') ?? canonicalJson(null));
          const idText = JSON.stringify(id);
          expect(direct.idInput).toBe(parts.idInput);
          expect(direct.signed(idText)).toBe(parts.signed(idText));
          expect(direct.body(idText, '"s"')).toBe(parts.body(idText, '"s"'));
          const signatureText = JSON.stringify(signature);
          const whole = new Map(members).set('id', idText).set('signature', signatureText);
          expect(parts.idInput).toBe(idInputText(whole));
          expect(parts.signed(idText)).toBe(signedText(whole));
          expect(parts.body(idText, signatureText)).toBe(bodyText(whole));
          expect(parts.body(idText, signatureText)).toBe(joinCanonicalMembers(whole));
          expect(parts.body(idText, signatureText)).toBe(canonicalJson({ ...(value as object), id, signature }));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('an empty receipt still has its id (and signature) members', () => {
    const parts = new ReceiptTextParts(new Map());
    expect(parts.idInput).toBe('{}');
    expect(parts.signed('"x"')).toBe('{"id":"x"}');
    expect(parts.body('"x"', '"y"')).toBe('{"id":"x","signature":"y"}');
  });

  it('a member named with a lone surrogate is refused, as by the joins', () => {
    expect(() => new ReceiptTextParts(new Map([['\uD800', '1']]))).toThrow(/lone surrogate/);
  });

  it('a signed receipt verifies, with or without the unsigned algorithm member, and its verdict carries the texts the joins build', () => {
    const drafts = [allowDraft(1), denyDraft(2), observationDraft(3)];
    for (const [i, d] of drafts.entries()) {
      const signed = signReceipt(d, testSigner, { nonce: `n-${i}` });
      for (const receipt of [signed, { ...signed, algorithm: 'ed25519' as const }]) {
        const verdict = verifyReceipt(receipt);
        if (!verdict.ok) throw new Error(verdict.message);
        const members = canonicalMembers(receipt);
        expect(verdict.body).toBe(bodyText(members));
        expect(verdict.signed).toBe(signedText(members));
        expect(verdict.signed).not.toContain('"algorithm"');
        expect(verdict.body.includes('"algorithm":"ed25519"')).toBe('algorithm' in receipt);
      }
    }
  });
});
