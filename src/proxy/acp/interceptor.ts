/**
 * The ACP proxy's decisions, one message at a time, free of any transport:
 *  agent → editor  fs/* and terminal/* requests are checked (kernel checker when installed, then
 *                  FsGuard with the policy's forbidden paths / TerminalGuard and any plugged-in
 *                  terminal checks) and refused with −32000 naming the operation and value, never
 *                  forwarded, leaving a deny receipt that names the refusing guard; session/update tool-call events become signed receipts (updates.ts);
 *                  permission requests are logged with their mapping and tracked;
 *  either way      session/cancel purges the session's capability contexts; from the editor it
 *                  also answers the agent's open permission requests `cancelled` (ACP
 *                  prompt-turn §cancellation) and drops the editor's late answers to them.
 * Each message gets one `Disposition`; the transport applies them in arrival order. The transport
 * may judge the next messages while a tool-call update's receipt commits (`judgeFromAgent`): every
 * step that reads or changes state a later message depends on runs when the message is judged;
 * only the commit, and the forwarding decision that waits for it, is left to `ready`.
 * Owns: method handling. Imports the kernel (signing) and the proxy's guards. All params are
 * attacker-controlled (either peer may be hostile).
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { hashCanonical } from '../../crypto/index.js';
import { isChioError } from '../../errors.js';
import { guards } from '../../kernel/index.js';
import type { Kernel } from '../../kernel/index.js';
import { errorResponse, INVALID_PARAMS, resultResponse } from '../../wire/index.js';
import type { Incoming, RequestId } from '../../wire/index.js';
import { splitToken } from './checker.js';
import type { KernelCapabilityChecker } from './checker.js';
import type { AcpProxyConfig } from './config.js';
import { CapabilityContexts } from './contexts.js';
import { FsGuard } from './fs-guard.js';
import type { ForbiddenPaths } from './fs-guard.js';
import { refusalDraft } from './receipts.js';
import { redacts } from './redaction.js';
import { TerminalGuard } from './terminal-guard.js';
import type { TerminalCheck } from './terminal-guard.js';
import { kernelTerminalCheck } from './kernel-terminal-check.js';
import { judgeToolCallUpdate } from './updates.js';

/** ACP's access-denied error code for refused requests (upstream ACP_ERROR_ACCESS_DENIED). */
export const ACCESS_DENIED = -32000;

import { at, pass } from './disposition.js';
import type { Disposition, Judged } from './disposition.js';
export type { Disposition, Judged } from './disposition.js';

const nonBlank = z.string().refine((s) => s.trim() !== '' && s.trim() === s, 'must be a non-empty unpadded string');
const FsParams = z.object({ sessionId: nonBlank, path: z.string() }).passthrough();
const TerminalCreateParams = z
  .object({
    sessionId: nonBlank,
    command: z.string(),
    args: z.array(z.string()).optional(),
    cwd: z.string().nullish(),
    // ACP EnvVariable[]; any other shape (a name→value object) is refused, never forwarded.
    env: z.array(z.object({ name: z.string(), value: z.string() }).passthrough()).nullish(),
  })
  .passthrough();
const TerminalIdParams = z.object({ sessionId: nonBlank, terminalId: nonBlank }).passthrough();
const SessionParams = z.object({ sessionId: nonBlank }).passthrough();
const PermissionParams = z
  .object({ sessionId: nonBlank, options: z.array(z.object({ optionId: z.string(), kind: z.string() }).passthrough()) })
  .passthrough();

/** Permission option kinds (ACP PermissionOptionKind) → what the editor's choice would mean. Unknown kinds deny. */
export function mapPermissionKind(kind: string): 'allow' | 'deny' {
  return kind === 'allow_once' || kind === 'allow_always' ? 'allow' : 'deny';
}

export interface InterceptorOptions {
  config: AcpProxyConfig;
  /** Signs and appends receipts; without it nothing is recorded (and `required` attestation refuses updates). */
  kernel?: Kernel;
  checker?: KernelCapabilityChecker;
  /** Extra judgements of each terminal/create, after the proxy's own and the kernel's guards. */
  terminalChecks?: readonly TerminalCheck[];
  log?: (line: string) => void;
  clock?: () => number;
}

