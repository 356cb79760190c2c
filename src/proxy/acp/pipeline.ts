/**
 * One direction of the ACP proxy as an ordered, bounded pipeline. A message is judged once every
 * earlier message of its direction has been judged (a judgement reads and changes state the next
 * one depends on: capability contexts, open permission requests), and it leaves — its sends run —
 * once it is ready and every earlier message of its direction has left, so nothing overtakes.
 * What makes a judged message wait before it may leave is its own receipt's commit: meanwhile the
 * next messages are judged and their receipts started, and the kernel's writer commits them
 * together (group commit) instead of one fsync each.
 * At most `bound` messages are between read and left; then `gatedInput` stops pulling from the
 * input, so the pipe fills and the sender's writes block, until one leaves (backpressure: a flood
 * cannot grow memory without limit).
 * Owns: ordering and the in-flight bound. Imports nothing; must not import the kernel or the
 * interceptor.
 */

/** Messages of one direction between read and left, at most. */
export const MAX_IN_FLIGHT = 256;

/** One message's judgement. `leave` resolves with its sends once it may leave (never before its receipt committed or failed). */
export interface Step {
  leave: Promise<() => void>;
}

/** A step that may leave at once (behind the earlier ones). */
export const now = (send: () => void = () => {}): Step => ({ leave: Promise.resolve(send) });

export class OrderedPipeline {
  private judged: Promise<unknown> = Promise.resolve();
  private left: Promise<void> = Promise.resolve();
  private inFlight = 0;
  private waiting: (() => void) | undefined;

  /** `fault`: a judgement or its sends threw; the message did not leave (fail closed). */
  constructor(
    private readonly fault: (e: unknown) => void,
    readonly bound = MAX_IN_FLIGHT,
  ) {}

  /** Queues one message: `judge` runs after every earlier judgement has resolved. */
  push(judge: () => Promise<Step> | Step): void {
    this.inFlight += 1;
    const step = this.judged.then(judge);
    this.judged = step.catch(() => {});
    const leave = step.then((s) => s.leave);
    leave.catch(() => {}); // handled below, in order; this only keeps an early rejection from counting as unhandled
    this.left = this.left
      .then(() => leave)
      .then((send) => send())
      .catch((e: unknown) => this.fault(e))
      .finally(() => this.release());
  }

  get full(): boolean {
    return this.inFlight >= this.bound;
  }

  /** Resolves once fewer than `bound` messages are in flight. */
  room(): Promise<void> {
    if (!this.full) return Promise.resolve();
    return new Promise((resolve) => {
      const before = this.waiting;
      this.waiting = () => {
        before?.();
        resolve();
      };
    });
  }

  /** Resolves once every message pushed so far has left (or faulted). */
  drained(): Promise<void> {
    return this.left;
  }

  private release(): void {
    this.inFlight -= 1;
    if (this.full || this.waiting === undefined) return;
    const wake = this.waiting;
    this.waiting = undefined;
    wake();
  }
}

/**
 * `input` re-cut so that every piece ends at a newline (or is the tail of a line), each pulled
 * only while `pipeline` has room: at most one message is added per piece, so the bound is exact.
 * Attacker-controlled bytes, passed through unchanged (the line reader frames and caps them).
 */
export async function* gatedInput(
  input: AsyncIterable<Buffer | string>,
  pipeline: OrderedPipeline,
): AsyncGenerator<Buffer> {
  for await (const chunk of input) {
    let data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    while (data.length > 0) {
      const nl = data.indexOf(0x0a);
      const end = nl < 0 ? data.length : nl + 1;
      const piece = data.subarray(0, end);
      data = data.subarray(end);
      if (pipeline.full) await pipeline.room();
      yield piece;
    }
  }
}
