// The hand-written entry hash input is byte-identical to RFC 8785 of the same object, for any values a ledger can hold.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/crypto/index.js';
import { entryHash, entryHashInput, LEDGER_ENTRY_SCHEMA_ID } from '../../src/ledger/entry.js';
import { hashCanonical } from '../../src/crypto/index.js';

const hex64 = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString('hex'));

describe('entry hash input', () => {
  it('equals canonicalJson({schema, seq, prev_hash, receipt_sha256, session_id, session_prev_seq})', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
        hex64,
        hex64,
        fc.option(fc.string({ unit: 'grapheme', maxLength: 40 }), { nil: null }),
        fc.option(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), { nil: null }),
        (seq, prevHash, receiptSha256, sessionId, sessionPrevSeq) => {
          const link = { seq, prevHash, receiptSha256, sessionId, sessionPrevSeq };
          const object = {
            schema: LEDGER_ENTRY_SCHEMA_ID,
            seq,
            prev_hash: prevHash,
            receipt_sha256: receiptSha256,
            session_id: sessionId,
            session_prev_seq: sessionPrevSeq,
          };
          expect(entryHashInput(link)).toBe(canonicalJson(object));
          expect(entryHash(link)).toBe(hashCanonical(object));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('a session id with a lone surrogate is refused rather than hashed', () => {
    expect(() =>
      entryHash({
        seq: 1,
        prevHash: '0'.repeat(64),
        receiptSha256: 'a'.repeat(64),
        sessionId: 'x\ud800',
        sessionPrevSeq: null,
      }),
    ).toThrow(/lone surrogate/);
  });
});
