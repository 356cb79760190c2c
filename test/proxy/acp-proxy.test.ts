// `chio acp proxy` end to end: the built CLI as a real child process, the SDK fixture agent behind
// it, a real SDK client in front, a real SQLite ledger, real files and symlinks.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kernel } from '../../src/kernel/index.js';
import { fromHex, signerFromSeed } from '../../src/crypto/index.js';
import { startProxyClient, waitFor } from '../helpers/acp-proxy-client.js';
import type { ProxyClient } from '../helpers/acp-proxy-client.js';
import { kernelKeyFiles, ledgerReceipts, sortedJsonHash } from '../helpers/acp-proxy-ledger.js';
import { ACP_METADATA_KEYS, denied, projectTree } from '../helpers/acp-proxy-tree.js';
import { chio } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

describe('chio acp proxy: guards, permission mapping and tool-call receipts', () => {
  const dir = tempDir('chio-acp-proxy-');
  const { root, outside } = projectTree(dir);
  const keys = kernelKeyFiles(dir);
  const db = join(dir, 'receipts.sqlite');
  let client: ProxyClient;
  let s1: string;
  let s2: string;
  beforeAll(async () => {
    client = startProxyClient([
      '--receipt-db',
      db,
      '--kernel-seed-file',
      keys.seedFile,
      '--allow-path',
      root,
      '--allow-command',
      'cargo',
    ]);
    s1 = await client.newSession();
    s2 = await client.newSession();
  });
  afterAll(async () => void (await client?.close()));

  it('fs: reads and writes inside --allow-path reach the editor; traversal, /etc/shadow, links out, the _evil sibling, relative paths and denied writes do not', async () => {
    const r = await client.prompt(s1, [
      { read: { path: join(root, 'a.txt') } },
      { write: { path: join(root, 'new.txt'), content: 'written through the proxy' } },
      { read: { path: '/etc/shadow' } },
      { read: { path: `${root}/../etc/passwd` } },
      { read: { path: join(root, 'link-out') } },
      { read: { path: join(root, 'dir-out', 'secret.txt') } },
      { read: { path: join(`${root}_evil`, 'secret.txt') } },
      { read: { path: 'project/a.txt' } },
      { write: { path: join(outside, 'created.txt'), content: 'x' } },
      { write: { path: join(root, 'dir-out', 'escaped.txt'), content: 'x' } },
    ]);
    expect(r[0]).toEqual({ ok: true, result: { content: 'hello from a' } });
    expect(r[1]).toMatchObject({ ok: true });
    expect(readFileSync(join(root, 'new.txt'), 'utf8')).toBe('written through the proxy');
    expect(r.slice(2)).toEqual([
      denied('access denied: fs read denied for path: /etc/shadow'),
      denied(`path traversal detected: ${root}/../etc/passwd`),
      denied(`access denied: fs read denied for path: ${join(root, 'link-out')}`),
      denied(`access denied: fs read denied for path: ${join(root, 'dir-out', 'secret.txt')}`),
      denied(`access denied: fs read denied for path: ${join(`${root}_evil`, 'secret.txt')}`),
      denied('access denied: fs read denied: relative path not allowed: project/a.txt'),
      denied(`access denied: fs write denied for path: ${join(outside, 'created.txt')}`),
      denied(`access denied: fs write denied for path: ${join(root, 'dir-out', 'escaped.txt')}`),
    ]);
    // Only the two allowed requests reached the editor; the refused writes created nothing.
    expect(client.seen.filter((s) => s.method.startsWith('fs/')).map((s) => [s.method, s.params.path])).toEqual([
      ['fs/read_text_file', join(root, 'a.txt')],
      ['fs/write_text_file', join(root, 'new.txt')],
    ]);
    expect(existsSync(join(outside, 'created.txt'))).toBe(false);
    expect(existsSync(join(outside, 'escaped.txt'))).toBe(false);
  });

  it('terminal: allowed cargo reaches the editor; rm, every metacharacter and a cwd outside the roots are refused; kill/release need a checker; output and wait pass', async () => {
    const before = client.seen.length;
    const metas = ['`whoami`', '$(whoami)', 'a|b', 'a;b', 'a\nb', 'a\rb'];
    const r = await client.prompt(s1, [
      { terminal: { command: 'cargo', args: ['build', '--jobs=4'], cwd: root } },
      { output: { terminalId: 'term-1' } },
      { wait: { terminalId: 'term-1' } },
      { terminal: { command: 'rm', args: ['-rf', '/'] } },
      ...metas.map((arg) => ({ terminal: { command: 'cargo', args: ['build', arg] } })),
      { terminal: { command: 'cargo', args: ['build'], cwd: outside } },
      { terminal: { command: '/usr/bin/cargo', args: ['build'] } },
      { kill: { terminalId: 'term-1' } },
      { release: { terminalId: 'term-1' } },
    ]);
    expect(r[0]).toEqual({ ok: true, result: { terminalId: 'term-1' } });
    expect(r[1]).toEqual({ ok: true, result: { output: 'compiled', truncated: false } });
    expect(r[2]).toEqual({ ok: true, result: { exitCode: 0 } });
    expect(r.slice(3)).toEqual([
      denied('access denied: terminal denied: command not allowed: rm'),
      ...metas.map((arg) => denied(`access denied: terminal denied: suspicious argument: ${arg}`)),
      denied(`access denied: fs cwd denied for path: ${outside}`),
      denied('access denied: terminal denied: command not allowed: /usr/bin/cargo'),
      denied('terminal/kill denied: capability checker is required for terminal lifecycle operations'),
      denied('terminal/release denied: capability checker is required for terminal lifecycle operations'),
    ]);
    const reached = client.seen.slice(before);
    expect(reached.map((s) => s.method)).toEqual(['terminal/create', 'terminal/output', 'terminal/wait_for_exit']);
    expect(reached[0]!.params).toMatchObject({
      sessionId: s1,
      command: 'cargo',
      args: ['build', '--jobs=4'],
      cwd: root,
    });
  });

  it('tool-call events become trace_observation receipts with the declared-fields content hash; a status-less update records nothing; the editor gets every update in order', async () => {
    const path = join(root, 'a.txt');
    const sent = [
      {
        sessionUpdate: 'tool_call',
        toolCallId: 'tc-read',
        title: 'Read a.txt',
        kind: 'read',
        status: 'in_progress',
        rawInput: { path },
        locations: [{ path }],
      },
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'tc-read',
        status: 'completed',
        content: [{ type: 'content', content: { type: 'text', text: 'hello from a' } }],
        rawInput: { path },
      },
      { sessionUpdate: 'tool_call_update', toolCallId: 'tc-read', title: 'Read a.txt (done)' },
      { sessionUpdate: 'tool_call', toolCallId: 'tc-bare', title: 'Think' },
      { sessionUpdate: 'tool_call_update', toolCallId: 'tc-plain', status: 'failed' },
    ];
    const r = await client.prompt(
      s2,
      sent.map((update) => ({ update })),
    );
    expect(r.every((o) => o.ok)).toBe(true);
    const got = client.updates.filter((u) => u.sessionId === s2).map((u) => u.update);
    expect(got.map((u) => [u.sessionUpdate, u.toolCallId ?? null, u.status ?? null])).toEqual([
      ...sent.map((u) => [u.sessionUpdate, u.toolCallId, u.status ?? null]),
      ['agent_message_chunk', null, null],
    ]);
    expect(got[1].content).toEqual(sent[1]!.content);

    const rows = ledgerReceipts(db).filter((e) => e.session_id === s2);
    expect(rows.map((e) => [e.receipt.action.parameters.tool_call_id, e.receipt.action.parameters.status])).toEqual([
      ['tc-read', 'in_progress'],
      ['tc-read', 'completed'],
      ['tc-bare', expect.any(String)],
      ['tc-plain', 'failed'],
    ]);
    const [call, done, bare, plain] = rows.map((e) => e.receipt);
    for (const rc of [call, done, bare, plain]) {
      expect(rc).toMatchObject({
        capability_id: `acp-session:${s2}`,
        receipt_kind: 'trace_observation',
        trust_level: 'verified',
        tool_server: 'chio-acp-proxy',
      });
      expect(rc.decision).toBeUndefined();
      expect(Object.keys(rc.metadata.acp).sort()).toEqual(ACP_METADATA_KEYS);
      expect(Object.keys(rc.action.parameters).sort()).toEqual([
        'authorization_parameter_hash',
        'kind',
        'status',
        'title',
        'tool_call_id',
      ]);
    }
    expect(call.metadata.acp).toEqual({
      sessionId: s2,
      toolCallId: 'tc-read',
      enforcementMode: 'audit_only',
      capabilityId: null,
      authorizationReceiptId: null,
      authorizationRequestId: null,
      authorizationToolCallId: null,
      authorizationCorrelationId: null,
      authorizationOperation: null,
      authorizationResource: null,
      authorizationParameterHash: null,
    });
    expect(call.metadata.receipt_context).toMatchObject({ session_id: s2, tool_call_id: 'tc-read' });
    expect(call.action.parameters).toEqual({
      tool_call_id: 'tc-read',
      title: 'Read a.txt',
      kind: 'read',
      status: 'in_progress',
      authorization_parameter_hash: null,
    });
    // Declared fields only: rawInput, locations and content do not move the hash.
    expect(call.content_hash).toBe(
      sortedJsonHash({ toolCallId: 'tc-read', title: 'Read a.txt', kind: 'read', status: 'in_progress' }),
    );
    expect(done.content_hash).toBe(sortedJsonHash({ toolCallId: 'tc-read', status: 'completed' }));
    expect(done.action.parameters).toMatchObject({ title: '', kind: null });
    expect(bare.content_hash).toBe(sortedJsonHash({ toolCallId: 'tc-bare', title: 'Think' }));
    expect(plain.content_hash).toBe(sortedJsonHash({ toolCallId: 'tc-plain', status: 'failed' }));
  });

  it('session/request_permission is forwarded, answered by the editor, and its options mapping is logged (not audited)', async () => {
    const options = [
      { optionId: 'yes', name: 'Allow once', kind: 'allow_once' },
      { optionId: 'always', name: 'Always', kind: 'allow_always' },
      { optionId: 'no', name: 'Reject', kind: 'reject_once' },
      { optionId: 'never', name: 'Never', kind: 'reject_always' },
    ];
    const r = await client.prompt(s1, [
      { permission: { toolCall: { toolCallId: 'tc-perm', title: 'Write new.txt' }, options } },
    ]);
    expect(r).toEqual([{ ok: true, result: { outcome: { outcome: 'selected', optionId: 'yes' } } }]);
    expect(
      client.seen
        .filter((s) => s.method === 'session/request_permission')
        .map((s) => s.params.options.map((o: any) => o.optionId)),
    ).toEqual([['yes', 'always', 'no', 'never']]);
    const log = await waitFor(
      () => /never \(reject_always\) maps to deny/.test(client.stderr()) && client.stderr(),
      'the mapping log',
    );
    expect(log).toContain('yes (allow_once) maps to allow');
    expect(log).toContain('always (allow_always) maps to allow');
    expect(log).toContain('no (reject_once) maps to deny');
    // Logged, not audited: no receipt mentions the permission's tool call.
    expect(ledgerReceipts(db).filter((e) => JSON.stringify(e.receipt).includes('tc-perm'))).toEqual([]);
  });

  it('afterwards: the proxy exits 0 when the editor closes, the ledger verifies, and cert generate certifies the session', async () => {
    expect(await client.close()).toBe(0);
    const verify = chio(['ledger', 'verify', '--receipt-db', db, '--trusted-kernel-pubkey', keys.pubFile]);
    expect(verify.status, verify.stdout + verify.stderr).toBe(0);
    for (const session of [s2, s1]) {
      const out = join(dir, `cert-${session}.json`);
      const gen = chio([
        'cert',
        'generate',
        '--session-id',
        session,
        '--receipt-db',
        db,
        '--kernel-seed-file',
        keys.seedFile,
        '--output',
        out,
        '--trusted-kernel-pubkey',
        keys.pubFile,
      ]);
      expect(gen.status, gen.stderr).toBe(0);
      const body = JSON.parse(readFileSync(out, 'utf8')).body;
      expect(body).toMatchObject({
        session_id: session,
        all_signatures_valid: true,
        chain_continuous: true,
        anomalies: [],
      });
      expect(body.receipt_count).toBe(ledgerReceipts(db).filter((e) => e.session_id === session).length);
    }
  });
});

