// What the ledger projects from a receipt (revoked capabilities, grant usage) is what the receipt's
// stored, signed body says — never a later state of an object the producer still holds, and never
// a second read of a member that answered differently the first time.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NULL_CONTENT_HASH, signerFromSeed } from '../../src/crypto/index.js';
import type { Ed25519Signer } from '../../src/crypto/index.js';
import {
  ANCESTOR_GRANTS_KEY,
  appendReceiptSync,
  firstRevoked,
  GRANT_INDEX_KEY,
  invocationsUsed,
  openLedger,
  verifyChain,
} from '../../src/ledger/index.js';
import { signReceipt, signReceiptAsync, trustedBodyText, verifyReceipt } from '../../src/receipt/index.js';
import type { Receipt, ReceiptDraft } from '../../src/receipt/index.js';
import { chio } from '../helpers/cli.js';
import { allowDraft, POLICY_HASH, testSigner } from '../helpers/receipts.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir();
let n = 0;
const freshPath = () => join(dir, `projections-${++n}.sqlite`);
const KEY = testSigner.publicKeyHex;
/** The chain verdict with its failing check and message, so a failure says what verify found. */
function chainVerdict(ledger: Parameters<typeof verifyChain>[0]): { ok: boolean; check?: string; message?: string } {
  const v = verifyChain(ledger) as { ok: boolean; check?: string; message?: string };
  return v.ok ? { ok: true } : { ok: false, check: v.check, message: v.message };
}

function revocation(parameters: Record<string, unknown>): ReceiptDraft {
  return {
    timestamp: 1_788_600_000,
    capability_id: 'cap-A',
    tool_server: 'chio-kernel',
    tool_name: 'revoke_capability',
    action: { parameters },
    decision: { verdict: 'allow' },
    receipt_kind: 'mediated_decision',
    boundary_class: 'prevent',
    tool_origin: 'caller_executed',
    redaction_mode: 'none',
    content_hash: NULL_CONTENT_HASH,
    policy_hash: POLICY_HASH,
    trust_level: 'mediated',
  };
}

const revokedIn = (body: string) => (JSON.parse(body) as Receipt).action.parameters as { capability_id: string };

describe('the projections of an appended receipt follow its signed body', () => {
  it('a signed revocation revokes the capability it names, even if the producer reuses its parameters object before appending', () => {
    const path = freshPath();
    const ledger = openLedger(path);
    // A producer that builds several revocations from one parameters object, then appends them.
    const parameters = { capability_id: 'cap-A' };
    const revokeA = signReceipt(revocation(parameters), testSigner, { nonce: 'rev-a' });
    parameters.capability_id = 'cap-B';
    expect(revokedIn(trustedBodyText(revokeA)!).capability_id).toBe('cap-A');
    appendReceiptSync(ledger, { receipt: revokeA });
    // The ledger holds a signed revocation of cap-A: cap-A must be revoked, and nothing else.
    expect(firstRevoked(ledger, ['cap-A'], [KEY])).toBe('cap-A');
    expect(firstRevoked(ledger, ['cap-B'], [KEY])).toBeUndefined();
    expect(chainVerdict(ledger)).toEqual({ ok: true });
    ledger.close();
    const cli = chio(['ledger', 'verify', '--receipt-db', path]);
    expect(cli.stderr).toBe('');
    expect(cli.status).toBe(0);
  });

  it('an allowed call counts against the ancestor grants its signed receipt names, not the ones its metadata array holds later', () => {
    const path = freshPath();
    const ledger = openLedger(path);
    const ancestors = [{ capability_id: 'cap-parent', grant_index: 0 }];
    const receipt = signReceipt(
      allowDraft(1, { metadata: { [GRANT_INDEX_KEY]: 0, [ANCESTOR_GRANTS_KEY]: ancestors } }),
      testSigner,
      { nonce: 'call-1' },
    );
    ancestors[0] = { capability_id: 'cap-victim', grant_index: 3 };
    appendReceiptSync(ledger, { receipt });
    expect(invocationsUsed(ledger, 'cap-parent', 0, [KEY])).toBe(1);
    expect(invocationsUsed(ledger, 'cap-victim', 3, [KEY])).toBe(0);
    expect(chainVerdict(ledger)).toEqual({ ok: true });
    ledger.close();
  });

  it('a revocation whose parameters answer differently on each read revokes what was signed (signed here)', () => {
    const ledger = openLedger(freshPath());
    let reads = 0;
    const parameters = {
      get capability_id() {
        reads += 1;
        return reads === 1 ? 'cap-A' : 'cap-B';
      },
    };
    const receipt = signReceipt(revocation(parameters), testSigner, { nonce: 'rev-getter' });
    expect(revokedIn(trustedBodyText(receipt)!).capability_id).toBe('cap-A');
    appendReceiptSync(ledger, { receipt });
    expect(firstRevoked(ledger, ['cap-B'], [KEY])).toBeUndefined();
    expect(firstRevoked(ledger, ['cap-A'], [KEY])).toBe('cap-A');
    expect(chainVerdict(ledger)).toEqual({ ok: true });
    ledger.close();
  });

  it('a receipt object from elsewhere is projected from what verified, not from a second read of its members', () => {
    const ledger = openLedger(freshPath());
    const signed = signReceipt(revocation({ capability_id: 'cap-A' }), testSigner, { nonce: 'rev-foreign' });
    // Not signed here (a copy), so it is verified in full; its parameters are read once for that.
    const copy = JSON.parse(JSON.stringify(signed)) as Receipt;
    let reads = 0;
    (copy as { action: { parameters: unknown } }).action.parameters = {
      get capability_id() {
        reads += 1;
        return reads === 1 ? 'cap-A' : 'cap-B';
      },
    };
    appendReceiptSync(ledger, { receipt: copy });
    expect(firstRevoked(ledger, ['cap-B'], [KEY])).toBeUndefined();
    expect(firstRevoked(ledger, ['cap-A'], [KEY])).toBe('cap-A');
    expect(chainVerdict(ledger)).toEqual({ ok: true });
    ledger.close();
  });

  it('a receipt signed here stays what was signed: the containers the signer built cannot be changed', () => {
    const receipt = signReceipt(allowDraft(2, { actor_chain: [{ agent: 'a' }] }), testSigner, { nonce: 'actors' });
    expect(() => (receipt.actor_chain as unknown[]).push({ agent: 'intruder' })).toThrow(TypeError);
    expect(verifyReceipt(receipt).ok).toBe(true);
  });
});

