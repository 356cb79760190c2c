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
import type { Ledger, StoredCheckpoint } from '../ledger/index.js';

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

export class Checkpointer {
  /** The checkpoint this producer made last. */
  last: StoredCheckpoint | undefined;
  /** Why the last attempt failed, until one succeeds. */
  lastError: ChioError | undefined;
  private covered: number;
  private seen = 0;
  private readonly everyEntries: number;
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ledger: Ledger,
    private readonly signer: Ed25519Signer,
    private readonly schedule: CheckpointSchedule,
    private readonly log: (message: string) => void,
  ) {
    this.everyEntries = schedule.everyEntries ?? DEFAULT_CHECKPOINT_EVERY_ENTRIES;
    for (const [name, v] of [['everyEntries', this.everyEntries], ['everySeconds', schedule.everySeconds ?? DEFAULT_CHECKPOINT_EVERY_SECONDS]] as const) {
      if (!Number.isSafeInteger(v) || v < 1) throw new ChioError('CHIO-KERNEL-INVALID-REQUEST', `checkpoint ${name} must be a whole number >= 1, not ${v}`);
    }
    this.covered = latestCheckpoint(ledger)?.treeSize ?? 0;
    this.timer = setInterval(() => {
      if (this.seen > this.covered) this.checkpoint();
    }, (schedule.everySeconds ?? DEFAULT_CHECKPOINT_EVERY_SECONDS) * 1000);
    this.timer.unref();
  }

  /** After this producer appended the entry at `seq`. */
  appended(seq: number): void {
    this.seen = Math.max(this.seen, seq);
    if (seq - this.covered < this.everyEntries) return;
    // Another producer sharing the ledger may have checkpointed it meanwhile.
    this.covered = Math.max(this.covered, latestCheckpoint(this.ledger)?.treeSize ?? 0);
    if (seq - this.covered >= this.everyEntries) this.checkpoint();
  }

  /** Signs and stores a checkpoint now (and anchors it). Never throws. */
  checkpoint(): StoredCheckpoint | undefined {
    try {
      const r = createCheckpoint(this.ledger, this.signer, { origin: this.schedule.origin });
      this.covered = r.checkpoint.treeSize;
      if (r.created && this.schedule.anchorFile !== undefined) appendToAnchorFile(this.schedule.anchorFile, r.checkpoint.note);
      this.last = r.checkpoint;
      this.lastError = undefined;
      return r.checkpoint;
    } catch (e) {
      this.lastError = e instanceof ChioError ? e : new ChioError('CHIO-INTERNAL', `checkpoint failed: ${(e as Error)?.message ?? String(e)}`, { cause: e });
      this.log(`chio: checkpoint not made: ${this.lastError.code}: ${this.lastError.message}`);
      return undefined;
    }
  }

  /** At a clean shutdown: a last checkpoint if this producer appended past the latest one. */
  close(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    if (this.seen > this.covered) this.checkpoint();
  }
}
