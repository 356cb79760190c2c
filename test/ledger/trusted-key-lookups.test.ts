// The kernel's two ledger reads before a call is reserved: `firstRevoked` (is the token or an
// ancestor revoked?) and `invocationsUsed` (how much of a grant's budget is spent?). Both count only
// receipts signed by a key the caller trusts — anyone with write access to the file can append a
// validly signed receipt under their own key. Checked on a real ledger file with real signed
// receipts, for one trusted key, several, and more than any kernel configures (the lists are bound
// into the SQL up to 16 entries; longer ones take another path with the same meaning).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromHex, hashCanonical, signerFromSeed } from '../../src/crypto/index.js';
import type { Ed25519Signer } from '../../src/crypto/index.js';
import { defaultPolicy } from '../../src/kernel/index.js';
import { revocationDraft } from '../../src/kernel/receipts.js';
import {
  appendReceiptSync,
  firstRevoked,
  GRANT_INDEX_KEY,
  invocationsUsed,
  openLedger,
  reserveCall,
} from '../../src/ledger/index.js';
import type { Ledger } from '../../src/ledger/index.js';
import { signReceipt } from '../../src/receipt/index.js';
import type { ReceiptDraft } from '../../src/receipt/index.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir();
const NOW = 1_800_000_000;
const policy = defaultPolicy();
const key = (i: number) => signerFromSeed(fromHex((i + 16).toString(16).padStart(2, '0').repeat(32)));
const keys = Array.from({ length: 24 }, (_, i) => key(i));
const hex = (signers: readonly Ed25519Signer[]) => signers.map((s) => s.publicKeyHex);
const capId = (i: number) => `cap-${i.toString(16).padStart(64, '0')}`;
let n = 0;
let nonce = 0;

function ledgerAt(): Ledger {
  return openLedger(join(dir, `l-${++n}.sqlite`));
}
function revoke(ledger: Ledger, capabilityId: string, signer: Ed25519Signer): void {
  appendReceiptSync(ledger, {
    receipt: signReceipt(revocationDraft(NOW, capabilityId, 'test', policy), signer, { nonce: `r-${++nonce}` }),
  });
}
function allowed(ledger: Ledger, capabilityId: string, grantIndex: number, signer: Ed25519Signer): void {
  const draft: ReceiptDraft = {
    timestamp: NOW,
    capability_id: capabilityId,
    tool_server: 'fs',
    tool_name: 'read_file',
    action: { parameters: { path: '/a' } },
    decision: { verdict: 'allow' },
    receipt_kind: 'mediated_decision',
    boundary_class: 'prevent',
    tool_origin: 'caller_executed',
    redaction_mode: 'none',
    content_hash: hashCanonical({ text: 'a' }),
    policy_hash: policy.policyHash,
    evidence: [],
    metadata: { [GRANT_INDEX_KEY]: grantIndex },
    trust_level: 'mediated',
  };
  appendReceiptSync(ledger, { receipt: signReceipt(draft, signer, { nonce: `a-${++nonce}` }) });
}

