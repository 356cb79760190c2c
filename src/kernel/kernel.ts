/**
 * The kernel (DESIGN §7): decides every governed tool call and leaves its receipt.
 *   tool known? → capability (signature, time, subject, scope + constraints, delegation)
 *   → budget → revocation (token and every ancestor) → guards → reservation (the budget again,
 *   atomically, and proof the ledger can be written) → dispatch → signed receipt appended → response.
 * Every denial is a signed receipt too. The reservation (with the facts its receipt needs) is
 * committed durably before the tool runs, so a ledger that cannot be written stops the call; the
 * receipt's append settles the reservation. A reservation whose receipt was never written is
 * settled by recovery (recovery.ts) with an `incomplete` receipt: at `Kernel.open`, and after this
 * process's next successful append when one of its own appends failed.
 * The ledger is an SQLite file (`Kernel.open`) or PostgreSQL (`Kernel.connect`): store.ts. The
 * checks up to the reservation are authorize.ts, running the tool dispatch.ts, what the kernel
 * owes recovery recovery-duty.ts, and the options, request and response shapes kernel-types.ts.
 * Owns: that order. Imports crypto, receipt, capability, ledger; must not import edges or cli.
 */
import { randomUUID } from 'node:crypto';
import { issueCapability as issueToken } from '../capability/index.js';
import type { CapabilityToken, Scope } from '../capability/index.js';
import { readInputFile } from '../input-file.js';
import { generateSeed, hashCanonical, parsePublicKeyHex, parseSeed, signerFromSeed } from '../crypto/index.js';
import type { Ed25519Signer } from '../crypto/index.js';
import { ChioError } from '../errors.js';
import { stamp } from '../stage-profile.js';
import { ANCESTOR_GRANTS_KEY } from '../ledger/index.js';
import { authorizeCall, judgedRequest } from './authorize.js';
import type { Authorization, AuthorizeContext } from './authorize.js';
import type { Checkpointer } from './checkpointer.js';
import { dispatchCall } from './dispatch.js';
import type { KernelOptions, ToolCallPreview, ToolCallRequest, ToolCallResponse } from './kernel-types.js';
export type { KernelOptions, ToolCallPreview, ToolCallRequest, ToolCallResponse } from './kernel-types.js';
import type { AppendResult } from '../ledger/index.js';
import { isPostgresUrl } from '../ledger/pg/open.js';
import { signReceipt, signReceiptAsync } from '../receipt/index.js';
import type { Receipt, ReceiptDraft } from '../receipt/index.js';
import { buildGuards } from './guards/index.js';
import type { Guard } from './guards/index.js';
import { defaultPolicy, defaultScope } from './policy.js';
import type { LoadedPolicy } from './policy.js';
import { currentOwner, formatOwner } from './owner.js';
import {
  cancelledDraft,
  denyDraft,
  observationDraft,
  outcomeDraft,
  recordedRequestId,
  REQUEST_ID_KEY,
  reservedFacts,
  revocationDraft,
} from './receipts.js';
export { REQUEST_ID_KEY } from './receipts.js';
import type { CallFacts } from './receipts.js';
import { reservationsInFlight } from './recovery.js';
import type { OwnFailure, RecoveryReport } from './recovery.js';
import { RecoveryDuty } from './recovery-duty.js';
import { openSqliteStore } from './store.js';
import type { KernelStore } from './store.js';
import { openPgStore } from './store-pg.js';
import { requireRedactionKey, resolveRedactionKey } from './redaction-key.js';
import type { RedactionKey } from './redaction-key.js';
import type { ToolServerConnection } from './tool-server.js';

function readSeedFile(path: string): Uint8Array {
  try {
    return parseSeed(readInputFile(path, 'seed', 'kernel seed file'));
  } catch (e) {
    if (e instanceof ChioError) throw e;
    throw new ChioError('CHIO-CLI-IO', `cannot read kernel seed file ${path}: ${(e as Error).message}`, { cause: e });
  }
}

export class Kernel {
  readonly publicKeyHex: string;
  readonly keyGenerated: boolean;
  readonly policy: LoadedPolicy;
  private readonly servers = new Map<string, ToolServerConnection>();
  private readonly guards: Guard[];
  /** What `authorize` reads (the servers map is this kernel's own, so later registrations count). */
  private readonly checks: AuthorizeContext;
  /** This process incarnation, as pending_calls.owner records it (owner.ts). */
  private readonly self = currentOwner();
  private readonly owner = formatOwner(this.self);
  /** What this kernel owes recovery, and the last run's report (recovery-duty.ts). */
  private readonly recovery: RecoveryDuty;
  private readonly clock: () => number;
  private readonly producer: string;
  /** Bases for relative paths that hold for every call (KernelOptions.pathBases + the policy's path_base). */
  readonly pathBases: readonly string[];
  /** The producer's checkpoints (undefined when turned off): the last one made and why the last attempt failed. */
  readonly checkpointer: Checkpointer | undefined;
  /** Keys whose receipts count towards budgets and revocations: this kernel's, then the configured ones. */
  readonly trustedKernelKeys: readonly string[];

