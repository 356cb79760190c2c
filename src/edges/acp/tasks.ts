/**
 * Deferred `tool/stream` tasks: created `working` without running anything,
 * run once by `tool/resume`, cancelled by `tool/cancel`. Finished tasks are kept for five minutes
 * so a repeated resume returns the same receipt; at most 1,024 unfinished tasks are held, so a
 * client cannot grow memory without bound (upstream MAX_DEFERRED_ACP_TASKS).
 * Owns: task ids, states and retention. Imports nothing from the kernel.
 */
export const MAX_OPEN_TASKS = 1024;
export const TASK_RETENTION_MS = 5 * 60 * 1000;
export const TASK_ACCEPTED = 'Task accepted for authoritative deferred execution.';

export type TaskStatus = 'working' | 'completed' | 'failed' | 'cancelled';

export interface DeferredTask<Result> {
  readonly id: string;
  readonly capabilityId: string;
  readonly arguments: unknown;
  status: TaskStatus;
  statusMessage: string;
  /** Set while resume runs the call; cancel aborts it. */
  running?: { promise: Promise<Result>; abort: AbortController };
  /** The terminal payload (the invocation result), once there is one. */
  result?: Result;
  /** Receipt-bearing metadata once the task has a receipt. */
  metadata?: unknown;
  finishedAt?: number;
}

export class TaskStore<Result> {
  private readonly tasks = new Map<string, DeferredTask<Result>>();
  private next = 1;

  constructor(private readonly now: () => number = Date.now) {}

  /** Undefined when too many tasks are unfinished. */
  create(capabilityId: string, args: unknown, statusMessage: string): DeferredTask<Result> | undefined {
    this.expire();
    let open = 0;
    for (const t of this.tasks.values()) if (t.finishedAt === undefined) open += 1;
    if (open >= MAX_OPEN_TASKS) return undefined;
    const task: DeferredTask<Result> = {
      id: `acp-task-${this.next++}`,
      capabilityId,
      arguments: args,
      status: 'working',
      statusMessage,
    };
    this.tasks.set(task.id, task);
    return task;
  }

  get(id: string): DeferredTask<Result> | undefined {
    this.expire();
    return this.tasks.get(id);
  }

  finish(task: DeferredTask<Result>, status: Exclude<TaskStatus, 'working'>, statusMessage: string): void {
    task.status = status;
    task.statusMessage = statusMessage;
    task.finishedAt = this.now();
    delete task.running;
  }

  /** Undoes `finish` when what it recorded could not be written. */
  reopen(task: DeferredTask<Result>): void {
    task.status = 'working';
    task.statusMessage = TASK_ACCEPTED;
    delete task.finishedAt;
  }

  /** Unfinished tasks (their calls may be running). */
  unfinished(): DeferredTask<Result>[] {
    return [...this.tasks.values()].filter((t) => t.finishedAt === undefined);
  }

  private expire(): void {
    const cutoff = this.now() - TASK_RETENTION_MS;
    for (const [id, t] of this.tasks) if (t.finishedAt !== undefined && t.finishedAt < cutoff) this.tasks.delete(id);
  }
}
