/**
 * The ACP edge: Chio's own tools as an ACP surface over line-based JSON-RPC.
 *   session/list_capabilities  discovery (published capabilities + the surface's lifecycle)
 *   session/request_permission a preview: the kernel's checks without running or signing
 *   tool/invoke                kernel → dispatch (streamed when the tool streams) → signed receipt
 *   tool/stream                a `working` deferred task; nothing runs
 *   tool/resume                runs the task through the kernel once; its receipt
 *   tool/cancel                withdraws a task (a signed `cancelled` receipt) or aborts its run
 * Every execution leaves a receipt in the ledger under this edge's session id. Requests are
 * handled concurrently; each answer names the request it answers.
 * Owns: ACP edge method semantics. Imports the kernel and wire helpers; must not import cli.
 */
import { randomUUID } from 'node:crypto';
import type { CapabilityToken } from '../../capability/index.js';
import { generateSeed, signerFromSeed } from '../../crypto/index.js';
import { ChioError, isChioError } from '../../errors.js';
import type { Kernel, ToolCallResponse, ToolManifest } from '../../kernel/index.js';
import {
  errorResponse,
  INTERNAL_ERROR,
  INVALID_PARAMS,
  INVALID_REQUEST,
  METHOD_NOT_FOUND,
  RequestIdSchema,
  resultResponse,
  RpcError,
} from '../../wire/index.js';
import type { RequestId } from '../../wire/index.js';
import { buildCapabilityTable } from './capabilities.js';
import type { AcpCategory, CapabilityBinding } from './capabilities.js';
import { pendingTaskMetadata, previewMetadata, receiptMetadata, surfaceMetadata } from './metadata.js';
import { identifier, invocation } from './params.js';
import type { ParamCheck } from './params.js';
import { TASK_ACCEPTED, TaskStore } from './tasks.js';
import type { DeferredTask } from './tasks.js';

export const ACP_EDGE_METHODS = [
  'session/list_capabilities',
  'session/request_permission',
  'tool/invoke',
  'tool/stream',
  'tool/cancel',
  'tool/resume',
] as const;

export interface AcpEdgeOptions {
  kernel: Kernel;
  /** The agent's capability (kernel-issued). Default: the kernel's default scope for a fresh agent key. */
  capability?: CapabilityToken;
  /** Public key (hex) of the agent the capability names; required with `capability`. */
  agentId?: string;
  /** Manifests to publish. Default: those of the kernel's registered tool servers. */
  manifests?: readonly ToolManifest[];
  /** Whether every capability requires permission (upstream AcpEdgeConfig default: true). */
  requirePermission?: boolean;
  defaultCategory?: AcpCategory;
  /** The ledger session for this edge's receipts. Default: `acp-edge-<uuid>`. */
  sessionId?: string;
}

/** `tool/invoke`'s result, also a resumed task's terminal payload. */
export interface AcpInvocationResult {
  success: boolean;
  data: unknown;
  error?: string;
  metadata: ReturnType<typeof receiptMetadata>;
}

const TASK_CANCELLED = 'Task cancelled by caller.';

function unwrap<T>(check: ParamCheck<T>): T {
  if (!check.ok) throw new RpcError(INVALID_PARAMS, check.message);
  return check.value;
}

export class AcpEdge {
  readonly sessionId: string;
  private readonly kernel: Kernel;
  private readonly capability: CapabilityToken;
  private readonly agentId: string;
  private readonly published: Map<string, CapabilityBinding>;
  /** Capabilities withheld from discovery, with the reason (unsupported fidelity). */
  readonly withheld: ReadonlyMap<string, string>;
  private readonly tasks = new TaskStore<AcpInvocationResult>();
  private closed = false;

  constructor(options: AcpEdgeOptions) {
    this.kernel = options.kernel;
    this.sessionId = options.sessionId ?? `acp-edge-${randomUUID()}`;
    if (options.capability !== undefined) {
      if (options.agentId === undefined)
        throw new ChioError('CHIO-KERNEL-INVALID-REQUEST', 'an ACP edge given a capability needs the agentId it names');
      this.capability = options.capability;
      this.agentId = options.agentId;
    } else {
      const agent = signerFromSeed(generateSeed());
      this.agentId = agent.publicKeyHex;
      this.capability = this.kernel.issueCapability({ subject: agent.publicKeyHex });
    }
    const servers = this.kernel.toolServers();
    const table = buildCapabilityTable(
      options.manifests ?? servers.map((s) => s.manifest),
      new Set(servers.map((s) => s.manifest.server_id)),
      {
        requirePermission: options.requirePermission ?? true,
        defaultCategory: options.defaultCategory ?? 'tool',
      },
    );
    this.published = table.published;
    this.withheld = table.withheld;
  }