describe('chio acp proxy --enforce-capabilities: kernel-issued tokens, enforced receipts, cancel', () => {
  const dir = tempDir('chio-acp-proxy-caps-');
  const { root } = projectTree(dir);
  const keys = kernelKeyFiles(dir);
  const db = join(dir, 'receipts.sqlite');
  const path = join(root, 'a.txt');
  const subject = signerFromSeed(fromHex('5e'.repeat(32))).publicKeyHex;
  let client: ProxyClient;
  let readToken: any;
  let killToken: any;
  const token = (tool_name: string, kernel: Kernel) =>
    kernel.issueCapability({
      subject,
      scope: { grants: [{ server_id: 'chio-acp-proxy', tool_name, operations: ['invoke'] }] },
    });
  const receiptsOf = (session: string) =>
    ledgerReceipts(db)
      .filter((e) => e.session_id === session)
      .map((e) => e.receipt);
  const toolCall = (toolCallId: string, status = 'in_progress') => ({
    update: { sessionUpdate: 'tool_call', toolCallId, title: `Read ${toolCallId}`, kind: 'read', status },
  });
  beforeAll(async () => {
    const issuer = Kernel.open({ ledgerPath: join(dir, 'issuer.sqlite'), seedFile: keys.seedFile });
    readToken = token('fs/read_text_file', issuer);
    killToken = token('terminal/kill', issuer);
    await issuer.close();
    client = startProxyClient([
      '--receipt-db',
      db,
      '--kernel-seed-file',
      keys.seedFile,
      '--enforce-capabilities',
      '--allow-path',
      root,
      '--allow-command',
      'cargo',
    ]);
  });
  afterAll(async () => void (await client?.close()));

  it('a read without a token is refused and never forwarded; with the token it is, and the next read tool_call is a mediated allow linked to the kernel receipt', async () => {
    const s = await client.newSession();
    const r = await client.prompt(s, [
      { read: { path } },
      { read: { path, capabilityToken: readToken } },
      toolCall('tc-enf'),
      { update: { sessionUpdate: 'tool_call_update', toolCallId: 'tc-enf', status: 'completed' } },
    ]);
    expect(r[0]).toMatchObject({ ok: false, code: -32000 });
    expect((r[0] as { message: string }).message).toContain('no capability token presented');
    expect(r[1]).toEqual({ ok: true, result: { content: 'hello from a' } });
    expect(client.seen.filter((x) => x.method === 'fs/read_text_file' && x.params.sessionId === s)).toHaveLength(1);

    const all = receiptsOf(s);
    const [call, done] = all.filter((rc) => rc.action.parameters.tool_call_id === 'tc-enf');
    expect(call).toMatchObject({
      receipt_kind: 'mediated_decision',
      decision: { verdict: 'allow' },
      trust_level: 'mediated',
      capability_id: readToken.id,
      tool_name: 'fs/read_text_file',
    });
    expect(call.metadata.acp).toMatchObject({
      sessionId: s,
      toolCallId: 'tc-enf',
      capabilityId: readToken.id,
      enforcementMode: 'cryptographically_enforced',
      authorizationToolCallId: 'tc-enf',
      authorizationOperation: 'fs_read',
      authorizationResource: path,
      authorizationParameterHash: sortedJsonHash({ path, sessionId: s }),
    });
    expect(call.action.parameters.authorization_parameter_hash).toBe(sortedJsonHash({ path, sessionId: s }));
    const auth = all.find((rc) => rc.id === call.metadata.acp.authorizationReceiptId);
    expect(auth).toMatchObject({
      decision: { verdict: 'allow' },
      tool_name: 'fs/read_text_file',
      capability_id: readToken.id,
    });
    expect(call.metadata.receipt_context).toMatchObject({
      authorization_receipt_id: auth.id,
      request_id: call.metadata.acp.authorizationRequestId,
    });
    expect(done).toMatchObject({ receipt_kind: 'mediated_decision', capability_id: readToken.id });
    expect(done.metadata.acp.enforcementMode).toBe('cryptographically_enforced');
  });

  it('the token may be JSON text or under chio.capabilityToken; a read token does not cover a write; FsGuard still applies after the kernel allows', async () => {
    const s = await client.newSession();
    const before = client.seen.length;
    const r = await client.prompt(s, [
      { read: { path, capabilityToken: JSON.stringify(readToken) } },
      { read: { path, chio: { capabilityToken: readToken } } },
      { write: { path, content: 'x', capabilityToken: readToken } },
      { read: { path: join(`${root}_evil`, 'secret.txt'), capabilityToken: readToken } },
    ]);
    expect(r.slice(0, 2)).toEqual([
      { ok: true, result: { content: 'hello from a' } },
      { ok: true, result: { content: 'hello from a' } },
    ]);
    expect(r[2]).toMatchObject({
      ok: false,
      code: -32000,
      message: expect.stringContaining(`access denied: capability denied for fs/write_text_file ${path}`),
    });
    expect(r[3]).toEqual(denied(`access denied: fs read denied for path: ${join(`${root}_evil`, 'secret.txt')}`));
    expect(client.seen.slice(before).map((x) => [x.method, x.params.path])).toEqual([
      ['fs/read_text_file', path],
      ['fs/read_text_file', path],
    ]);
    expect(readFileSync(path, 'utf8')).toBe('hello from a');
  });

  it('two pending reads and one read tool_call: ambiguous, nothing binds, the receipt is audit_only', async () => {
    const s = await client.newSession();
    const r = await client.prompt(s, [
      { read: { path, capabilityToken: readToken } },
      { read: { path, capabilityToken: readToken } },
      toolCall('tc-amb'),
    ]);
    expect(r.every((o) => o.ok)).toBe(true);
    const [rc] = receiptsOf(s).filter((x) => x.action.parameters.tool_call_id === 'tc-amb');
    expect(rc).toMatchObject({
      receipt_kind: 'trace_observation',
      trust_level: 'verified',
      capability_id: `acp-session:${s}`,
    });
    expect(rc.metadata.acp).toMatchObject({
      enforcementMode: 'audit_only',
      capabilityId: null,
      authorizationReceiptId: null,
    });
  });

  it('terminal/kill with a token covering terminal/kill is forwarded; with a read token or none it is refused', async () => {
    const s = await client.newSession();
    const before = client.seen.length;
    const r = await client.prompt(s, [
      { kill: { terminalId: 'term-9', toolCallId: 'tc-kill', capabilityToken: killToken } },
      { kill: { terminalId: 'term-9', toolCallId: 'tc-kill-2', capabilityToken: readToken } },
      { release: { terminalId: 'term-9', toolCallId: 'tc-rel' } },
    ]);
    expect(r[0]).toEqual({ ok: true, result: {} });
    expect(r[1]).toMatchObject({
      ok: false,
      code: -32000,
      message: expect.stringContaining('access denied: capability denied for terminal/kill term-9'),
    });
    expect(r[2]).toMatchObject({
      ok: false,
      code: -32000,
      message: expect.stringContaining('no capability token presented'),
    });
    expect(client.seen.slice(before).map((x) => [x.method, x.params.sessionId, x.params.terminalId])).toEqual([
      ['terminal/kill', s, 'term-9'],
    ]);
  });

  it('session/cancel from the editor purges the pending context: the next read tool_call records audit_only', async () => {
    const s = await client.newSession();
    expect((await client.prompt(s, [{ read: { path, capabilityToken: readToken } }]))[0]).toMatchObject({ ok: true });
    await client.conn.agent.notify('session/cancel', { sessionId: s });
    await client.prompt(s, [toolCall('tc-after-cancel')]);
    const [rc] = receiptsOf(s).filter((x) => x.action.parameters.tool_call_id === 'tc-after-cancel');
    expect(rc).toMatchObject({ receipt_kind: 'trace_observation', capability_id: `acp-session:${s}` });
    expect(rc.metadata.acp.enforcementMode).toBe('audit_only');
    expect(client.stderr()).toContain(`session/cancel cleared 1 capability context(s) of ${s}`);
  });

  it("a pending session/request_permission is answered cancelled to the agent after the editor cancels; the session keeps working after the editor's late answer", async () => {
    const s = await client.newSession();
    client.holdPermissions = true;
    const options = [{ optionId: 'ok', name: 'Allow', kind: 'allow_once' }];
    const turn = client.prompt(s, [{ permission: { toolCall: { toolCallId: 'tc-p' }, options } }]);
    await waitFor(
      () => client.seen.some((x) => x.method === 'session/request_permission' && x.params.sessionId === s),
      'the permission request at the editor',
    );
    await client.conn.agent.notify('session/cancel', { sessionId: s });
    expect(await turn).toEqual([{ ok: true, result: { outcome: { outcome: 'cancelled' } } }]);
    client.holdPermissions = false;
    client.releasePermissions();
    // The session keeps working after the editor's late answer.
    expect(await client.prompt(s, [{ permission: { toolCall: { toolCallId: 'tc-p2' }, options } }])).toEqual([
      { ok: true, result: { outcome: { outcome: 'selected', optionId: 'ok' } } },
    ]);
  });

  it('afterwards: the ledger (kernel authorizations, refusals and observations) verifies', async () => {
    expect(await client.close()).toBe(0);
    const verify = chio(['ledger', 'verify', '--receipt-db', db, '--trusted-kernel-pubkey', keys.pubFile]);
    expect(verify.status, verify.stdout + verify.stderr).toBe(0);
  });
});
