// The ACP edge: hello-acp over stdio with the real ACP SDK client, hostile raw lines, cancel/deny in process, and smoke.sh.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AcpEdge } from '../../src/edges/acp/index.js';
import { generateSeed, Kernel, parseSeed, signerFromSeed, verifyReceipt } from '../../src/index.js';
import { openLedger, verifyChain } from '../../src/ledger/index.js';
import type { ToolServerConnection } from '../../src/kernel/index.js';
import { GateToolServer } from '../helpers/acp-edge-gate.js';
import { ledgerPath, ledgerRows, rawEdge, sdkEdge } from '../helpers/acp-edge-wire.js';
import type { SdkEdge } from '../helpers/acp-edge-wire.js';
import { chio } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const HEX64 = /^[0-9a-f]{64}$/;

describe('hello-acp edge over stdio, real ACP SDK client', () => {
  const home = tempDir('chio-acp-wire-');
  const db = ledgerPath(home);
  const SESSION = 'acp-wire-session';
  const receipts: Record<'invoke' | 'stream' | 'cancel', string> = { invoke: '', stream: '', cancel: '' };
  let edge: SdkEdge;
  let exited: number | null | undefined;
  beforeAll(() => {
    edge = sdkEdge(home, SESSION);
  });
  afterAll(async () => {
    if (exited === undefined) await edge.close();
  });
  const rows = () => ledgerRows(db).length;

  it('session/list_capabilities: hello_tool with exactly the six keys, and the authoritative surface metadata', async () => {
    const r = await edge.call('session/list_capabilities', {});
    expect(r.capabilities).toHaveLength(1);
    const [cap] = r.capabilities;
    expect(Object.keys(cap).sort()).toEqual([
      'bridgeFidelity',
      'category',
      'description',
      'id',
      'name',
      'requiresPermission',
    ]);
    expect(cap).toMatchObject({
      id: 'hello_tool',
      name: 'hello_tool',
      description: 'Return a greeting payload',
      category: 'tool',
      requiresPermission: true,
    });
    expect(cap.bridgeFidelity.kind).toBe('adapted');
    expect(cap.bridgeFidelity.caveats).toHaveLength(4);
    expect(r.metadata.chio).toMatchObject({
      authorityPath: 'cross_protocol_orchestrator',
      lifecycle: {
        toolInvoke: 'blocking_terminal_result',
        toolStream: 'deferred_task_resume',
        toolResume: 'supported',
        toolCancel: 'supported',
      },
      invokeMode: 'blocking_or_deferred_task',
      permissionPreviewOnly: true,
      receiptBearingInvoke: true,
      streamDelivery: 'resumed_terminal_payload',
      runtimeLifecycle: {
        surface: 'acp_authoritative',
        followUpEntrypoint: 'tool/resume',
        cancelEntrypoint: 'tool/cancel',
      },
    });
  });

  it('tool/invoke: the two streamed chunks and a signed allow receipt the metadata points at', async () => {
    const r = await edge.call('tool/invoke', { capabilityId: 'hello_tool', arguments: { name: 'world' } });
    expect(r.success).toBe(true);
    expect(r.error).toBeUndefined();
    expect(r.data.stream.map((c: any) => c.content[0].text)).toEqual(['hello from acp, world', 'resume complete']);
    const { chio: m } = r.metadata;
    expect(m).toMatchObject({
      decision: 'allow',
      authorityPath: 'cross_protocol_orchestrator',
      receiptId: m.receipt.id,
      capabilityId: m.receipt.capability_id,
    });
    expect(m.terminalState).toEqual({ state: 'completed' }); // upstream's OperationTerminalState, tagged by "state"
    expect(m.receiptId).toMatch(HEX64);
    expect(m.receipt).toMatchObject({
      tool_server: 'hello-acp-srv',
      tool_name: 'hello_tool',
      decision: { verdict: 'allow' },
      metadata: { stream: { chunks_received: 2 } },
    });
    expect(verifyReceipt(m.receipt).ok).toBe(true);
    expect(ledgerRows(db).map((e) => [e.receipt_id, e.session_id])).toEqual([[m.receiptId, SESSION]]);
    receipts.invoke = m.receiptId;
  });

  it('tool/stream runs nothing and signs nothing; tool/resume runs it once; a second resume returns the same receipt', async () => {
    const s = await edge.call('tool/stream', { capabilityId: 'hello_tool', arguments: { name: 'stream' } });
    expect(s.task.id).toMatch(/^acp-task-\d+$/);
    expect(s.task.status).toBe('working');
    expect(s.task.metadata.chio).toMatchObject({
      receiptPending: true,
      decision: 'pending',
      receiptId: null,
      receipt: null,
    });
    expect(s.task.metadata.chio.runtimeLifecycle).toMatchObject({ streamEntrypoint: 'tool/stream' });
    expect(rows()).toBe(1);
    const r1 = await edge.call('tool/resume', { taskId: s.task.id });
    expect(r1.task).toMatchObject({ id: s.task.id, status: 'completed' });
    expect(r1.result.success).toBe(true);
    expect(r1.result.data.stream[0].content[0].text).toBe('hello from acp, stream');
    const id = r1.result.metadata.chio.receiptId;
    expect(id).toMatch(HEX64);
    expect(r1.task.metadata.chio.receiptId).toBe(id);
    expect(rows()).toBe(2);
    const r2 = await edge.call('tool/resume', { taskId: s.task.id });
    expect(r2.task.status).toBe('completed');
    expect(r2.result.metadata.chio.receiptId).toBe(id);
    expect(rows()).toBe(2);
    const late = await edge.fail('tool/cancel', { taskId: s.task.id });
    expect(late.code).toBe(-32603);
    expect(late.message).toMatch(/cannot cancel task in terminal status/);
    expect(rows()).toBe(2);
    receipts.stream = id;
  });

  it('tool/cancel on a fresh task: cancelled with a signed cancelled receipt; again is idempotent; resume then has no result', async () => {
    const s = await edge.call('tool/stream', { capabilityId: 'hello_tool', arguments: {} });
    const c1 = await edge.call('tool/cancel', { taskId: s.task.id });
    expect(c1.task).toMatchObject({ id: s.task.id, status: 'cancelled', statusMessage: 'Task cancelled by caller.' });
    const m = c1.task.metadata.chio;
    expect(m).toMatchObject({
      decision: 'cancelled',
      receipt: { id: m.receiptId, decision: { verdict: 'cancelled' } },
    });
    expect(m.terminalState).toEqual({ state: 'cancelled', reason: m.receipt.decision.reason });
    expect(verifyReceipt(m.receipt).ok).toBe(true);
    expect(ledgerRows(db).map((e) => e.receipt_id)).toEqual([receipts.invoke, receipts.stream, m.receiptId]);
    const c2 = await edge.call('tool/cancel', { taskId: s.task.id });
    expect(c2).toEqual(c1);
    const resumed = await edge.call('tool/resume', { taskId: s.task.id });
    expect(resumed.task.status).toBe('cancelled');
    expect(resumed.result).toBeNull();
    expect(rows()).toBe(3);
    receipts.cancel = m.receiptId;
  });

  it('errors: no taskId −32602; unknown task or capability −32603 with nothing signed; unknown method −32601', async () => {
    expect(await edge.fail('tool/cancel', {})).toEqual({ code: -32602, message: 'tool/cancel requires params.taskId' });
    expect(await edge.fail('tool/resume', { taskId: 42 })).toEqual({
      code: -32602,
      message: 'tool/resume params.taskId must be a string',
    });
    expect(await edge.fail('tool/resume', { taskId: 'acp-task-999' })).toEqual({
      code: -32603,
      message: 'task not found: acp-task-999',
    });
    expect(await edge.fail('tool/cancel', { taskId: 'acp-task-999' })).toEqual({
      code: -32603,
      message: 'task not found: acp-task-999',
    });
    expect(await edge.fail('tool/invoke', { capabilityId: 'no_such_tool', arguments: {} })).toEqual({
      code: -32603,
      message: 'tool not found: no_such_tool',
    });
    expect(await edge.fail('tool/stream', { capabilityId: 'no_such_tool' })).toEqual({
      code: -32603,
      message: 'tool not found: no_such_tool',
    });
    expect(await edge.fail('tool/teleport', {})).toEqual({ code: -32601, message: 'method not found' });
    expect(rows()).toBe(3);
  });

  it('session/request_permission is a preview with no receipt: allow for hello_tool, deny for an unknown capability', async () => {
    const allow = await edge.call('session/request_permission', {
      capabilityId: 'hello_tool',
      arguments: { name: 'x' },
    });
    expect(allow.decision).toBe('allow');
    expect(allow.metadata.chio).toMatchObject({
      receiptId: null,
      receipt: null,
      authorityPath: 'capability_preview',
      previewOnly: true,
      invokeAuthorityPath: 'cross_protocol_orchestrator',
    });
    expect(allow.metadata.chio.previewDenial).toBeUndefined();
    const deny = await edge.call('session/request_permission', { capabilityId: 'no_such_tool' });
    expect(deny.decision).toBe('deny');
    expect(deny.metadata.chio).toMatchObject({
      receiptId: null,
      previewDenial: { reason: 'tool not found: no_such_tool' },
    });
    expect(rows()).toBe(3);
  });

  it('afterwards: the edge exits 0 with nothing on stderr; ledger, receipts and a session certificate all verify', async () => {
    exited = await edge.close();
    expect(exited).toBe(0);
    expect(edge.stderr()).toBe('');
    const pub = join(home, 'kernel.pub');
    writeFileSync(
      pub,
      `${signerFromSeed(parseSeed(readFileSync(join(home, '.state', 'kernel.seed')))).publicKeyHex}\n`,
    );
    const verify = chio(['ledger', 'verify', '--receipt-db', db, '--trusted-kernel-pubkey', pub]);
    expect(verify.status, verify.stdout + verify.stderr).toBe(0);
    expect(verify.stdout).toMatch(/^OK: 3 entries verified, 1 session/);
    const list = chio(['receipt', 'list', '--receipt-db', db, '--session-id', SESSION]);
    expect(list.status, list.stderr).toBe(0);
    const listed = list.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(listed.map((r) => [r.id, r.decision.verdict])).toEqual([
      [receipts.invoke, 'allow'],
      [receipts.stream, 'allow'],
      [receipts.cancel, 'cancelled'],
    ]);
    const each = chio(['receipt', 'verify', '-', '--json', '--trusted-kernel-pubkey', pub], { input: list.stdout });
    expect(each.status, each.stdout).toBe(0);
    expect(JSON.parse(each.stdout)).toMatchObject({ ok: true, verified: 3, failed: 0 });
    const out = join(home, 'cert.json');
    // Signed by the kernel itself, so the kernel's public key is all a verifier needs.
    const gen = chio([
      'cert',
      'generate',
      '--session-id',
      SESSION,
      '--receipt-db',
      db,
      '--kernel-seed-file',
      join(home, '.state', 'kernel.seed'),
      '--output',
      out,
      '--trusted-kernel-pubkey',
      pub,
    ]);
    expect(gen.status, gen.stderr).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8')).body).toMatchObject({
      session_id: SESSION,
      receipt_count: 3,
      all_signatures_valid: true,
      chain_continuous: true,
      anomalies: [],
    });
    const full = chio([
      'cert',
      'verify',
      '--certificate',
      out,
      '--trusted-kernel-pubkey',
      pub,
      '--full',
      '--receipt-db',
      db,
    ]);
    expect(full.status, full.stdout + full.stderr).toBe(0);
  });
});

