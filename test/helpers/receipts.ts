/** Builds realistic signed receipts for tests (the kernel builds them for real). */
import { fromHex, hashCanonical, NULL_CONTENT_HASH, signerFromSeed } from '../../src/crypto/index.js';
import type { Ed25519Signer } from '../../src/crypto/index.js';
import { signReceipt } from '../../src/receipt/index.js';
import type { Receipt, ReceiptDraft } from '../../src/receipt/index.js';

export const TEST_SEED_HEX = '0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20';
export const testSigner: Ed25519Signer = signerFromSeed(fromHex(TEST_SEED_HEX));
export const POLICY_HASH = hashCanonical({ policy: 'test' });

export function allowDraft(i: number, overrides: Partial<ReceiptDraft> = {}): ReceiptDraft {
  const parameters = { path: `/srv/app/file-${i}.txt` };
  const output = { text: `contents ${i}` };
  return {
    timestamp: 1_788_600_000 + i,
    capability_id: 'cap-test',
    tool_server: 'fs-srv',
    tool_name: 'read_text_file',
    action: { parameters },
    decision: { verdict: 'allow' },
    receipt_kind: 'mediated_decision',
    boundary_class: 'prevent',
    tool_origin: 'caller_executed',
    redaction_mode: 'none',
    content_hash: hashCanonical(output),
    policy_hash: POLICY_HASH,
    evidence: [{ guard_name: 'forbidden-path', verdict: true }],
    trust_level: 'mediated',
    ...overrides,
  };
}

export function denyDraft(i: number): ReceiptDraft {
  return allowDraft(i, {
    tool_name: 'write_file',
    action: { parameters: { path: '/srv/app/.env', content: 'x' } },
    decision: { verdict: 'deny', reason: 'path matches a forbidden pattern: **/.env', guard: 'forbidden-path' },
    content_hash: NULL_CONTENT_HASH,
    evidence: [{ guard_name: 'forbidden-path', verdict: false, details: '**/.env' }],
  });
}

export function observationDraft(i: number): ReceiptDraft {
  return {
    timestamp: 1_788_600_000 + i,
    capability_id: 'acp-session:sess-7',
    tool_server: 'chio-acp-proxy',
    tool_name: 'read',
    action: { parameters: { tool_call_id: `tc-${i}`, status: 'completed' } },
    receipt_kind: 'trace_observation',
    boundary_class: 'detect_only',
    tool_origin: 'caller_executed',
    redaction_mode: 'none',
    content_hash: NULL_CONTENT_HASH,
    policy_hash: '',
    trust_level: 'verified',
  };
}

/** The i-th receipt of a mixed stream: mostly allows, some denies and observations. */
export function mixedReceipt(i: number, signer: Ed25519Signer = testSigner, nonce = `req-${i}`): Receipt {
  const draft = i % 5 === 3 ? denyDraft(i) : i % 7 === 6 ? observationDraft(i) : allowDraft(i);
  return signReceipt(draft, signer, { nonce });
}
