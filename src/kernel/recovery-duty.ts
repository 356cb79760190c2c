/**
 * What one kernel owes recovery (recovery.ts): its own dispatched calls whose receipt append
 * failed, whether a run is due, the run in progress on an asynchronous store, and the last run's
 * report. A run is due when the kernel opens, after one of its appends failed, and for as long as
 * the ledger refuses writes; the kernel starts one after each successful append, never two at once.
 * Owns: that bookkeeping. Imports recovery's types and errors only; must not import the ledger,
 * edges or cli.
 */
import { ChioError } from '../errors.js';
import type { OwnFailure, RecoveryReport } from './recovery.js';

/** One recovery run over the store, given this process's failed appends (it removes the ones it settles). */
export type RecoveryRun = (failures: Map<string, OwnFailure>) => RecoveryReport | Promise<RecoveryReport>;

export class RecoveryDuty {
  /** This process's reserved calls whose receipt append failed, until recovery settles them. */
  private readonly failures = new Map<string, OwnFailure>();
  /** Recovery has work it could not finish. Due at open: calls of producers that died before it. */
  private due = true;
  /** A run on an asynchronous store, while it runs. */
  private settling: Promise<void> | undefined;
  private last: RecoveryReport = { settled: [], left: [] };

  constructor(private readonly run: RecoveryRun) {}

  /** What the last run did: settled calls, rows left pending and why, the error that stopped it. */
  get report(): RecoveryReport {
    return this.last;
  }

  /** A call that was dispatched and whose receipt is not in the ledger: owed an `incomplete` receipt. */
  owe(requestId: string, failure: OwnFailure): void {
    this.failures.set(requestId, failure);
    this.due = true;
  }

  /** Runs recovery now, whether due or not. */
  settle(): RecoveryReport | Promise<RecoveryReport> {
    const report = this.run(this.failures);
    const done = (r: RecoveryReport): RecoveryReport => {
      if (r.error === undefined) this.failures.clear(); // settled, or settled by another process
      this.due = r.error !== undefined;
      this.last = r;
      return r;
    };
    return report instanceof Promise ? report.then(done) : done(report);
  }

  /**
   * Runs recovery when it is due and no run is in progress. Never throws or rejects: it follows an
   * append that has committed, whose caller gets its answer. On an SQLite store the run ends
   * before this returns; on PostgreSQL the promise of the one run in progress is returned.
   */
  settleIfDue(): void | Promise<void> {
    if (!this.due || this.settling !== undefined) return this.settling;
    const failed = (e: unknown) => {
      this.last = {
        settled: [],
        left: [],
        error: new ChioError('CHIO-INTERNAL', `recovery failed: ${(e as Error)?.message ?? String(e)}`, { cause: e }),
      };
    };
    try {
      const run = this.settle();
      if (!(run instanceof Promise)) return;
      this.settling = run
        .then(() => undefined, failed)
        .finally(() => {
          this.settling = undefined;
        });
      return this.settling;
    } catch (e) {
      failed(e);
    }
  }

  /** At close: waits for a run in progress, then makes a last try for what is still owed. */
  async drain(): Promise<void> {
    await this.settling;
    await this.settleIfDue();
  }
}
