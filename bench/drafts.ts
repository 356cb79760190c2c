/**
 * The receipt draft every bench signs: an allowed file read, every fourth a denied write (with the
 * guard evidence a kernel records), a content hash per call, no grant named (so no budget counts).
 * Owns: that draft. Imports the product's crypto and receipt types only.
 */
import { hashCanonical, NULL_CONTENT_HASH } from '../src/crypto/index.js';
import type { ReceiptDraft } from '../src/receipt/index.js';

const BENCH_POLICY = hashCanonical({ bench: true });

export function draft(i: number, policyHash: string = BENCH_POLICY): ReceiptDraft {
  const deny = i % 4 === 3;
  return {
    timestamp: 1_790_000_000 + i,
    capability_id: 'cap-0190f0c2-8d5b-7cc0-9e3a-5b1f2a8d9c41',
    tool_server: 'filesystem',
    tool_name: deny ? 'write_file' : 'read_text_file',
    action: { parameters: { path: `/home/dev/project/src/module-${i % 97}.ts`, encoding: 'utf-8' } },
    decision: deny
      ? { verdict: 'deny', reason: 'path matches a forbidden pattern: **/.env', guard: 'forbidden-path' }
      : { verdict: 'allow' },
    receipt_kind: 'mediated_decision',
    boundary_class: 'prevent',
    tool_origin: 'caller_executed',
    redaction_mode: 'none',
    content_hash: deny ? NULL_CONTENT_HASH : hashCanonical({ text: `contents ${i}` }),
    policy_hash: policyHash,
    evidence: [
      { guard_name: 'forbidden-path', verdict: !deny },
      { guard_name: 'path-allowlist', verdict: true },
      { guard_name: 'secret-leak', verdict: true },
    ],
    metadata: { request_id: `req-${i}` },
    trust_level: 'mediated',
  };
}
