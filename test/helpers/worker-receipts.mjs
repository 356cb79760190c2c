// The receipts and sessions of the producer processes in the multi-process tests
// (append-worker.mjs on SQLite, pg-append-worker.mjs on PostgreSQL): signed by one kernel key
// (seed 7s), one per (worker, i), unique by their nonce. Uses the built library (dist/).
import { hashCanonical, signerFromSeed } from '../../dist/src/crypto/index.js';
import { signReceipt } from '../../dist/src/receipt/index.js';

const signer = signerFromSeed(new Uint8Array(32).fill(7));

export function workerReceipt(workerId, i) {
  return signReceipt(
    {
      timestamp: 1_790_000_000 + i,
      capability_id: `cap-w${workerId}`,
      tool_server: 'fs',
      tool_name: 'read_text_file',
      action: { parameters: { path: `/w${workerId}/file-${i}` } },
      decision: { verdict: 'allow' },
      receipt_kind: 'mediated_decision',
      boundary_class: 'prevent',
      tool_origin: 'caller_executed',
      redaction_mode: 'none',
      content_hash: hashCanonical({ i }),
      policy_hash: hashCanonical({ p: 1 }),
      trust_level: 'mediated',
    },
    signer,
    { nonce: `w${workerId}-${i}` },
  );
}

/** Own sessions plus one every worker shares, so session chains cross processes. */
export const workerSession = (workerId, i) => (i % 3 === 0 ? 'shared' : `w${workerId}-${i % 2}`);
