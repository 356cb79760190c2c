// Properties of checkpoint notes: sign then parse/verify gives the body back for random origins,
// sizes, roots and keys; any origin is either refused by checkpointText or round trips; no input
// makes parse or verify throw; and no single-character change to a signed note still verifies.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkpointText,
  parseCheckpointNote,
  signCheckpoint,
  signerFromSeed,
  verifyCheckpointNote,
} from '../../src/crypto/index.js';
import type { CheckpointBody } from '../../src/crypto/index.js';

const RUNS = { numRuns: 300 };
/** Characters an origin may hold, plus a few multi-byte ones; no spaces, '+' or controls. */
const originChar = fc.oneof(
  fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789./-_:~%@!*'),
  fc.constantFrom('é', 'ß', '☃', '😀', '中', '\u2014', '\u00ad'),
);
const origin = fc.array(originChar, { minLength: 1, maxLength: 60 }).map((cs) => cs.join(''));
const body: fc.Arbitrary<CheckpointBody> = fc.record({
  origin,
  treeSize: fc.oneof(fc.constant(0), fc.constant(Number.MAX_SAFE_INTEGER), fc.nat(), fc.maxSafeNat()),
  rootHash: fc.uint8Array({ minLength: 32, maxLength: 32 }),
});
const seed = fc.uint8Array({ minLength: 32, maxLength: 32 });

describe('checkpoint note properties', () => {
  it('sign ∘ parse and sign ∘ verify give back the body, under the origin or another key name', () => {
    fc.assert(
      fc.property(body, seed, fc.option(origin, { nil: undefined }), (b, s, keyName) => {
        const signer = signerFromSeed(s);
        const note = signCheckpoint(b, signer, keyName);
        const parsed = parseCheckpointNote(note);
        expect(parsed).toMatchObject({ ok: true, body: b, text: checkpointText(b) });
        if (!parsed.ok) return;
        expect(parsed.signatures).toHaveLength(1);
        expect(parsed.signatures[0]!.keyName).toBe(keyName ?? b.origin);
        expect(verifyCheckpointNote(note, [signer.publicKeyHex], keyName === undefined ? {} : { keyName })).toEqual({
          ok: true,
          body: b,
          signerKey: signer.publicKeyHex,
        });
      }),
      RUNS,
    );
  });

  it('any string as origin is refused with RangeError or round trips exactly', () => {
    const seen = { refused: 0, accepted: 0 };
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 30 }), (o) => {
        let text: string;
        try {
          text = checkpointText({ origin: o, treeSize: 1, rootHash: new Uint8Array(32) });
        } catch (error) {
          expect(error).toBeInstanceOf(RangeError);
          seen.refused++;
          return;
        }
        const note = signCheckpoint(
          { origin: o, treeSize: 1, rootHash: new Uint8Array(32) },
          signerFromSeed(new Uint8Array(32)),
        );
        expect(note.startsWith(text)).toBe(true);
        expect(parseCheckpointNote(note)).toMatchObject({ ok: true, body: { origin: o } });
        seen.accepted++;
      }),
      { numRuns: 1000 },
    );
    // Both branches ran, so the property says something about each.
    expect(seen.refused).toBeGreaterThan(0);
    expect(seen.accepted).toBeGreaterThan(0);
  });

  it('parse and verify never throw, whatever the string or bytes', () => {
    const note = signCheckpoint(
      { origin: 'chio-ledger/x', treeSize: 7, rootHash: new Uint8Array(32).fill(1) },
      signerFromSeed(new Uint8Array(32)),
    );
    const pieces = fc.constantFrom(
      '\n',
      '\n\n',
      '\u2014 ',
      ' ',
      '+',
      '=',
      '\r',
      '\u0000',
      '\ufffd',
      '\ud800',
      'AAAA',
      '0',
      '01',
      'chio-ledger/x',
      note,
    );
    const texts = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 200 }),
      fc.array(pieces, { maxLength: 12 }).map((p) => p.join('')),
    );
    fc.assert(
      fc.property(fc.oneof(texts, fc.uint8Array({ maxLength: 300 })), (input) => {
        const parsed = parseCheckpointNote(input);
        if (!parsed.ok) expect(parsed.reason.length).toBeGreaterThan(0);
        const verified = verifyCheckpointNote(input, ['00'.repeat(32)]);
        expect(verified.ok).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  it('no single-character change to a signed note still verifies under the signing key', () => {
    fc.assert(
      fc.property(body, seed, fc.nat(), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }), (b, s, at, c) => {
        const signer = signerFromSeed(s);
        const note = signCheckpoint(b, signer);
        const chars = [...note];
        const i = at % chars.length;
        fc.pre(chars[i] !== c);
        chars[i] = c;
        expect(verifyCheckpointNote(chars.join(''), [signer.publicKeyHex]).ok).toBe(false);
      }),
      RUNS,
    );
  });
});