  /** Handles one parsed message (attacker-controlled); resolves with the response, or null for none. */
  async handle(value: unknown): Promise<object | null> {
    const envelope = this.envelope(value);
    if ('response' in envelope) return envelope.response;
    const { id, method, params } = envelope;
    try {
      const result = await this.dispatch(method, params);
      return id === undefined ? null : resultResponse(id as RequestId, result);
    } catch (e) {
      if (id === undefined) return null;
      if (e instanceof RpcError) return errorResponse(id, e.code, e.message, e.data);
      const message = isChioError(e)
        ? `${e.code}: ${e.message}`
        : `internal error: ${(e as Error)?.message ?? String(e)}`;
      return errorResponse(id, INTERNAL_ERROR, message);
    }
  }

  /** Envelope checks in upstream's order; `id` undefined means a notification (no answer). */
  private envelope(
    value: unknown,
  ):
    | { response: object | null }
    | { id: RequestId | null | undefined; method: string; params: Record<string, unknown> } {
    if (Array.isArray(value)) return { response: errorResponse(null, INVALID_REQUEST, 'batches are not supported') };
    if (value === null || typeof value !== 'object')
      return { response: errorResponse(null, INVALID_REQUEST, 'a message is a JSON object') };
    const v = value as Record<string, unknown>;
    const hasId = 'id' in v;
    if (hasId && v.id !== null && !RequestIdSchema.safeParse(v.id).success)
      return { response: errorResponse(null, INVALID_REQUEST, 'request id must be string, number, or null') };
    const id = hasId ? (v.id as RequestId | null) : undefined;
    const fail = (code: number, message: string) => ({
      response: id === undefined ? null : errorResponse(id, code, message),
    });
    if (v.jsonrpc !== '2.0') return fail(INVALID_REQUEST, 'invalid jsonrpc envelope');
    if (!('method' in v) && ('result' in v || 'error' in v)) return { response: null }; // a response: this edge sends no requests
    if (typeof v.method !== 'string' || v.method === '') return fail(INVALID_REQUEST, 'request missing method');
    const method = v.method;
    if (!(ACP_EDGE_METHODS as readonly string[]).includes(method)) return fail(METHOD_NOT_FOUND, 'method not found');
    const params = v.params ?? {};
    if (typeof params !== 'object' || params === null || Array.isArray(params))
      return fail(INVALID_PARAMS, `${method} params must be an object`);
    return { id, method, params: params as Record<string, unknown> };
  }

  private async dispatch(method: string, params: Record<string, unknown>): Promise<unknown> {
    if (this.closed) throw new RpcError(INTERNAL_ERROR, 'the ACP edge is closed');
    switch (method) {
      case 'session/list_capabilities':
        return { capabilities: [...this.published.values()].map((b) => b.capability), metadata: surfaceMetadata() };
      case 'session/request_permission':
        return this.preview(unwrap(invocation(params, method)));
      case 'tool/invoke': {
        const call = unwrap(invocation(params, method));
        return this.invoke(this.binding(call.capabilityId), call.arguments, `acp-invoke-${randomUUID()}`);
      }
      case 'tool/stream':
        return this.stream(unwrap(invocation(params, method)));
      case 'tool/resume':
        return this.resume(this.task(unwrap(identifier(params, method, 'taskId'))));
      case 'tool/cancel':
        return this.cancel(this.task(unwrap(identifier(params, method, 'taskId'))));
      default:
        throw new RpcError(METHOD_NOT_FOUND, 'method not found');
    }
  }

  /** An unknown or withheld capability is refused before the kernel sees anything. */
  private binding(capabilityId: string): CapabilityBinding {
    const b = this.published.get(capabilityId);
    if (b === undefined) throw new RpcError(INTERNAL_ERROR, `tool not found: ${capabilityId}`);
    return b;
  }

  private task(taskId: string): DeferredTask<AcpInvocationResult> {
    const t = this.tasks.get(taskId);
    if (t === undefined) throw new RpcError(INTERNAL_ERROR, `task not found: ${taskId}`);
    return t;
  }