  /**
   * @param store  budgets, revocations, and the reservations and receipts, group-committed together:
   *               a reservation proves the ledger takes writes, holds its place in the budget, and
   *               is durable before the tool runs, so a dispatched call is never without a record
   *               (docs/decisions.md, reservations are durable); with calls in flight,
   *               one call's reservation and another's receipt share a commit
   */
  private constructor(
    private readonly signer: Ed25519Signer,
    private readonly store: KernelStore,
    options: KernelOptions,
    generated: boolean,
    private readonly redactionKey: RedactionKey | undefined,
  ) {
    this.publicKeyHex = signer.publicKeyHex;
    this.keyGenerated = generated;
    this.policy = options.policy ?? defaultPolicy();
    this.guards = buildGuards(this.policy.policy.guards);
    this.pathBases = [...(options.pathBases ?? []), ...this.policy.policy.path_base];
    // Each key as the ledger's kernel_key spells it (64 lowercase hex), or the open fails: a key
    // that matches no receipt would silently let a co-producer's revocations count for nothing.
    this.trustedKernelKeys = [
      ...new Set([signer.publicKeyHex, ...(options.trustedKernelKeys ?? []).map(parsePublicKeyHex)]),
    ];
    this.clock = options.clock ?? (() => Math.floor(Date.now() / 1000));
    this.producer = options.producer ?? 'kernel';
    this.checkpointer = store.checkpointer;
    this.recovery = new RecoveryDuty((failures) =>
      this.store.settle({
        signer: this.signer,
        self: this.self,
        selfText: this.owner,
        now: this.clock(),
        producer: this.producer,
        inFlight: (id) => reservationsInFlight.has(id),
        failures,
      }),
    );
    this.checks = {
      servers: this.servers,
      store,
      issuerKeyHex: this.publicKeyHex,
      trustedKernelKeys: this.trustedKernelKeys,
      guards: this.guards,
      pathBases: this.pathBases,
    };
  }

  /** The key and redaction key every open resolves before the ledger is touched. */
  private static prepare(options: KernelOptions) {
    const redactionKey = resolveRedactionKey(options);
    // Refused before the ledger is opened (the constructor reads them again, then valid).
    for (const k of options.trustedKernelKeys ?? []) parsePublicKeyHex(k);
    const seed = options.seed ?? (options.seedFile === undefined ? undefined : readSeedFile(options.seedFile));
    return { redactionKey, generated: seed === undefined, signer: signerFromSeed(seed ?? generateSeed()) };
  }

  /** Opens a kernel on an SQLite ledger (synchronous); recovery has run when it returns. */
  static open(options: KernelOptions): Kernel {
    const { redactionKey, generated, signer } = Kernel.prepare(options);
    const store = openSqliteStore(options.ledgerPath, {
      reservationSync: options.reservationSync ?? 'full',
      signer,
      checkpoints: options.checkpoints ?? {},
      log: options.log ?? ((m: string) => void process.stderr.write(`${m}\n`)),
    });
    const kernel = new Kernel(signer, store, options, generated, redactionKey);
    // Calls of producers that died (or of this process's earlier kernels) without their receipt.
    // A ledger that refuses writes now does not stop the open: the rows wait, and the first
    // successful append of this kernel retries (`lastRecovery.error` says why).
    void kernel.recovery.settleIfDue();
    return kernel;
  }

  /**
   * Opens a kernel on either ledger: a postgres:// URL (DESIGN §11: producers on many hosts share
   * it) or an SQLite path. Recovery has run when it resolves. On PostgreSQL `reservationSync` does
   * not apply: every commit is durable as the server's synchronous_commit says.
   */
  static async connect(options: KernelOptions): Promise<Kernel> {
    if (!isPostgresUrl(options.ledgerPath)) return Kernel.open(options);
    const { redactionKey, generated, signer } = Kernel.prepare(options);
    const store = await openPgStore(options.ledgerPath, {
      signer,
      checkpoints: options.checkpoints ?? {},
      log: options.log ?? ((m: string) => void process.stderr.write(`${m}\n`)),
    });
    const kernel = new Kernel(signer, store, options, generated, redactionKey);
    await kernel.recovery.settleIfDue();
    return kernel;
  }