describe('firstRevoked', () => {
  it('finds the first revoked id in the order given (token, then ancestors), counting only trusted signers', () => {
    const ledger = ledgerAt();
    const [kernel, other, rogue] = keys;
    revoke(ledger, capId(3), kernel!);
    revoke(ledger, capId(2), other!);
    revoke(ledger, capId(1), rogue!);
    const chain = [capId(1), capId(2), capId(3), capId(4)];
    expect(firstRevoked(ledger, chain, hex([kernel!]))).toBe(capId(3));
    expect(firstRevoked(ledger, chain, hex([kernel!, other!]))).toBe(capId(2));
    expect(firstRevoked(ledger, [...chain].reverse(), hex([kernel!, other!]))).toBe(capId(3));
    expect(firstRevoked(ledger, chain, hex([rogue!]))).toBe(capId(1));
    expect(firstRevoked(ledger, [capId(4), capId(5)], hex(keys))).toBeUndefined();
    // No trusted key: nothing counts, however many revocations the file holds.
    expect(firstRevoked(ledger, chain, [])).toBeUndefined();
    expect(firstRevoked(ledger, [], hex(keys))).toBeUndefined();
    ledger.close();
  });

  it('more ids and more keys than are bound into the SQL give the same answers', () => {
    const ledger = ledgerAt();
    const last = keys[23]!;
    revoke(ledger, capId(20), last);
    revoke(ledger, capId(18), keys[0]!);
    const ids = Array.from({ length: 22 }, (_, i) => capId(i));
    expect(firstRevoked(ledger, ids, hex(keys))).toBe(capId(18));
    expect(firstRevoked(ledger, ids, hex(keys.slice(1)))).toBe(capId(20));
    expect(firstRevoked(ledger, ids, hex(keys.slice(1, 23)))).toBeUndefined();
    expect(firstRevoked(ledger, ids.slice(19), hex(keys.slice(1)))).toBe(capId(20));
    expect(firstRevoked(ledger, ids.slice(19), hex([keys[5]!]))).toBeUndefined();
    for (let k = 1; k <= keys.length; k++) {
      const trusted = hex(keys.slice(keys.length - k)); // always includes `last`; keys[0] only when k is all of them
      expect(firstRevoked(ledger, ids, trusted), `${k} keys`).toBe(k === keys.length ? capId(18) : capId(20));
      expect(firstRevoked(ledger, [capId(20)], trusted), `${k} keys, one id`).toBe(capId(20));
    }
    ledger.close();
  });
});

describe('invocationsUsed', () => {
  it('sums allowed receipts of trusted signers for the grant, plus calls in flight', () => {
    const ledger = ledgerAt();
    const [kernel, other, rogue] = keys;
    const cap = capId(7);
    for (let i = 0; i < 3; i++) allowed(ledger, cap, 0, kernel!);
    for (let i = 0; i < 2; i++) allowed(ledger, cap, 0, other!);
    for (let i = 0; i < 5; i++) allowed(ledger, cap, 0, rogue!);
    allowed(ledger, cap, 1, kernel!);
    allowed(ledger, capId(8), 0, kernel!);
    expect(invocationsUsed(ledger, cap, 0, hex([kernel!]))).toBe(3);
    expect(invocationsUsed(ledger, cap, 0, hex([kernel!, other!]))).toBe(5);
    expect(invocationsUsed(ledger, cap, 0, hex([rogue!]))).toBe(5);
    expect(invocationsUsed(ledger, cap, 0, [])).toBe(0);
    expect(invocationsUsed(ledger, cap, 1, hex([kernel!, other!]))).toBe(1);
    // A call reserved and not yet receipted counts whoever it will be signed by.
    reserveCall(ledger, {
      requestId: 'req-1',
      capabilityId: cap,
      grants: [{ index: 0, maxInvocations: 100 }],
      trustedKeys: hex([kernel!]),
      owner: 'test',
      now: NOW,
    });
    expect(invocationsUsed(ledger, cap, 0, hex([kernel!]))).toBe(4);
    expect(invocationsUsed(ledger, cap, 0, [])).toBe(1);
    ledger.close();
  });

  it('more trusted keys than are bound into the SQL give the same sums', () => {
    const ledger = ledgerAt();
    const cap = capId(9);
    keys.forEach((k, i) => {
      for (let j = 0; j <= i % 3; j++) allowed(ledger, cap, 0, k);
    });
    const expected = (signers: number) =>
      Array.from({ length: signers }, (_, i) => (i % 3) + 1).reduce((a, b) => a + b, 0);
    for (let k = 0; k <= keys.length; k++) {
      expect(invocationsUsed(ledger, cap, 0, hex(keys.slice(0, k))), `${k} keys`).toBe(expected(k));
    }
    expect(invocationsUsed(ledger, cap, 0, hex(keys.slice(12)))).toBe(expected(24) - expected(12));
    ledger.close();
  });
});
