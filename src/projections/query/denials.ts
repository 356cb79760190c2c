/**
 * Denials by guard over time (DESIGN §12), the data behind the explorer's chart: the ledger's
 * `deny` entries in a time range counted per guard in equal time buckets, in one read transaction.
 * Owns: the bucketing. Reads the ledger only (the partial index of rare verdicts serves the scan).
 */
import { z } from 'zod';
import type { Ledger } from '../../ledger/index.js';
import { timeParameter, whole } from './params.js';

export const DenialQuerySchema = z.strictObject({
  sessionId: z.string().min(1).max(256).optional(),
  since: timeParameter.optional(),
  until: timeParameter.optional(),
  /** How many equal buckets the range is cut into (the last one may end early). */
  buckets: whole(1, 1000).default(60),
});
export type DenialQuery = z.infer<typeof DenialQuerySchema>;

export interface DenialSeries {
  /** Unix seconds at which the first bucket starts (the first denial's time when `since` is not given). */
  from: number;
  bucketSeconds: number;
  /** Each bucket's start, Unix seconds. */
  starts: number[];
  /** One series per guard, largest total first; a denial without a guard counts under "(none)". */
  guards: Array<{ guard: string; total: number; counts: number[] }>;
  totalCount: number;
}

export const NO_GUARD = '(none)';

type Span = { lo: number | null; hi: number | null; n: number };
type BucketRow = { bucket: number; guard: string; n: number };

export function denialSeries(ledger: Ledger, q: DenialQuery): DenialSeries {
  const where = `verdict = 'deny' AND timestamp >= ? AND timestamp <= ?${q.sessionId === undefined ? '' : ' AND session_id = ?'}`;
  const args = (from: number, to: number) => (q.sessionId === undefined ? [from, to] : [from, to, q.sessionId]);
  return ledger.db
    .transaction(() => {
      const span = ledger.db
        .prepare(`SELECT min(timestamp) AS lo, max(timestamp) AS hi, count(*) AS n FROM ledger_entries WHERE ${where}`)
        .get(...args(q.since ?? 0, q.until ?? Number.MAX_SAFE_INTEGER)) as Span;
      const plan = denialBuckets(q, span);
      const rows =
        span.n === 0
          ? []
          : (ledger.db
              .prepare(
                // better-sqlite3 binds JS numbers as REAL: cast, or the division is not a whole bucket number.
                `SELECT (timestamp - CAST(? AS INTEGER)) / CAST(? AS INTEGER) AS bucket, coalesce(body ->> '$.decision.guard', '${NO_GUARD}') AS guard, count(*) AS n
         FROM ledger_entries WHERE ${where} GROUP BY bucket, guard`,
              )
              .all(plan.from, plan.bucketSeconds, ...args(plan.from, plan.to)) as BucketRow[]);
      return denialResult(plan, span, rows);
    })
    .deferred();
}

/** The buckets a query's range is cut into, given the span of its denials (either store reads it). */
export function denialBuckets(
  q: DenialQuery,
  span: Span,
): { from: number; to: number; bucketSeconds: number; starts: number[] } {
  const from = q.since ?? span.lo ?? Math.floor(Date.now() / 1000);
  const to = Math.max(from, q.until ?? span.hi ?? from);
  // Whole seconds per bucket, at least one, enough that `buckets` of them cover [from, to].
  const bucketSeconds = Math.max(1, Math.ceil((to - from + 1) / q.buckets));
  const count = Math.max(1, Math.ceil((to - from + 1) / bucketSeconds));
  return { from, to, bucketSeconds, starts: Array.from({ length: count }, (_, i) => from + i * bucketSeconds) };
}

/** The series from the rows counted per bucket and guard. */
export function denialResult(
  plan: { from: number; bucketSeconds: number; starts: number[] },
  span: Span,
  rows: readonly BucketRow[],
): DenialSeries {
  const byGuard = new Map<string, number[]>();
  for (const r of rows) {
    const counts = byGuard.get(r.guard) ?? new Array<number>(plan.starts.length).fill(0);
    counts[r.bucket] = (counts[r.bucket] ?? 0) + r.n;
    byGuard.set(r.guard, counts);
  }
  const guards = [...byGuard]
    .map(([guard, counts]) => ({ guard, total: counts.reduce((a, b) => a + b, 0), counts }))
    .sort((a, b) => b.total - a.total || (a.guard < b.guard ? -1 : 1));
  return { from: plan.from, bucketSeconds: plan.bucketSeconds, starts: plan.starts, guards, totalCount: span.n };
}