/**
 * The kernel's forbidden-path guard with the policy's `guards['forbidden-path']` settings (the
 * defaults without a kernel). A policy that disables the guard disables it here too.
 */
function forbiddenPaths(kernel: Kernel | undefined): ForbiddenPaths | undefined {
  const config = kernel?.policy.policy.guards['forbidden-path'];
  if ((config as { enabled?: unknown } | undefined)?.enabled === false) return undefined;
  return new guards.ForbiddenPathGuard(config);
}

export class AcpInterceptor {
  readonly contexts = new CapabilityContexts();
  private readonly fs: FsGuard;
  private readonly terminal: TerminalGuard;
  private readonly log: (line: string) => void;
  private readonly clock: () => number;
  /** The agent's open session/request_permission requests: JSON id → session. */
  private readonly permissions = new Map<string, string>();
  /** Ids the proxy answered `cancelled` itself: the editor's own answer is dropped. */
  private readonly answered = new Set<string>();

  constructor(private readonly options: InterceptorOptions) {
    const { fields } = options.config;
    this.fs = new FsGuard(fields.allowedPathPrefixes, forbiddenPaths(options.kernel));
    // The kernel's guards judge every terminal the proxy's own rules let through (secure default).
    const checks = [kernelTerminalCheck(options.kernel, fields.allowedPathPrefixes), ...(options.terminalChecks ?? [])];
    this.terminal = new TerminalGuard(fields.allowedCommands, { fs: this.fs, allowedEnv: fields.allowedEnv, checks });
    this.log = options.log ?? (() => {});
    this.clock = options.clock ?? (() => Math.floor(Date.now() / 1000));
  }

  /** The disposition of an agent message, once its receipt (if it needs one) has committed or failed. */
  async fromAgent(m: Incoming): Promise<Disposition> {
    return (await this.judgeFromAgent(m)).ready;
  }

  /**
   * Judges an agent message. Call it in arrival order, each call after the previous one resolved:
   * guards, the checker, refusal receipts and every change to contexts and permissions happen
   * before it resolves. A tool-call update's receipt is started and committed in `ready`, so the
   * caller may judge the next messages meanwhile (their receipts are then committed together).
   */
  async judgeFromAgent(m: Incoming): Promise<Judged> {
    if (m.kind === 'notification' && m.message.method === 'session/update') return this.sessionUpdate(m.message.params);
    return at(await this.agentMessage(m));
  }

  private async agentMessage(m: Incoming): Promise<Disposition> {
    if (m.kind === 'request') {
      const { id, method } = m.message;
      const params = m.message.params ?? {};
      switch (method) {
        case 'fs/read_text_file':
        case 'fs/write_text_file':
          return this.fsRequest(id, method, params);
        case 'terminal/create':
          return this.terminalCreate(id, params);
        case 'terminal/kill':
        case 'terminal/release':
          return this.terminalLifecycle(id, method, params);
        case 'session/request_permission':
          return this.permissionRequest(id, params);
        default:
          return pass();
      }
    }
    if (m.kind === 'notification' && m.message.method === 'session/cancel') return this.cancel(m.message.params, false);
    return pass();
  }

  async fromClient(m: Incoming): Promise<Disposition> {
    if (m.kind === 'notification' && m.message.method === 'session/cancel') return this.cancel(m.message.params, true);
    if (m.kind === 'response' && m.message.id !== null) {
      const key = JSON.stringify(m.message.id);
      if (this.answered.delete(key)) return { forward: false, toSender: [], toPeerAfter: [] };
      this.permissions.delete(key);
    }
    return pass();
  }

  private refuse(id: RequestId, code: number, message: string): Disposition {
    return { forward: false, toSender: [errorResponse(id, code, message)], toPeerAfter: [] };
  }