  private async preview(call: { capabilityId: string; arguments: Record<string, unknown> }) {
    const b = this.published.get(call.capabilityId);
    if (b === undefined)
      return {
        decision: 'deny',
        metadata: previewMetadata({ guard: 'edge', reason: `tool not found: ${call.capabilityId}` }),
      };
    const verdict = await this.kernel.previewToolCall({
      capability: this.capability,
      caller: this.agentId,
      serverId: b.serverId,
      toolName: b.toolName,
      arguments: call.arguments,
    });
    return verdict.ok
      ? { decision: 'allow', metadata: previewMetadata() }
      : { decision: 'deny', metadata: previewMetadata({ guard: verdict.guard, reason: verdict.reason }) };
  }

  private async invoke(
    b: CapabilityBinding,
    args: Record<string, unknown>,
    requestId: string,
    signal?: AbortSignal,
  ): Promise<AcpInvocationResult> {
    const r: ToolCallResponse = await this.kernel.evaluateToolCall({
      capability: this.capability,
      caller: this.agentId,
      serverId: b.serverId,
      toolName: b.toolName,
      arguments: args,
      requestId,
      sessionId: this.sessionId,
      stream: true,
      ...(signal === undefined ? {} : { signal }),
    });
    const metadata = receiptMetadata(r.receipt);
    if (!r.ok) return { success: false, data: null, error: r.reason, metadata };
    const streamed = r.receipt.metadata?.stream !== undefined;
    return { success: true, data: streamed ? { stream: r.output } : r.output, metadata };
  }

  private stream(call: { capabilityId: string; arguments: Record<string, unknown> }) {
    this.binding(call.capabilityId);
    const task = this.tasks.create(call.capabilityId, call.arguments, TASK_ACCEPTED);
    if (task === undefined) throw new RpcError(INTERNAL_ERROR, 'invalid request: too many deferred tasks are retained');
    return { task: this.view(task) };
  }

  private async resume(task: DeferredTask<AcpInvocationResult>) {
    if (task.status === 'working') {
      if (task.running === undefined) {
        const abort = new AbortController();
        const promise = this.invoke(
          this.binding(task.capabilityId),
          task.arguments as Record<string, unknown>,
          `acp-stream-${task.id}-${randomUUID()}`,
          abort.signal,
        );
        task.running = { promise, abort };
        try {
          const result = await promise;
          this.settle(task, result);
        } catch (e) {
          delete task.running; // the receipt could not be written: the task stays resumable
          throw e;
        }
      } else {
        await task.running.promise.catch(() => undefined);
      }
    }
    return { task: this.view(task), result: task.result ?? null };
  }

  private settle(task: DeferredTask<AcpInvocationResult>, result: AcpInvocationResult): void {
    task.result = result;
    task.metadata = result.metadata;
    // The task's status follows the outcome (a denial completes its lifecycle but fails the task).
    const { state } = result.metadata.chio.terminalState;
    if (state === 'cancelled') this.tasks.finish(task, 'cancelled', TASK_CANCELLED);
    else if (state === 'completed' && result.success) this.tasks.finish(task, 'completed', 'Task completed.');
    else this.tasks.finish(task, 'failed', result.error ?? 'Task failed.');
  }

  private async cancel(task: DeferredTask<AcpInvocationResult>) {
    if (task.status === 'working' && task.running !== undefined) {
      task.running.abort.abort();
      await task.running.promise.catch(() => undefined);
    } else if (task.status === 'working') {
      // Claimed synchronously, so a resume arriving while the receipt is written finds it cancelled.
      this.tasks.finish(task, 'cancelled', TASK_CANCELLED);
      const b = this.binding(task.capabilityId);
      try {
        const { receipt } = await this.kernel.recordCancellation({
          capability: this.capability,
          caller: this.agentId,
          serverId: b.serverId,
          toolName: b.toolName,
          arguments: task.arguments,
          requestId: `acp-cancel-${task.id}-${randomUUID()}`,
          sessionId: this.sessionId,
          reason: 'deferred task cancelled by the caller before it ran',
        });
        task.metadata = receiptMetadata(receipt);
      } catch (e) {
        this.tasks.reopen(task); // nothing recorded: the task is still the caller's to resume or cancel
        throw e;
      }
    }
    if (task.status !== 'cancelled')
      throw new RpcError(INTERNAL_ERROR, `invalid request: cannot cancel task in terminal status \`${task.status}\``);
    return { task: this.view(task) };
  }

  private view(task: DeferredTask<AcpInvocationResult>) {
    return {
      id: task.id,
      status: task.status,
      statusMessage: task.statusMessage,
      metadata: task.metadata ?? pendingTaskMetadata('pending'),
    };
  }

  /** Aborts running deferred calls; further requests are refused. */
  close(): void {
    this.closed = true;
    for (const t of this.tasks.unfinished()) t.running?.abort.abort();
  }
}