  /** Which ledger this kernel writes. */
  get ledgerKind(): 'sqlite' | 'postgres' {
    return this.store.kind;
  }

  /** What the last recovery run did: settled calls, rows left pending and why, the error that stopped it. `Kernel.open` runs the first. */
  get lastRecovery(): RecoveryReport {
    return this.recovery.report;
  }

  /**
   * Signs an `incomplete` receipt for every reservation without a receipt that this process may
   * settle: its own calls whose append failed, and calls of provably dead producers on this host.
   * Live producers' calls, and other hosts' rows, are left alone (listed in the report).
   */
  settleUnrecordedCalls(): RecoveryReport | Promise<RecoveryReport> {
    return this.recovery.settle();
  }

  /**
   * Throws CHIO-REDACTION-KEY-REQUIRED when this kernel cannot govern calls: a kernel that governs
   * calls under a redacting policy salts their parameter hashes, so no key, no calls. Called by
   * `registerToolServer`, and by producers whose tool servers connect later (an MCP edge session's
   * upstream) before they serve anyone.
   */
  assertCanGovern(): void {
    requireRedactionKey(this.policy.policy.redaction.mode, this.redactionKey);
  }

  registerToolServer(server: ToolServerConnection): void {
    this.assertCanGovern();
    const id = server.manifest.server_id;
    if (this.servers.has(id))
      throw new ChioError('CHIO-KERNEL-INVALID-REQUEST', `tool server ${id} is already registered`);
    this.servers.set(id, server);
  }

  /** The registered tool servers, in registration order. */
  toolServers(): ToolServerConnection[] {
    return [...this.servers.values()];
  }

  /**
   * The grants a session gets: the policy's default grants, else invoke on every tool of the
   * registered servers and of `serverIds` (a session's own upstream connections) (DESIGN §7a).
   */
  defaultScope(serverIds: readonly string[] = []): Scope {
    return defaultScope(this.policy.policy, [...this.servers.keys(), ...serverIds]);
  }

  issueCapability(options: {
    subject: string;
    scope?: Scope;
    ttlSeconds?: number;
    serverIds?: readonly string[];
  }): CapabilityToken {
    return issueToken(this.signer, {
      subject: options.subject,
      scope: options.scope ?? this.defaultScope(options.serverIds),
      ttlSeconds: options.ttlSeconds ?? this.policy.policy.capability.ttl_seconds,
      now: this.clock(),
    });
  }

  /**
   * The checks of DESIGN §7 before anything is reserved: tool known → capability → budget →
   * revocation → guards. Pure reads; nothing is signed or written.
   */
  private authorize(request: ToolCallPreview, now: number): Promise<Authorization> {
    return authorizeCall(this.checks, request, now);
  }

  /**
   * Would this call be allowed now? The same checks as `evaluateToolCall` up to (not including)
   * the reservation; nothing runs, nothing is signed or written (ACP `session/request_permission`
   * preview). The answer can change before the call is made: only `evaluateToolCall` decides.
   */
  async previewToolCall(
    request: ToolCallPreview,
  ): Promise<{ ok: true } | { ok: false; reason: string; guard: string }> {
    const a = await this.authorize(judgedRequest(request), this.clock());
    return a.ok ? { ok: true } : { ok: false, reason: a.reason, guard: a.guard };
  }