  private invalid(id: RequestId, method: string, error: z.ZodError): Disposition {
    const issue = error.issues[0];
    return this.refuse(
      id,
      INVALID_PARAMS,
      `invalid ${method} params: ${issue?.path.join('.') || 'params'} ${issue?.message ?? 'is malformed'}`,
    );
  }

  /**
   * A signed deny receipt for a request the proxy itself refused (the kernel signs its own denials).
   * `quotesRequest`: the reason may quote the request (a guard's message); under a redacting policy
   * it is then not recorded (redaction.ts), nor is the request hash computed.
   */
  private async recordRefusal(
    id: RequestId,
    sessionId: string,
    method: string,
    operation: string,
    resource: string,
    params: Record<string, unknown>,
    guard: string,
    reason: string,
    quotesRequest: boolean,
    capabilityId?: string,
  ): Promise<void> {
    const kernel = this.options.kernel;
    if (kernel === undefined) return;
    const redaction = kernel.policy.policy.redaction;
    const draft = refusalDraft(
      {
        serverId: this.options.config.serverId,
        sessionId,
        method,
        operation,
        resource,
        guard,
        reason,
        quotesRequest,
        timestamp: this.clock(),
        parameterHash: redacts(redaction) ? null : hashCanonical(splitToken(params).payload),
        ...(capabilityId === undefined ? {} : { capabilityId }),
      },
      kernel.policy.policyHash,
      redaction,
    );
    try {
      await kernel.recordReceipt(draft, { nonce: `acp-refusal-${JSON.stringify(id)}-${randomUUID()}`, sessionId });
    } catch (e) {
      this.log(`could not record the refusal of ${method} (${reason}): ${(e as Error).message}`);
    }
  }

  /** The kernel checker, when installed. Undefined means allowed with no context (no checker). */
  private async capabilityGate(
    id: RequestId,
    sessionId: string,
    method: string,
    operation: 'fs_read' | 'fs_write' | 'terminal' | 'terminal_kill' | 'terminal_release',
    resource: string,
    params: Record<string, unknown>,
  ) {
    const checker = this.options.checker;
    if (checker === undefined) return { ok: true as const, context: undefined };
    try {
      const v = await checker.check({ requestId: id, sessionId, operation, resource, params });
      if (v.ok) return { ok: true as const, context: v.context };
      const message = `access denied: capability denied for ${method} ${resource}: ${v.reason}`;
      // Not recorded by the kernel: no token was presented, and the checker's reason says only that.
      if (!v.recorded)
        await this.recordRefusal(
          id,
          sessionId,
          method,
          operation,
          resource,
          params,
          'capability',
          v.reason,
          false,
          v.capabilityId,
        );
      return { ok: false as const, disposition: this.refuse(id, ACCESS_DENIED, message) };
    } catch (e) {
      // A decision that cannot be recorded is not a decision: fail closed.
      const why = isChioError(e) ? `${e.code}: ${e.message}` : (e as Error).message;
      return {
        ok: false as const,
        disposition: this.refuse(id, ACCESS_DENIED, `access denied: capability check failed closed: ${why}`),
      };
    }
  }

  private async fsRequest(
    id: RequestId,
    method: 'fs/read_text_file' | 'fs/write_text_file',
    params: Record<string, unknown>,
  ): Promise<Disposition> {
    const p = FsParams.safeParse(params);
    if (!p.success) return this.invalid(id, method, p.error);
    const op = method === 'fs/read_text_file' ? 'read' : 'write';
    const operation = op === 'read' ? 'fs_read' : 'fs_write';
    const gate = await this.capabilityGate(id, p.data.sessionId, method, operation, p.data.path, params);
    if (!gate.ok) return gate.disposition;
    const verdict = this.fs.check(op, p.data.path);
    if (!verdict.ok) {
      this.log(`fs ${op} blocked: ${p.data.path}`);
      await this.recordRefusal(
        id,
        p.data.sessionId,
        method,
        operation,
        p.data.path,
        params,
        verdict.guard,
        verdict.message,
        true,
        gate.context?.capabilityId,
      );
      return this.refuse(id, ACCESS_DENIED, verdict.message);
    }
    if (gate.context !== undefined) this.contexts.remember(p.data.sessionId, gate.context);
    return pass();
  }