describe('every receipt the ledger accepts verifies', () => {
  const otherSigner = signerFromSeed(new Uint8Array(32).fill(7));

  it('a signer whose signatures are not made by the key it names is refused at signing (CHIO-RECEIPT-SIGNER-MISMATCH), and nothing reaches the ledger', async () => {
    const path = freshPath();
    const ledger = openLedger(path);
    // A misconfigured signer (say, a key rotation that updated the public key but not the private one).
    const mismatched: Ed25519Signer = {
      publicKeyHex: testSigner.publicKeyHex,
      sign: (m) => otherSigner.sign(m),
      signAsync: (m) => otherSigner.signAsync(m),
    };
    expect(() => signReceipt(allowDraft(10), mismatched, { nonce: 'm-1' })).toThrow(
      expect.objectContaining({ code: 'CHIO-RECEIPT-SIGNER-MISMATCH' }),
    );
    await expect(signReceiptAsync(allowDraft(11), mismatched, { nonce: 'm-2' })).rejects.toMatchObject({
      code: 'CHIO-RECEIPT-SIGNER-MISMATCH',
    });
    // The same signer's receipt, once signed, is never taken as "signed here" by a ledger.
    expect(chainVerdict(ledger)).toEqual({ ok: true });
    ledger.close();
    expect(chio(['ledger', 'verify', '--receipt-db', path]).status).toBe(0);
  });

  it('a signer that names its key in upper-case hex is refused at signing: a kernel_key is 64 lowercase hex characters', () => {
    const shouting: Ed25519Signer = { ...testSigner, publicKeyHex: testSigner.publicKeyHex.toUpperCase() };
    expect(() => signReceipt(allowDraft(12), shouting, { nonce: 'u-1' })).toThrow(
      expect.objectContaining({ code: 'CHIO-RECEIPT-SIGNER-MISMATCH' }),
    );
  });

  it('a signer from elsewhere that signs with the key it names signs receipts the ledger takes, and they verify', () => {
    const path = freshPath();
    const ledger = openLedger(path);
    const wrapped: Ed25519Signer = {
      publicKeyHex: testSigner.publicKeyHex,
      sign: (m) => testSigner.sign(m),
      signAsync: (m) => testSigner.signAsync(m),
    };
    appendReceiptSync(ledger, { receipt: signReceipt(allowDraft(13), wrapped, { nonce: 'w-1' }) });
    expect(chainVerdict(ledger)).toEqual({ ok: true });
    ledger.close();
    expect(chio(['ledger', 'verify', '--receipt-db', path]).status).toBe(0);
  });
});