  async evaluateToolCall(incoming: ToolCallRequest): Promise<ToolCallResponse> {
    // Judged once: every later step reads this copy, never the caller's objects (which may be
    // accessors or proxies, or be changed while the call awaits its checks).
    const request = judgedRequest(incoming);
    // The kernel's own id for this call: the signing nonce and the reservation's key. Whatever the
    // client sends (a repeated JSON-RPC id, "7" and 7) it cannot make two calls share a receipt.
    stamp('parse');
    const requestId = randomUUID();
    const now = this.clock();
    const facts = this.facts(request, now, requestId);
    const deny = (reason: string, guard: string, evidence = facts.evidence) =>
      this.finish(request, requestId, denyDraft({ ...facts, evidence }, reason, guard), {
        verdict: 'deny',
        reason,
        guard,
      });

    const auth = await this.authorize(request, now);
    facts.evidence = auth.evidence;
    if (!auth.ok) return deny(auth.reason, auth.guard);
    // The receipt names (and the budget projection charges) the token that was verified, not
    // whatever the presented object's `id` read as before verification.
    facts.capabilityId = auth.capabilityId;
    stamp('authorize');

    // The reservation carries the receipt's facts (parameters already redacted), so recovery can
    // sign a faithful receipt if this process never does. It is committed (group commit, fsync)
    // before the tool is invoked; if it cannot be, the call fails here and nothing runs.
    const r = await this.store.reserve({
      requestId,
      capabilityId: auth.capabilityId,
      grants: auth.candidates.map((g) => ({ index: g.index, maxInvocations: g.limit, ancestors: g.ancestors })),
      trustedKeys: this.trustedKernelKeys,
      owner: this.owner,
      now,
      sessionId: request.sessionId,
      toolServer: request.serverId,
      toolName: request.toolName,
      facts: reservedFacts(facts),
    });
    if (!r.ok) {
      const refusal = `${r.capabilityId === undefined ? '' : `ancestor ${r.capabilityId} grant ${r.ancestorGrantIndex} (via `}grant ${r.grantIndex}${r.capabilityId === undefined ? '' : ')'} has used ${r.used} of ${r.limit} invocations`;
      return deny(`budget exhausted: ${refusal}`, 'budget', [
        ...facts.evidence,
        { guard_name: 'budget', verdict: false, details: refusal },
      ]);
    }
    stamp('reserve');
    // The ancestor grants the call counts against go into its receipt (the grant_usage projection reads them).
    const ancestors = auth.candidates.find((g) => g.index === r.grantIndex)?.ancestors ?? [];
    if (ancestors.length > 0)
      facts.metadata = {
        ...facts.metadata,
        [ANCESTOR_GRANTS_KEY]: ancestors.map((k) => ({ capability_id: k.capabilityId, grant_index: k.grantIndex })),
      };
    reservationsInFlight.add(requestId);
    let toolOutcome: OwnFailure['toolOutcome'];
    try {
      // A call its caller has already withdrawn is never dispatched: its receipt says so.
      const outcome =
        request.signal?.aborted === true
          ? { kind: 'cancelled' as const, reason: 'cancelled by the caller before dispatch' }
          : await dispatchCall(auth.server, request, {
              ...(request.signal === undefined ? {} : { signal: request.signal }),
              ...(request.onProgress === undefined ? {} : { onProgress: request.onProgress }),
              ...(request.onChunk === undefined ? {} : { onChunk: request.onChunk }),
            });
      stamp('dispatch');
      const draft = outcomeDraft(facts, r.grantIndex, outcome);
      const verdict =
        outcome.kind === 'output' || outcome.kind === 'stream'
          ? 'allow'
          : outcome.kind === 'failed'
            ? 'incomplete'
            : 'cancelled';
      toolOutcome = {
        verdict,
        content_hash: draft.content_hash,
        ...(outcome.kind === 'failed' || outcome.kind === 'cancelled' ? { reason: outcome.reason } : {}),
      };
      if (outcome.kind === 'output')
        return await this.finish(request, requestId, draft, { verdict: 'allow', output: outcome.output }, requestId);
      if (outcome.kind === 'stream')
        return await this.finish(request, requestId, draft, { verdict: 'allow', output: outcome.chunks }, requestId);
      return await this.finish(
        request,
        requestId,
        draft,
        { verdict: outcome.kind === 'failed' ? 'incomplete' : 'cancelled', reason: outcome.reason },
        requestId,
      );
    } catch (e) {
      // The tool was dispatched and its receipt is not in the ledger: the reservation stays, and
      // this process settles it as `incomplete` after its next successful append (or the next
      // Kernel.open does). The caller gets the error.
      this.recovery.owe(requestId, {
        detail: (e as Error)?.message ?? String(e),
        ...(toolOutcome === undefined ? {} : { toolOutcome }),
      });
      throw e;
    } finally {
      reservationsInFlight.delete(requestId);
    }
  }

  /**
   * Records a call the caller withdrew before it was dispatched (ACP `tool/cancel` on a deferred
   * task): a signed `cancelled` receipt, nothing run, nothing reserved, no budget used.
   */
  async recordCancellation(
    request: ToolCallRequest & { reason: string },
  ): Promise<{ receipt: Receipt; entry: AppendResult }> {
    const requestId = randomUUID();
    const draft = cancelledDraft(this.facts(request, this.clock(), requestId), request.reason);
    const r = await this.finish(request, requestId, draft, { verdict: 'cancelled', reason: request.reason });
    return { receipt: r.receipt, entry: r.entry };
  }

  private facts(request: ToolCallPreview & { requestId?: string | undefined }, now: number, nonce: string): CallFacts {
    const capabilityId =
      typeof (request.capability as { id?: unknown } | null)?.id === 'string'
        ? (request.capability as { id: string }).id
        : 'invalid-capability';
    return {
      now,
      capabilityId,
      serverId: request.serverId,
      toolName: request.toolName,
      parameters: request.arguments ?? {},
      evidence: [],
      policy: this.policy,
      nonce,
      redactionKey: this.redactionKey,
      ...(request.requestId === undefined
        ? {}
        : { metadata: { [REQUEST_ID_KEY]: recordedRequestId(request.requestId) } }),
    };
  }

  private async finish(
    request: ToolCallRequest,
    requestId: string,
    draft: ReceiptDraft,
    result:
      | { verdict: 'allow'; output: unknown }
      | { verdict: 'deny' | 'incomplete' | 'cancelled'; reason: string; guard?: string },
    releases?: string,
  ): Promise<ToolCallResponse> {
    // If this fails after the tool ran, the reservation stays in pending_calls (counting against
    // the grant's budget) until recovery settles it; the caller gets the error.
    const receipt = await this.sign(draft, requestId);
    stamp('sign');
    const entry = await this.store.append({ receipt, sessionId: request.sessionId, producer: this.producer, releases });
    stamp('commit');
    this.afterAppend(entry);
    return result.verdict === 'allow'
      ? { ok: true, output: result.output, receipt, entry }
      : { ok: false, ...result, receipt, entry };
  }

  /**
   * Signs a receipt: on this thread when this is the only call in flight in the process (the hop
   * to libuv's pool and back costs several times the signature, and there is nothing else for this
   * thread to do meanwhile), else on the pool, so that under load this thread keeps serving the
   * other calls while signatures are made. Same bytes either way.
   */
  private sign(draft: ReceiptDraft, nonce: string): Promise<Receipt> | Receipt {
    return reservationsInFlight.size <= 1
      ? signReceipt(draft, this.signer, { nonce })
      : signReceiptAsync(draft, this.signer, { nonce });
  }

  /**
   * Signs a receipt another producer drafted (the ACP proxy's observations and refusals) with the
   * kernel key and appends it under `sessionId`. The draft must satisfy the receipt semantics.
   */
  async recordReceipt(
    draft: ReceiptDraft,
    options: { nonce: string; sessionId?: string },
  ): Promise<{ receipt: Receipt; entry: AppendResult }> {
    const receipt = await this.sign(draft, options.nonce);
    const entry = await this.store.append({ receipt, sessionId: options.sessionId, producer: this.producer });
    this.afterAppend(entry);
    return { receipt, entry };
  }

  /**
   * Records what crossed the edge without being a call the kernel decided (an MCP server's
   * sampling or elicitation request relayed to the client, and the client's answer): a
   * `trace_observation` signed by the kernel, in `sessionId`. The parameters are recorded as the
   * policy's redaction says (their parameter_hash always, salted when redacting); `content` is
   * what the answer was, covered by content_hash only.
   */
  async recordObservation(o: {
    serverId: string;
    toolName: string;
    capabilityId: string;
    parameters: unknown;
    content: unknown;
    sessionId?: string;
    metadata?: Record<string, unknown>;
  }): Promise<{ receipt: Receipt; entry: AppendResult }> {
    const nonce = randomUUID();
    const facts: CallFacts = {
      now: this.clock(),
      capabilityId: o.capabilityId,
      serverId: o.serverId,
      toolName: o.toolName,
      parameters: o.parameters,
      evidence: [],
      policy: this.policy,
      nonce,
      redactionKey: this.redactionKey,
      ...(o.metadata === undefined ? {} : { metadata: o.metadata }),
    };
    return this.recordReceipt(observationDraft(facts, hashCanonical(o.content ?? null)), {
      nonce,
      ...(o.sessionId === undefined ? {} : { sessionId: o.sessionId }),
    });
  }

  /** Appends a kernel-signed revocation; the kernel then denies the token and every token delegated from it. */
  async revokeCapability(capabilityId: string, reason?: string): Promise<{ receipt: Receipt; entry: AppendResult }> {
    const receipt = await signReceiptAsync(
      revocationDraft(this.clock(), capabilityId, reason, this.policy),
      this.signer,
      { nonce: `revoke-${randomUUID()}` },
    );
    const entry = await this.store.append({ receipt, producer: this.producer });
    this.afterAppend(entry);
    return { receipt, entry };
  }

  /** After an append of this kernel committed: settle what is owed, checkpoint when due. Never throws. */
  private afterAppend(entry: AppendResult): void {
    void this.recovery.settleIfDue();
    this.checkpointer?.appended(entry.seq);
  }

  async close(): Promise<void> {
    await this.store.flush();
    // A last try for this process's own unsettled calls; what still fails waits for the next open.
    await this.recovery.drain();
    await this.store.close();
  }
}
