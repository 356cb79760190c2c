/**
 * Task-augmented tool calls (MCP 2025-11-25 basic/utilities/tasks, experimental): `tools/call` with
 * `params.task` returns a `working` task at once and runs the governed call in the background;
 * `tasks/get`, `tasks/list`, `tasks/result` (waits for the end, then returns what the call would
 * have, tagged with the related-task `_meta` key) and `tasks/cancel` (terminal tasks refused).
 * Tasks are per MCP session. Owns: task state. Imports JSON-RPC helpers only.
 */
import { randomUUID } from 'node:crypto';
import { INVALID_PARAMS, RpcError } from './jsonrpc.js';

export const RELATED_TASK_META_KEY = 'io.modelcontextprotocol/related-task';

type Status = 'working' | 'completed' | 'failed' | 'cancelled';

interface TaskRecord {
  taskId: string;
  status: Status;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttl: number | null;
  controller: AbortController;
  done: Promise<void>;
  result?: Record<string, unknown>;
}

export class TaskStore {
  private readonly tasks = new Map<string, TaskRecord>();

  /** Starts `run` in the background as a new task; resolves the public Task at once. */
  start(ttl: number | null, run: (signal: AbortSignal) => Promise<Record<string, unknown>>): Record<string, unknown> {
    const now = new Date().toISOString();
    const controller = new AbortController();
    const record: TaskRecord = {
      taskId: `task-${randomUUID()}`,
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttl,
      controller,
      done: Promise.resolve(),
    };
    record.done = run(controller.signal).then(
      (result) => {
        if (record.status !== 'working') return;
        record.result = result;
        this.settle(record, result.isError === true ? 'failed' : 'completed');
      },
      (e: unknown) => {
        if (record.status !== 'working') return;
        record.result = { content: [{ type: 'text', text: (e as Error)?.message ?? String(e) }], isError: true };
        this.settle(record, 'failed', (e as Error)?.message);
      },
    );
    this.tasks.set(record.taskId, record);
    return this.view(record);
  }

  get(taskId: string): Record<string, unknown> {
    return this.view(this.find(taskId));
  }

  list(cursor: string | undefined): { tasks: unknown[]; nextCursor?: string } {
    const all = [...this.tasks.values()];
    const start = cursor === undefined ? 0 : Number(/^\d{1,9}$/.test(cursor) ? cursor : NaN);
    if (!Number.isInteger(start) || start > all.length) throw new RpcError(INVALID_PARAMS, 'invalid cursor');
    const page = all.slice(start, start + 50).map((t) => this.view(t));
    return start + 50 < all.length ? { tasks: page, nextCursor: String(start + 50) } : { tasks: page };
  }

  async result(taskId: string): Promise<Record<string, unknown>> {
    const record = this.find(taskId);
    await record.done;
    const base = record.result ?? {
      content: [{ type: 'text', text: record.statusMessage ?? record.status }],
      isError: true,
    };
    const meta = { ...(base._meta as Record<string, unknown> | undefined), [RELATED_TASK_META_KEY]: { taskId } };
    return { ...base, _meta: meta };
  }

  cancel(taskId: string): Record<string, unknown> {
    const record = this.find(taskId);
    if (record.status !== 'working') throw new RpcError(INVALID_PARAMS, `task ${taskId} is already ${record.status}`);
    record.controller.abort('cancelled by tasks/cancel');
    this.settle(record, 'cancelled', 'cancelled by the client');
    return this.view(record);
  }

  private find(taskId: unknown): TaskRecord {
    const record = typeof taskId === 'string' ? this.tasks.get(taskId) : undefined;
    if (record === undefined) throw new RpcError(INVALID_PARAMS, `unknown task ${String(taskId)}`);
    return record;
  }

  private settle(record: TaskRecord, status: Status, message?: string): void {
    record.status = status;
    if (message !== undefined) record.statusMessage = message;
    record.lastUpdatedAt = new Date().toISOString();
  }

  private view(r: TaskRecord): Record<string, unknown> {
    return {
      taskId: r.taskId,
      status: r.status,
      ...(r.statusMessage === undefined ? {} : { statusMessage: r.statusMessage }),
      createdAt: r.createdAt,
      lastUpdatedAt: r.lastUpdatedAt,
      ttl: r.ttl,
      pollInterval: 100,
    };
  }
}
