// The append skips re-verification only for the very receipt objects this process's signer
// returned (a private field only sign.ts can add); any other object — however it was made — is
// verified in full.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendReceiptSync, openLedger, verifyChain } from '../../src/ledger/index.js';
import { signReceipt, trustedBodyText } from '../../src/receipt/index.js';
import type { Receipt } from '../../src/receipt/index.js';
import { allowDraft, testSigner } from '../helpers/receipts.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir();
let n = 0;
const freshLedger = () => openLedger(join(dir, `signed-here-${++n}.sqlite`));

describe('append of receipts not produced by this signer', () => {
  it('verifies a structurally identical copy in full: with a signature taken from another receipt it is refused', () => {
    const ledger = freshLedger();
    const a = signReceipt(allowDraft(1), testSigner, { nonce: 'a' });
    const b = signReceipt(allowDraft(2), testSigner, { nonce: 'b' });
    const copy = JSON.parse(JSON.stringify(a)) as Receipt;
    expect(trustedBodyText(copy)).toBeUndefined();
    expect(() => appendReceiptSync(ledger, { receipt: { ...copy, signature: b.signature } })).toThrow(
      expect.objectContaining({ code: 'CHIO-RECEIPT-UNVERIFIED', message: expect.stringContaining('(signature)') }),
    );
    // A copy of the frozen signed receipt with one member changed (a fresh object) is refused by its id.
    expect(() => appendReceiptSync(ledger, { receipt: { ...a, timestamp: a.timestamp + 1 } })).toThrow(
      expect.objectContaining({ code: 'CHIO-RECEIPT-UNVERIFIED', message: expect.stringContaining('(id)') }),
    );
    // A copy with a member the format does not know is refused by the schema, even though id and signature still verify.
    expect(() => appendReceiptSync(ledger, { receipt: { ...a, extra: 1 } as unknown as Receipt })).toThrow(
      expect.objectContaining({ code: 'CHIO-RECEIPT-UNVERIFIED', message: expect.stringContaining('(schema)') }),
    );
    // The unchanged copy verifies and is stored with the same bytes the signer recorded.
    appendReceiptSync(ledger, { receipt: copy });
    const body = (ledger.db.prepare('SELECT body FROM ledger_entries WHERE seq = 1').get() as { body: string }).body;
    expect(body).toBe(trustedBodyText(a));
    expect(verifyChain(ledger)).toMatchObject({ ok: true, entries: 1 });
    ledger.close();
  });

  it('stores what was signed for a receipt signed here, even if the caller mutates its own parameters object afterwards', () => {
    const ledger = freshLedger();
    const parameters = { path: '/workspace/a.txt' };
    const receipt = signReceipt(allowDraft(3, { action: { parameters } }), testSigner, { nonce: 'c' });
    const signedBody = trustedBodyText(receipt);
    expect(signedBody).toContain('/workspace/a.txt');
    // The signer freezes what it built; the caller's parameters object stays the caller's.
    expect(Object.isFrozen(receipt)).toBe(true);
    expect(() => {
      (receipt as { timestamp: number }).timestamp = 1;
    }).toThrow(TypeError);
    parameters.path = '/etc/shadow';
    appendReceiptSync(ledger, { receipt });
    const body = (ledger.db.prepare('SELECT body FROM ledger_entries WHERE seq = 1').get() as { body: string }).body;
    expect(body).toBe(signedBody);
    expect(body).not.toContain('/etc/shadow');
    expect(verifyChain(ledger)).toMatchObject({ ok: true, entries: 1 });
    ledger.close();
  });

  it('the mark of a receipt signed here is invisible to its members and lost by every copy', () => {
    const a = signReceipt(allowDraft(4), testSigner, { nonce: 'd' });
    expect(trustedBodyText(a)).toBe(JSON.stringify(JSON.parse(trustedBodyText(a)!)));
    // Nothing a walk over the object can see: its own keys are exactly the receipt's members.
    expect(Reflect.ownKeys(a).sort()).toEqual(Object.keys(JSON.parse(trustedBodyText(a)!)).sort());
    expect(Object.getOwnPropertySymbols(a)).toEqual([]);
    for (const copy of [
      { ...a },
      Object.assign({}, a),
      structuredClone(a),
      JSON.parse(JSON.stringify(a)),
      Object.create(Object.getPrototypeOf(a), Object.getOwnPropertyDescriptors(a)),
      new Proxy(a, {}),
    ]) {
      expect(trustedBodyText(copy as Receipt)).toBeUndefined();
    }
    // Not an object at all (a caller that passed garbage): nothing, no throw.
    expect(trustedBodyText(null as unknown as Receipt)).toBeUndefined();
    expect(trustedBodyText('receipt' as unknown as Receipt)).toBeUndefined();
  });
});