describe('hello-acp edge over stdio, hostile raw lines', () => {
  it('answers each bad message with its code, ignores notifications, keeps serving, and leaves a verifiable ledger', async () => {
    const home = tempDir('chio-acp-raw-');
    const r = await rawEdge(home, [
      '{"jsonrpc":"2.0","id":1,"method":',
      '{"jsonrpc":"2.0","id":2,"method":"session/list_capabilities"}',
      '[{"jsonrpc":"2.0","id":3,"method":"session/list_capabilities"}]',
      '{"jsonrpc":"2.0","id":{},"method":"session/list_capabilities"}',
      '{"jsonrpc":"1.0","id":5,"method":"session/list_capabilities"}',
      '{"jsonrpc":"2.0","id":6,"method":"tool/invoke","params":[1]}',
      '{"jsonrpc":"2.0","id":7,"method":"tool/stream","params":"hello_tool"}',
      '{"jsonrpc":"2.0","id":8,"method":"tool/invoke","params":{"capabilityId":" hello_tool "}}',
      '{"jsonrpc":"2.0","id":9,"method":"tool/invoke","params":{"capabilityId":"hello\\u0007tool"}}',
      '{"jsonrpc":"2.0","id":10,"method":"tool/invoke","params":{"capabilityId":"hello_tool","arguments":[1]}}',
      '{"jsonrpc":"2.0","method":"session/list_capabilities"}',
      '{"jsonrpc":"1.0","method":"session/list_capabilities"}',
      '{"jsonrpc":"2.0","method":"no/such/method"}',
      '{"jsonrpc":"2.0","id":"eleven","method":"no/such/method"}',
      '{"jsonrpc":"2.0","id":12,"method":"tool/invoke","params":{"capabilityId":"hello_tool","arguments":{"name":"raw"}}}',
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const byId = (id: unknown) => r.responses.filter((m) => m.id === id);
    const errorOf = (id: unknown) => byId(id)[0]?.error;
    expect(r.responses).toHaveLength(12);
    expect(
      byId(null)
        .map((m) => m.error.code)
        .sort(),
    ).toEqual([-32700, -32600, -32600].sort());
    expect(byId(null).map((m) => m.error.message)).toContain('request id must be string, number, or null');
    expect(byId(2)[0].result.capabilities.map((c: any) => c.id)).toEqual(['hello_tool']);
    expect(byId(3)).toEqual([]);
    expect(errorOf(5)).toEqual({ code: -32600, message: 'invalid jsonrpc envelope' });
    expect(errorOf(6)).toEqual({ code: -32602, message: 'tool/invoke params must be an object' });
    expect(errorOf(7)).toEqual({ code: -32602, message: 'tool/stream params must be an object' });
    expect(errorOf(8)).toEqual({
      code: -32602,
      message: 'tool/invoke params.capabilityId must not include leading or trailing whitespace',
    });
    expect(errorOf(9)).toEqual({
      code: -32602,
      message: 'tool/invoke params.capabilityId must not include control characters',
    });
    expect(errorOf(10)).toEqual({ code: -32602, message: 'tool/invoke params.arguments must be an object' });
    expect(errorOf('eleven')).toEqual({ code: -32601, message: 'method not found' });
    expect(byId(12)[0].result).toMatchObject({ success: true, metadata: { chio: { decision: 'allow' } } });
    expect(r.responses.every((m) => m.jsonrpc === '2.0')).toBe(true);
    const db = ledgerPath(home);
    expect(ledgerRows(db).map((e) => e.receipt_id)).toEqual([byId(12)[0].result.metadata.chio.receiptId]);
    const verify = chio(['ledger', 'verify', '--receipt-db', db]);
    expect(verify.status, verify.stdout).toBe(0);
    expect(verify.stdout).toMatch(/^OK: 1 entry verified/);
  });
});

describe('ACP edge in process: cancel during a run, and a kernel deny', () => {
  const dir = tempDir('chio-acp-inproc-');
  const db = join(dir, 'inproc.sqlite');
  const kernel = Kernel.open({ ledgerPath: db, producer: 'acp-test' });
  const server = new GateToolServer();
  kernel.registerToolServer(server);
  afterAll(() => kernel.close());
  const rpc = async (edge: AcpEdge, method: string, params: unknown): Promise<any> =>
    edge.handle({ jsonrpc: '2.0', id: 1, method, params });

  it('tool/cancel while tool/resume runs aborts the call: the task ends cancelled under one signed cancelled receipt', {
    timeout: 15_000,
  }, async () => {
    const edge = new AcpEdge({ kernel, sessionId: 'inproc-cancel' });
    const s = await rpc(edge, 'tool/stream', { capabilityId: 'wait_tool' });
    const resuming = rpc(edge, 'tool/resume', { taskId: s.result.task.id });
    await server.holding;
    const cancel = await rpc(edge, 'tool/cancel', { taskId: s.result.task.id });
    expect(server.aborts).toEqual(['wait_tool']);
    expect(cancel.result.task.status).toBe('cancelled');
    const m = cancel.result.task.metadata.chio;
    expect(m).toMatchObject({
      decision: 'cancelled',
      receipt: { id: m.receiptId, tool_name: 'wait_tool', decision: { verdict: 'cancelled' } },
    });
    expect(m.terminalState).toEqual({ state: 'cancelled', reason: m.receipt.decision.reason });
    expect(verifyReceipt(m.receipt).ok).toBe(true);
    const resumed = (await resuming).result;
    expect(resumed.task.status).toBe('cancelled');
    expect(resumed.result).toMatchObject({
      success: false,
      data: null,
      metadata: { chio: { receiptId: m.receiptId } },
    });
    expect(resumed.result.metadata.chio.terminalState).toEqual(m.terminalState);
    expect(
      ledgerRows(db)
        .filter((e) => e.session_id === 'inproc-cancel')
        .map((e) => e.receipt_id),
    ).toEqual([m.receiptId]);
    const again = await rpc(edge, 'tool/cancel', { taskId: s.result.task.id });
    expect(again.result.task.metadata.chio.receiptId).toBe(m.receiptId);
    edge.close();
    expect((await rpc(edge, 'session/list_capabilities', {})).error).toEqual({
      code: -32603,
      message: 'the ACP edge is closed',
    });
  });

  it('a tool that fails mid-call: terminalState is {state: "incomplete", reason} (the receipt\'s reason), the deferred task fails', async () => {
    const failing = Kernel.open({ ledgerPath: join(dir, 'incomplete.sqlite'), producer: 'acp-test' });
    failing.registerToolServer({
      manifest: {
        schema: 'chio.manifest.v1',
        server_id: 'broken',
        name: 'broken',
        version: '1.0.0',
        tools: [
          { name: 'boom', description: 'always fails', input_schema: { type: 'object' }, has_side_effects: false },
        ],
      },
      invoke: async () => {
        throw new Error('the tool fell over');
      },
    } satisfies ToolServerConnection);
    const edge = new AcpEdge({ kernel: failing, sessionId: 'inproc-incomplete' });
    try {
      const r = (await rpc(edge, 'tool/invoke', { capabilityId: 'boom', arguments: {} })).result;
      expect(r).toMatchObject({
        success: false,
        data: null,
        metadata: { chio: { decision: 'incomplete', receipt: { decision: { verdict: 'incomplete' } } } },
      });
      expect(r.metadata.chio.terminalState).toEqual({
        state: 'incomplete',
        reason: r.metadata.chio.receipt.decision.reason,
      });
      expect(r.metadata.chio.terminalState.reason).toMatch(/the tool fell over/);
      const stream = (await rpc(edge, 'tool/stream', { capabilityId: 'boom' })).result;
      const resumed = (await rpc(edge, 'tool/resume', { taskId: stream.task.id })).result;
      expect(resumed.task.status).toBe('failed');
      expect(resumed.result.metadata.chio.terminalState.state).toBe('incomplete');
    } finally {
      edge.close();
      await failing.close();
    }
  });

  it('holds at most MAX_OPEN_TASKS (1024) unfinished tasks; a cancelled one frees its place', async () => {
    const edge = new AcpEdge({ kernel, sessionId: 'inproc-cap' });
    const ids: string[] = [];
    for (let i = 0; i < 1024; i++)
      ids.push((await rpc(edge, 'tool/stream', { capabilityId: 'other_tool' })).result.task.id);
    expect(new Set(ids).size).toBe(1024);
    expect((await rpc(edge, 'tool/stream', { capabilityId: 'other_tool' })).error).toEqual({
      code: -32603,
      message: 'invalid request: too many deferred tasks are retained',
    });
    expect((await rpc(edge, 'tool/cancel', { taskId: ids[0] })).result.task.status).toBe('cancelled');
    expect((await rpc(edge, 'tool/stream', { capabilityId: 'other_tool' })).result.task.status).toBe('working');
    edge.close();
  });

  it('a capability scoped to another tool: invoke is a signed deny (success false; terminalState completed, as upstream: the lifecycle ended, the verdict is deny), the preview denies by the capability guard', async () => {
    const agent = signerFromSeed(generateSeed());
    const capability = kernel.issueCapability({
      subject: agent.publicKeyHex,
      scope: { grants: [{ server_id: 'gate', tool_name: 'other_tool', operations: ['invoke'] }] },
    });
    const edge = new AcpEdge({ kernel, capability, agentId: agent.publicKeyHex, sessionId: 'inproc-deny' });
    const callsBefore = server.calls.length;
    const r = (await rpc(edge, 'tool/invoke', { capabilityId: 'wait_tool', arguments: {} })).result;
    expect(r).toMatchObject({
      success: false,
      data: null,
      metadata: { chio: { decision: 'deny', receipt: { decision: { verdict: 'deny', guard: 'capability' } } } },
    });
    expect(r.metadata.chio.terminalState).toEqual({ state: 'completed' });
    expect(r.error).toMatch(/^capability /);
    expect(r.metadata.chio.reason).toBe(r.error);
    expect(verifyReceipt(r.metadata.chio.receipt).ok).toBe(true);
    expect(server.calls.length).toBe(callsBefore);
    const stream = (await rpc(edge, 'tool/stream', { capabilityId: 'wait_tool' })).result;
    const resumed = (await rpc(edge, 'tool/resume', { taskId: stream.task.id })).result;
    expect(resumed.task).toMatchObject({ status: 'failed', statusMessage: r.error });
    expect(resumed.result.metadata.chio).toMatchObject({ decision: 'deny', terminalState: { state: 'completed' } });
    const rowsBefore = ledgerRows(db).length;
    const preview = (await rpc(edge, 'session/request_permission', { capabilityId: 'wait_tool' })).result;
    expect(preview.decision).toBe('deny');
    expect(preview.metadata.chio.previewDenial).toEqual({ guard: 'capability', reason: r.error });
    expect((await rpc(edge, 'session/request_permission', { capabilityId: 'other_tool' })).result.decision).toBe(
      'allow',
    );
    expect(ledgerRows(db).length).toBe(rowsBefore);
    const allowed = (await rpc(edge, 'tool/invoke', { capabilityId: 'other_tool' })).result;
    expect(allowed).toMatchObject({
      success: true,
      data: { stream: [{ first: 'other_tool' }] },
      metadata: { chio: { decision: 'allow', terminalState: { state: 'completed' } } },
    });
    expect(ledgerRows(db).filter((e) => e.session_id === 'inproc-deny')).toHaveLength(3);
    const ledger = openLedger(db, { readonly: true });
    expect(verifyChain(ledger)).toMatchObject({ ok: true });
    ledger.close();
  });

  it('requirePermission:false relaxes requiresPermission, not the preview: a call the capability does not cover still previews deny', async () => {
    const agent = signerFromSeed(generateSeed());
    const capability = kernel.issueCapability({
      subject: agent.publicKeyHex,
      scope: { grants: [{ server_id: 'gate', tool_name: 'other_tool', operations: ['invoke'] }] },
    });
    const edge = new AcpEdge({
      kernel,
      capability,
      agentId: agent.publicKeyHex,
      sessionId: 'inproc-relaxed',
      requirePermission: false,
    });
    const caps = (await rpc(edge, 'session/list_capabilities', {})).result.capabilities;
    expect(caps.map((c: any) => [c.id, c.requiresPermission])).toEqual([
      ['other_tool', false],
      ['wait_tool', false],
    ]);
    const invoke = (await rpc(edge, 'tool/invoke', { capabilityId: 'wait_tool' })).result;
    expect(invoke.metadata.chio.decision).toBe('deny');
    const preview = (await rpc(edge, 'session/request_permission', { capabilityId: 'wait_tool' })).result;
    expect(preview.decision).toBe('deny');
    expect(preview.metadata.chio.previewDenial).toEqual({ guard: 'capability', reason: invoke.error });
  });
});

describe('examples/hello-acp', () => {
  it('smoke.sh passes: four artifacts, an empty edge.log, both receipts valid in the ledger', () => {
    const home = tempDir('chio-acp-smoke-');
    const smoke = fileURLToPath(new URL('../../examples/hello-acp/smoke.sh', import.meta.url));
    const r = spawnSync('bash', [smoke], { encoding: 'utf8', env: { ...process.env, HELLO_ACP_HOME: home } });
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toBe('hello-acp smoke passed');
    const artifacts = /^artifacts: (.+)$/.exec(lines[1]!)![1]!;
    const invoke = /^invoke receipt: ([0-9a-f]{64})$/.exec(lines[2]!)![1]!;
    const stream = /^stream receipt: ([0-9a-f]{64})$/.exec(lines[3]!)![1]!;
    expect(invoke).not.toBe(stream);
    for (const f of ['list-capabilities.json', 'tool-invoke.json', 'tool-stream.json', 'tool-resume.json'])
      expect(existsSync(join(artifacts, f)), f).toBe(true);
    expect(
      JSON.parse(readFileSync(join(artifacts, 'tool-resume.json'), 'utf8')).result.result.metadata.chio.receiptId,
    ).toBe(stream);
    // The edge's stderr log lives in this run's artifacts directory, as upstream's smoke writes it, and is empty.
    expect(artifacts.startsWith(`${join(home, '.artifacts')}/`)).toBe(true);
    expect(statSync(join(artifacts, 'logs', 'edge.log')).size).toBe(0);
    expect(existsSync(join(home, 'logs'))).toBe(false);
    for (const id of [invoke, stream]) {
      const show = chio(['receipt', 'show', id, '--receipt-db', ledgerPath(home), '--json']);
      expect(show.status, show.stderr).toBe(0);
      expect(JSON.parse(show.stdout)).toMatchObject({
        valid: true,
        receipt: { id, tool_name: 'hello_tool', decision: { verdict: 'allow' } },
      });
    }
  });
});
