/**
 * The bounds `npm run bench` prints beside its goal rows: how far the pieces measured in the same
 * run let a figure go, so that a goal out of reach on this machine reads as such in the table
 * itself, and the distance between a figure and its bound is what is left to win.
 *  - a lone durable commit: one pre-signed receipt appended in its own `BEGIN IMMEDIATE … COMMIT`
 *    at synchronous=FULL, each timed on its own (p50, p90): the "one durable commit" of the goals;
 *  - work done one piece after another on one thread adds up: at most 1 / Σ (1 / rate of each piece).
 * Owns: that measurement and that arithmetic. Imports the ledger's append and the receipt type only.
 */
import { appendReceiptSync, EntryInserter, openLedger } from '../src/ledger/index.js';
import type { Receipt } from '../src/receipt/index.js';

export interface Latency {
  p50ms: number;
  p90ms: number;
}

/** Appends each receipt in a transaction of its own on a new ledger at `path`; the first 50 warm up. */
export function loneCommitLatency(path: string, receipts: readonly Receipt[]): Latency {
  const ledger = openLedger(path);
  try {
    const inserter = new EntryInserter(ledger);
    const ms: number[] = [];
    receipts.forEach((receipt, i) => {
      const start = process.hrtime.bigint();
      appendReceiptSync(ledger, { receipt, sessionId: `lone-${i % 8}` }, inserter);
      if (i >= 50) ms.push(Number(process.hrtime.bigint() - start) / 1e6);
    });
    ms.sort((a, b) => a - b);
    return { p50ms: ms[Math.floor(ms.length * 0.5)]!, p90ms: ms[Math.floor(ms.length * 0.9)]! };
  } finally {
    ledger.close();
  }
}

/** Operations per second of pieces run one after another on one thread, given each one's rate. */
export function inSeries(...perSecond: number[]): number {
  return 1 / perSecond.reduce((sum, r) => sum + 1 / r, 0);
}

/**
 * Round trips per second, one at a time, when each also waits for `commits` durable commits of
 * `commitMs` each: the most a governed call can reach beside a round trip of `wirePerSecond`.
 */
export function withCommits(wirePerSecond: number, commits: number, commitMs: number): number {
  return 1 / (1 / wirePerSecond + (commits * commitMs) / 1000);
}
