/**
 * Chain verification with the Ed25519 checks spread over libuv's thread pool (every core), while
 * this thread walks the chain: hashes, links, bodies, sessions. The verdict is the same as
 * `verifyChain`'s: the first bad entry in seq order and the check that failed.
 * Owns: the window of signatures in flight and the ordering of late results. Never writes.
 *
 * Use a connection of its own (the CLI opens one read-only): the walk holds a read transaction
 * across the awaits.
 */
import { verifySignatureAsync } from '../crypto/index.js';
import type { Ledger } from './open.js';
import { signatureFailure, walkChain } from './verify-chain.js';
import type { ChainVerdict, SignatureJob, VerifyChainOptions } from './verify-chain.js';

export interface VerifyChainParallelOptions extends VerifyChainOptions {
  /** Signatures in flight at most (memory stays bounded on any ledger size). */
  window?: number;
}

export async function verifyChainParallel(
  ledger: Ledger,
  options: VerifyChainParallelOptions = {},
): Promise<ChainVerdict> {
  const window = options.window ?? 256;
  const walk = walkChain(ledger, options);
  // A sliding window: when it is full, wait for the oldest check only, so the pool stays busy
  // while this thread keeps walking.
  const inFlight: Array<Promise<void>> = [];
  let firstBad: SignatureJob | null = null;
  let walked = 0;
  let verdict: ChainVerdict | null = null;
  try {
    let step = walk.next();
    while (!step.done) {
      const job = step.value;
      walked = job.seq;
      inFlight.push(
        verifySignatureAsync(job.kernelKey, job.signed, job.signature).then((ok) => {
          if (!ok && (firstBad === null || job.seq < firstBad.seq)) firstBad = job;
        }),
      );
      if (inFlight.length >= window) {
        await inFlight.shift();
        // Nothing up to `walked` failed structurally (the walk would have returned), so once a
        // bad signature is known it is the first failure, apart from lower seqs still in flight.
        if (firstBad !== null) break;
      }
      step = walk.next(true);
    }
    if (step.done) verdict = step.value;
    await Promise.all(inFlight);
  } finally {
    walk.return(undefined as never); // ends the walk's read transaction if we stopped early
  }
  const bad = firstBad as SignatureJob | null;
  if (bad !== null && (verdict === null || verdict.ok || verdict.seq === null || bad.seq <= verdict.seq)) {
    return signatureFailure(bad, Math.max(0, bad.seq - 1));
  }
  if (verdict === null) throw new Error(`chain walk stopped at seq ${walked} without a verdict`);
  return verdict;
}
