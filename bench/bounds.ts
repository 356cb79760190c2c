/**
 * The bounds `npm run bench` prints beside its goal rows: how far the pieces measured in the same
 * run let a figure go, so that a goal out of reach on this machine reads as such in the table
 * itself, and the distance between a figure and its bound is what is left to win.
 *  - a lone durable commit: one pre-signed receipt appended in its own `BEGIN IMMEDIATE … COMMIT`
 *    at synchronous=FULL, each timed on its own (p50, p90): the "one durable commit" of the goals;
 *    back to back, and spaced as a governed call spaces them (`gapMs` idle before each: a lone
 *    call's reservation and receipt are a dispatch apart, and its receipt and the next call's
 *    reservation a round trip apart). On this VM's virtio disk a sync that follows another at once
 *    costs a half to a third of one issued a millisecond later, so the spaced figure is the one a
 *    lone call can reach;
 *  - the disk's own sync (`syncLatency`): one 4 KiB page overwritten and `fdatasync`ed, no SQLite,
 *    back to back and spaced the same way;
 *  - work done one piece after another on one thread adds up: at most 1 / Σ (1 / rate of each piece).
 * Owns: that measurement and that arithmetic. Imports the ledger's append and the receipt type only.
 */
import { closeSync, fdatasyncSync, openSync, writeSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { appendReceiptSync, EntryInserter, openLedger } from '../src/ledger/index.js';
import type { Receipt } from '../src/receipt/index.js';

export interface Latency {
  p50ms: number;
  p90ms: number;
}

/** p50 and p90 of the samples after the first `warmUp`. */
function quantiles(samples: number[], warmUp: number): Latency {
  const ms = samples.slice(warmUp).sort((a, b) => a - b);
  return { p50ms: ms[Math.floor(ms.length * 0.5)]!, p90ms: ms[Math.floor(ms.length * 0.9)]! };
}

/**
 * Appends each receipt in a transaction of its own on a new ledger at `path`, idle for `gapMs`
 * (a timer) before each when it is above 0; the first 50 warm up.
 */
export async function loneCommitLatency(path: string, receipts: readonly Receipt[], gapMs = 0): Promise<Latency> {
  const ledger = openLedger(path);
  try {
    const inserter = new EntryInserter(ledger);
    const ms: number[] = [];
    for (const [i, receipt] of receipts.entries()) {
      if (gapMs > 0) await sleep(gapMs);
      const start = process.hrtime.bigint();
      appendReceiptSync(ledger, { receipt, sessionId: `lone-${i % 8}` }, inserter);
      ms.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    return quantiles(ms, 50);
  } finally {
    ledger.close();
  }
}

/**
 * The disk's own sync, beneath SQLite: one 4 KiB page written over a preallocated file (so no
 * sync waits on the file's size) and `fdatasync`ed, `n` times, idle for `gapMs` before each.
 */
export async function syncLatency(path: string, n: number, gapMs = 0): Promise<Latency> {
  const fd = openSync(path, 'w+');
  try {
    const slots = 256;
    writeSync(fd, Buffer.alloc(slots * 4096, 1), 0, slots * 4096, 0);
    fdatasyncSync(fd);
    const page = Buffer.alloc(4096, 7);
    const ms: number[] = [];
    for (let i = 0; i < n + 20; i++) {
      if (gapMs > 0) await sleep(gapMs);
      const start = process.hrtime.bigint();
      writeSync(fd, page, 0, page.length, (i % slots) * 4096);
      fdatasyncSync(fd);
      ms.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    return quantiles(ms, 20);
  } finally {
    closeSync(fd);
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
