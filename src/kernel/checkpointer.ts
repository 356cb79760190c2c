/**
 * A producer's checkpoints (DESIGN §10): while it appends, the kernel signs a checkpoint of the
 * whole ledger every `everyEntries` entries and every `everySeconds` seconds (when the ledger grew),
 * and once more when it closes, and appends each new note to the anchor file when one is given —
 * the copy an operator who later cuts the ledger cannot reach. A checkpoint that cannot be made
 * (the ledger no longer holds the tree of the latest checkpoint, the anchor file cannot be written)
 * never fails a call: it is logged and kept in `lastError`, and `chio ledger verify` reports the
 * cause.
 * Owns: when to checkpoint. Imports ledger (checkpoints, anchors) and crypto types.
 */
import type { Ed25519Signer } from '../crypto/index.js';
import { ChioError } from '../errors.js';
import { appendToAnchorFile, createCheckpoint, latestCheckpoint } from '../ledger/index.js';
import type { CheckpointOptions, CheckpointOutcome, Ledger, StoredCheckpoint } from '../ledger/index.js';

export interface CheckpointSchedule {
  /** Sign a checkpoint once this many entries were appended since the latest one. Default 1000. */
  everyEntries?: number;
  /** … and every this many seconds while the ledger grows. Default 60. */
  everySeconds?: number;
  /** Append every new note to this file (kept outside the operator's reach). */
  anchorFile?: string | undefined;
  /** The notes' origin line (default: `chio-ledger/<first 32 hex of seq 1's entry_hash>`). */
  origin?: string | undefined;
}

export const DEFAULT_CHECKPOINT_EVERY_ENTRIES = 1000;
export const DEFAULT_CHECKPOINT_EVERY_SECONDS = 60;

/**
 * Where checkpoints are read and made: an SQLite ledger answers now, a PostgreSQL one later
 * (store-pg.ts). The same schedule and the same never-fail rule either way.
 */
export interface CheckpointTarget {
  latestSize(): number | Promise<number>;
  create(signer: Ed25519Signer, options: CheckpointOptions): CheckpointOutcome | Promise<CheckpointOutcome>;
}

/** An SQLite ledger as a checkpoint target (synchronous). */
export function sqliteCheckpoints(ledger: Ledger): CheckpointTarget {
  return {
    latestSize: () => latestCheckpoint(ledger)?.treeSize ?? 0,
    create: (signer, options) => createCheckpoint(ledger, signer, options),
  };
}

export class Checkpointer {
  /** The checkpoint this producer made last. */
  last: StoredCheckpoint | undefined;
  /** Why the last attempt failed, until one succeeds. */
  lastError: ChioError | undefined;
  private covered = 0;
  private seen = 0;
  private readonly everyEntries: number;
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly target: CheckpointTarget;
  /** A checkpoint being made on an asynchronous target (never two at once). */
  private running: Promise<StoredCheckpoint | undefined> | undefined;

  /** `ledger`: an SQLite ledger, or any CheckpointTarget; `covered`: the latest checkpoint's size when the target is asynchronous. */
  constructor(
    ledger: Ledger | CheckpointTarget,
    private readonly signer: Ed25519Signer,
    private readonly schedule: CheckpointSchedule,
    private readonly log: (message: string) => void,
    covered?: number,
  ) {
    this.everyEntries = schedule.everyEntries ?? DEFAULT_CHECKPOINT_EVERY_ENTRIES;
    for (const [name, v] of [
      ['everyEntries', this.everyEntries],
      ['everySeconds', schedule.everySeconds ?? DEFAULT_CHECKPOINT_EVERY_SECONDS],
    ] as const) {
      if (!Number.isSafeInteger(v) || v < 1)
        throw new ChioError('CHIO-KERNEL-INVALID-REQUEST', `checkpoint ${name} must be a whole number >= 1, not ${v}`);
    }
    this.target = 'db' in ledger ? sqliteCheckpoints(ledger) : ledger;
    const latest = covered ?? this.target.latestSize();
    if (typeof latest === 'number') this.covered = latest;
    else
      throw new ChioError(
        'CHIO-INTERNAL',
        "an asynchronous checkpoint target needs the latest checkpoint's size up front",
      );
    this.timer = setInterval(
      () => {
        if (this.seen > this.covered) void this.checkpoint();
      },
      (schedule.everySeconds ?? DEFAULT_CHECKPOINT_EVERY_SECONDS) * 1000,
    );
    this.timer.unref();
  }

  /** After this producer appended the entry at `seq`. */
  appended(seq: number): void {
    this.seen = Math.max(this.seen, seq);
    if (seq - this.covered < this.everyEntries || this.running !== undefined) return;
    // Another producer sharing the ledger may have checkpointed it meanwhile.
    const latest = this.target.latestSize();
    const due = (size: number) => {
      this.covered = Math.max(this.covered, size);
      return seq - this.covered >= this.everyEntries ? this.create() : undefined;
    };
    if (typeof latest === 'number') void due(latest);
    else void this.track(latest.then(due, (e: unknown) => this.failed(e)));
  }

  /**
   * Signs and stores a checkpoint now (and anchors it). Never throws or rejects: a failure is
   * logged and kept in `lastError`. Synchronous on an SQLite ledger; on an asynchronous one, a
   * call while a checkpoint is being made waits for that one.
   */
  checkpoint(): StoredCheckpoint | undefined | Promise<StoredCheckpoint | undefined> {
    if (this.running !== undefined) return this.running;
    const r = this.create();
    return r instanceof Promise ? this.track(r) : r;
  }

  /** Makes one checkpoint (the caller tracks it when it is asynchronous). */
  private create(): StoredCheckpoint | undefined | Promise<StoredCheckpoint | undefined> {
    try {
      const r = this.target.create(this.signer, { origin: this.schedule.origin });
      return r instanceof Promise
        ? r.then(
            (o) => this.made(o),
            (e: unknown) => this.failed(e),
          )
        : this.made(r);
    } catch (e) {
      return this.failed(e);
    }
  }

  private track(run: Promise<StoredCheckpoint | undefined>): Promise<StoredCheckpoint | undefined> {
    const tracked = run.finally(() => {
      if (this.running === tracked) this.running = undefined;
    });
    this.running = tracked;
    return tracked;
  }

  private made(r: CheckpointOutcome): StoredCheckpoint | undefined {
    try {
      this.covered = Math.max(this.covered, r.checkpoint.treeSize);
      if (r.created && this.schedule.anchorFile !== undefined)
        appendToAnchorFile(this.schedule.anchorFile, r.checkpoint.note);
      this.last = r.checkpoint;
      this.lastError = undefined;
      return r.checkpoint;
    } catch (e) {
      return this.failed(e);
    }
  }

  private failed(e: unknown): undefined {
    this.lastError =
      e instanceof ChioError
        ? e
        : new ChioError('CHIO-INTERNAL', `checkpoint failed: ${(e as Error)?.message ?? String(e)}`, { cause: e });
    this.log(`chio: checkpoint not made: ${this.lastError.code}: ${this.lastError.message}`);
    return undefined;
  }

  /** At a clean shutdown: a last checkpoint if this producer appended past the latest one (awaited on an asynchronous target). */
  close(): void | Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    const pending = this.running;
    if (pending === undefined) {
      if (this.seen <= this.covered) return;
      const r = this.checkpoint();
      return r instanceof Promise ? r.then(() => undefined) : undefined;
    }
    return pending
      .then(() => {
        if (this.seen > this.covered) return this.checkpoint();
        return undefined;
      })
      .then(() => undefined);
  }
}