  private async terminalCreate(id: RequestId, params: Record<string, unknown>): Promise<Disposition> {
    const method = 'terminal/create';
    const p = TerminalCreateParams.safeParse(params);
    if (!p.success) return this.invalid(id, method, p.error);
    const gate = await this.capabilityGate(id, p.data.sessionId, method, 'terminal', p.data.command, params);
    if (!gate.ok) return gate.disposition;
    const verdict = this.terminal.check(p.data.command, p.data.args ?? [], {
      cwd: p.data.cwd ?? null,
      env: p.data.env ?? [],
    });
    if (!verdict.ok) {
      this.log(`terminal create blocked: ${p.data.command}`);
      await this.recordRefusal(
        id,
        p.data.sessionId,
        method,
        'terminal',
        p.data.command,
        params,
        verdict.guard,
        verdict.message,
        true,
        gate.context?.capabilityId,
      );
      return this.refuse(id, ACCESS_DENIED, verdict.message);
    }
    if (gate.context !== undefined) this.contexts.remember(p.data.sessionId, gate.context);
    return pass();
  }

  private async terminalLifecycle(
    id: RequestId,
    method: 'terminal/kill' | 'terminal/release',
    params: Record<string, unknown>,
  ): Promise<Disposition> {
    const p = TerminalIdParams.safeParse(params);
    if (!p.success) return this.invalid(id, method, p.error);
    const operation = method === 'terminal/kill' ? 'terminal_kill' : 'terminal_release';
    if (this.options.checker === undefined) {
      const message = `${method} denied: capability checker is required for terminal lifecycle operations`;
      this.log('terminal lifecycle blocked: no capability checker installed');
      await this.recordRefusal(
        id,
        p.data.sessionId,
        method,
        operation,
        p.data.terminalId,
        params,
        'acp-terminal-guard',
        message,
        false,
      );
      return this.refuse(id, ACCESS_DENIED, message);
    }
    const gate = await this.capabilityGate(id, p.data.sessionId, method, operation, p.data.terminalId, params);
    if (!gate.ok) return gate.disposition;
    if (gate.context !== undefined && gate.context.authorizationToolCallId !== '')
      this.contexts.remember(p.data.sessionId, gate.context);
    return pass();
  }

  private permissionRequest(id: RequestId, params: Record<string, unknown>): Disposition {
    const p = PermissionParams.safeParse(params);
    if (!p.success) return this.invalid(id, 'session/request_permission', p.error);
    for (const o of p.data.options)
      this.log(`permission option ${o.optionId} (${o.kind}) maps to ${mapPermissionKind(o.kind)}; the editor chooses`);
    this.permissions.set(JSON.stringify(id), p.data.sessionId);
    return pass();
  }

  private cancel(params: unknown, fromClient: boolean): Disposition {
    const p = SessionParams.safeParse(params);
    if (!p.success) {
      this.log('session/cancel without a valid sessionId: forwarded, nothing purged');
      return pass();
    }
    const purged = this.contexts.purge(p.data.sessionId);
    if (purged > 0) this.log(`session/cancel cleared ${purged} capability context(s) of ${p.data.sessionId}`);
    const toPeerAfter: object[] = [];
    if (fromClient) {
      for (const [key, session] of [...this.permissions]) {
        if (session !== p.data.sessionId) continue;
        this.permissions.delete(key);
        this.answered.add(key);
        toPeerAfter.push(resultResponse(JSON.parse(key) as RequestId, { outcome: { outcome: 'cancelled' } }));
      }
    }
    return { forward: true, toSender: [], toPeerAfter };
  }

  private sessionUpdate(params: unknown): Judged {
    const { kernel, config } = this.options;
    return judgeToolCallUpdate(params, {
      contexts: this.contexts,
      config,
      log: this.log,
      clock: this.clock,
      ...(kernel === undefined ? {} : { kernel }),
    });
  }
}
