// The kernel end to end on a real ledger: allow and deny receipts for every check, budgets across restarts, revocation, streaming, fail-closed appends.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { delegateCapability } from '../../src/capability/index.js';
import type { CapabilityToken } from '../../src/capability/index.js';
import { fromHex, generateSeed, hashCanonical, sha256Hex, signerFromSeed, toHex } from '../../src/crypto/index.js';
import { Kernel, normalizePolicy, RedactionKey } from '../../src/kernel/index.js';
import { openLedger, verifyChain } from '../../src/ledger/index.js';
import { saltedParameterHash, saltInputOf, verifyReceipt } from '../../src/receipt/index.js';
import { chio } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { CountingToolServer } from '../helpers/tool-server.js';

const dir = tempDir();
const SEED = fromHex('44'.repeat(32));
const agent = signerFromSeed(fromHex('55'.repeat(32)));
const helper = signerFromSeed(fromHex('66'.repeat(32)));
let n = 0;
let open: Kernel[] = [];
afterEach(async () => {
  for (const k of open) await k.close().catch(() => {});
  open = [];
});

function kernelAt(
  path: string,
  options: { clock?: () => number; policy?: ReturnType<typeof normalizePolicy>; redactionKey?: Uint8Array } = {},
) {
  const kernel = Kernel.open({ ledgerPath: path, seed: SEED, ...options });
  const server = new CountingToolServer();
  kernel.registerToolServer(server);
  open.push(kernel);
  return { kernel, server };
}
const fresh = () => join(dir, `k-${++n}.sqlite`);
const call = (capability: unknown, toolName: string, args: unknown, extra: Record<string, unknown> = {}) => ({
  capability,
  caller: agent.publicKeyHex,
  serverId: 'fs',
  toolName,
  arguments: args,
  ...extra,
});

describe('allowed calls', () => {
  it('dispatches, returns the output, and appends a verifiable allow receipt with guard evidence', async () => {
    const { kernel, server } = kernelAt(fresh());
    const cap = kernel.issueCapability({ subject: agent.publicKeyHex });
    const r = await kernel.evaluateToolCall(
      call(cap, 'read_file', { path: '/workspace/a.txt' }, { requestId: 'req-1', sessionId: 's1' }),
    );
    expect(r).toMatchObject({
      ok: true,
      output: { text: 'contents of /workspace/a.txt' },
      entry: { seq: 1, sessionId: 's1' },
    });
    expect(server.calls).toHaveLength(1);
    expect(r.receipt).toMatchObject({
      capability_id: cap.id,
      tool_server: 'fs',
      tool_name: 'read_file',
      decision: { verdict: 'allow' },
      kernel_key: kernel.publicKeyHex,
      content_hash: hashCanonical({ text: 'contents of /workspace/a.txt' }),
      policy_hash: kernel.policy.policyHash,
      evidence: [{ guard_name: 'forbidden-path', verdict: true }],
      metadata: {
        chio_grant_index: 0,
        chio_request_id: 'req-1',
        chio_receipt_signing_nonce: expect.stringMatching(
          /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
        ),
      },
    });
    expect(verifyReceipt(JSON.parse(JSON.stringify(r.receipt))).ok).toBe(true);
  });

  it("the client's request id is recorded, never trusted as unique: the same id three times is three calls, three receipts, nothing left reserved", async () => {
    const path = fresh();
    const { kernel, server } = kernelAt(path);
    const cap = kernel.issueCapability({
      subject: agent.publicKeyHex,
      scope: { grants: [{ server_id: 'fs', tool_name: 'read_file', operations: ['invoke'], max_invocations: 5 }] },
    });
    const results = [];
    for (let i = 0; i < 3; i++)
      results.push(
        await kernel.evaluateToolCall(
          call(cap, 'read_file', { path: `/workspace/${i}` }, { requestId: 'same', sessionId: 's1' }),
        ),
      );
    // And three at once, racing for the same id.
    results.push(
      ...(await Promise.all(
        [3, 4, 5].map((i) =>
          kernel.evaluateToolCall(
            call(cap, 'read_file', { path: `/workspace/${i}` }, { requestId: 'same', sessionId: 's1' }),
          ),
        ),
      )),
    );
    expect(results.map((r) => r.receipt.decision?.verdict)).toEqual([
      'allow',
      'allow',
      'allow',
      'allow',
      'allow',
      'deny',
    ]);
    expect(server.calls).toHaveLength(5);
    const nonces = new Set(
      results.map((r) => (r.receipt.metadata as Record<string, unknown>).chio_receipt_signing_nonce),
    );
    expect(nonces.size).toBe(6);
    expect(results.every((r) => (r.receipt.metadata as Record<string, unknown>).chio_request_id === 'same')).toBe(true);
    const ledger = openLedger(path, { readonly: true });
    try {
      expect(ledger.db.prepare('SELECT count(*) AS n FROM pending_calls').get()).toEqual({ n: 0 });
      expect(verifyChain(ledger)).toMatchObject({ ok: true, entries: 6 });
    } finally {
      ledger.close();
    }
  });

  it('a call whose abort signal is already set is never dispatched: a signed cancelled receipt, no budget used, nothing left reserved', async () => {
    const path = fresh();
    const { kernel, server } = kernelAt(path);
    const cap = kernel.issueCapability({
      subject: agent.publicKeyHex,
      scope: { grants: [{ server_id: 'fs', tool_name: 'read_file', operations: ['invoke'], max_invocations: 1 }] },
    });
    const aborted = new AbortController();
    aborted.abort('the client went away');
    const r = await kernel.evaluateToolCall(
      call(cap, 'read_file', { path: '/workspace/a' }, { signal: aborted.signal }),
    );
    expect(r).toMatchObject({
      ok: false,
      receipt: { decision: { verdict: 'cancelled', reason: 'cancelled by the caller before dispatch' } },
    });
    expect(server.calls).toHaveLength(0);
    expect(verifyReceipt(JSON.parse(JSON.stringify(r.receipt))).ok).toBe(true);
    // The one invocation the grant allows is still there.
    expect(await kernel.evaluateToolCall(call(cap, 'read_file', { path: '/workspace/a' }))).toMatchObject({ ok: true });
    expect(server.calls).toHaveLength(1);
    const ledger = openLedger(path, { readonly: true });
    try {
      expect(ledger.db.prepare('SELECT count(*) AS n FROM pending_calls').get()).toEqual({ n: 0 });
      expect(verifyChain(ledger)).toMatchObject({ ok: true, entries: 2 });
    } finally {
      ledger.close();
    }
  });

  it('a streaming tool gets a receipt whose content_hash covers every chunk', async () => {
    const { kernel } = kernelAt(fresh());
    const cap = kernel.issueCapability({ subject: agent.publicKeyHex });
    const r = await kernel.evaluateToolCall(call(cap, 'count_tool', {}, { stream: true }));
    expect(r).toMatchObject({ ok: true, output: [{ n: 1 }, { n: 2 }, { n: 3 }] });
    const hashes = [1, 2, 3].map((i) => hashCanonical({ n: i }));
    expect(r.receipt.content_hash).toBe(sha256Hex(hashes.join('')));
    expect(r.receipt.metadata).toMatchObject({ stream: { chunks_received: 3, chunk_hashes: hashes } });
  });

  it('a failing tool leaves an incomplete receipt', async () => {
    const { kernel } = kernelAt(fresh());
    const r = await kernel.evaluateToolCall(
      call(kernel.issueCapability({ subject: agent.publicKeyHex }), 'fail_tool', {}),
    );
    expect(r).toMatchObject({
      ok: false,
      verdict: 'incomplete',
      reason: 'tool error: disk on fire',
      receipt: { decision: { verdict: 'incomplete' } },
    });
  });

  it('redaction stores the redacted parameters while parameter_hash stays over the original, salted by the redaction key', async () => {
    const policy = normalizePolicy({ redaction: { mode: 'redact_keys', keys: ['name'] } });
    const redactionKey = fromHex('77'.repeat(32));
    const { kernel } = kernelAt(fresh(), { policy, redactionKey });
    const r = await kernel.evaluateToolCall(
      call(kernel.issueCapability({ subject: agent.publicKeyHex }), 'hello_tool', { name: 'Ada' }),
    );
    const salt = RedactionKey.fromBytes(redactionKey).salt(saltInputOf(r.receipt)!);
    expect(r.receipt).toMatchObject({
      redaction_mode: 'redacted',
      action: { parameters: { name: '[REDACTED]' }, parameter_hash: saltedParameterHash(salt, { name: 'Ada' }) },
    });
    expect(r.receipt.action.parameter_hash).not.toBe(hashCanonical({ name: 'Ada' }));
  });
});

describe('denied calls are signed receipts naming the failed check, and the tool never runs', () => {
  const NOW = 1_800_000_000;
  const clock = () => NOW;
  const cases: Array<[string, (k: Kernel, cap: CapabilityToken) => Record<string, unknown>, string, RegExp]> = [
    [
      'forged signature',
      (_k, cap) => call({ ...cap, signature: toHex(agent.sign('x')) }, 'read_file', { path: '/w/a' }),
      'capability',
      /capability signature/,
    ],
    [
      'expired',
      (k) => call(k.issueCapability({ subject: agent.publicKeyHex, ttlSeconds: 1 }), 'read_file', { path: '/w/a' }),
      'capability',
      /capability expired/,
    ],
    [
      'not yet valid',
      (k) => call(k.issueCapability({ subject: agent.publicKeyHex }), 'read_file', { path: '/w/a' }),
      'capability',
      /capability not_yet_valid/,
    ],
    [
      'wrong subject',
      (_k, cap) => ({ ...call(cap, 'read_file', { path: '/w/a' }), caller: helper.publicKeyHex }),
      'capability',
      /capability subject/,
    ],
    [
      'tool out of scope',
      (k) =>
        call(
          k.issueCapability({
            subject: agent.publicKeyHex,
            scope: { grants: [{ server_id: 'fs', tool_name: 'hello_tool', operations: ['invoke'] }] },
          }),
          'read_file',
          { path: '/w/a' },
        ),
      'capability',
      /capability scope/,
    ],
    [
      'server out of scope',
      (k) =>
        call(
          k.issueCapability({
            subject: agent.publicKeyHex,
            scope: { grants: [{ server_id: 'web', tool_name: '*', operations: ['invoke'] }] },
          }),
          'read_file',
          { path: '/w/a' },
        ),
      'capability',
      /capability scope/,
    ],
    [
      'constraint violated',
      (k) =>
        call(
          k.issueCapability({
            subject: agent.publicKeyHex,
            scope: {
              grants: [
                {
                  server_id: 'fs',
                  tool_name: '*',
                  operations: ['invoke'],
                  constraints: [{ type: 'path_prefix', value: '/workspace' }],
                },
              ],
            },
          }),
          'read_file',
          { path: '/etc/hosts' },
        ),
      'capability',
      /capability constraint/,
    ],
    [
      'guard: forbidden path',
      (_k, cap) => call(cap, 'read_file', { path: '/srv/app/.env' }),
      'forbidden-path',
      /\*\*\/\.env/,
    ],
    ['unknown tool', (_k, cap) => call(cap, 'no_such_tool', {}), 'kernel', /unknown tool fs\/no_such_tool/],
  ];
  for (const [name, make, guard, reason] of cases) {
    it(name, async () => {
      const { kernel, server } = kernelAt(fresh(), { clock });
      const cap = kernel.issueCapability({ subject: agent.publicKeyHex });
      const request = make(kernel, cap);
      const skew = name === 'expired' ? 10 : name === 'not yet valid' ? -10 : 0; // the call is judged at another time than the issue
      const later =
        skew !== 0
          ? Kernel.open({ ledgerPath: join(dir, `exp-${n}.sqlite`), seed: SEED, clock: () => NOW + skew })
          : kernel;
      if (later !== kernel) {
        later.registerToolServer(server);
        open.push(later);
      }
      const r = await later.evaluateToolCall(request as never);
      expect(r).toMatchObject({ ok: false, verdict: 'deny', guard, receipt: { decision: { verdict: 'deny', guard } } });
      expect((r as { reason: string }).reason).toMatch(reason);
      expect(r.receipt.content_hash).toBe(sha256Hex('null'));
      expect(server.calls).toHaveLength(0);
      expect(verifyReceipt(JSON.parse(JSON.stringify(r.receipt))).ok).toBe(true);
    });
  }

  it('a delegation that widens scope is denied by the capability check', async () => {
    const { kernel, server } = kernelAt(fresh());
    const root = kernel.issueCapability({
      subject: agent.publicKeyHex,
      scope: { grants: [{ server_id: 'fs', tool_name: 'hello_tool', operations: ['invoke'] }] },
    });
    const { delegation_chain: _d, ...alone } = root;
    const body = {
      schema: 'chio.capability.v1',
      issuer: agent.publicKeyHex,
      subject: helper.publicKeyHex,
      scope: { grants: [{ server_id: 'fs', tool_name: '*', operations: ['invoke'] }] },
      issued_at: root.issued_at,
      expires_at: root.expires_at,
      parent_id: root.id,
    };
    const { canonicalJson } = await import('../../src/crypto/index.js');
    const { delegatedCapabilityId } = await import('../../src/capability/index.js');
    const signed = { id: delegatedCapabilityId(body), ...body };
    const widened = { ...signed, signature: toHex(agent.sign(canonicalJson(signed))), delegation_chain: [alone] };
    const r = await kernel.evaluateToolCall({
      ...call(widened, 'read_file', { path: '/w/a' }),
      caller: helper.publicKeyHex,
    });
    expect(r).toMatchObject({
      ok: false,
      guard: 'capability',
      reason: expect.stringMatching(/capability delegation: .*widens/),
    });
    expect(server.calls).toHaveLength(0);
  });
});

describe('revocation', () => {
  it('a revoked token and every token delegated from it are denied', async () => {
    const path = fresh();
    const { kernel, server } = kernelAt(path);
    const root = kernel.issueCapability({ subject: agent.publicKeyHex });
    const child = delegateCapability(root, agent, {
      delegatee: helper.publicKeyHex,
      scope: { grants: [{ server_id: 'fs', tool_name: 'hello_tool', operations: ['invoke'] }] },
    });
    expect(
      await kernel.evaluateToolCall({ ...call(child, 'hello_tool', {}), caller: helper.publicKeyHex }),
    ).toMatchObject({ ok: true });
    const { entry } = await kernel.revokeCapability(root.id, 'agent compromised');
    expect(entry.seq).toBe(2);
    expect(await kernel.evaluateToolCall(call(root, 'hello_tool', {}))).toMatchObject({
      ok: false,
      guard: 'revocation',
      reason: 'capability is revoked',
    });
    expect(
      await kernel.evaluateToolCall({ ...call(child, 'hello_tool', {}), caller: helper.publicKeyHex }),
    ).toMatchObject({ ok: false, guard: 'revocation', reason: `capability ancestor ${root.id} is revoked` });
    expect(server.calls).toHaveLength(1);
    const ledger = openLedger(path, { readonly: true });
    expect(ledger.db.prepare('SELECT revoked_capability_id, reason FROM revocations').all()).toEqual([
      { revoked_capability_id: root.id, reason: 'agent compromised' },
    ]);
    expect(verifyChain(ledger)).toMatchObject({ ok: true, entries: 4 });
    ledger.close();
  });
});

describe('budgets', () => {
  it('max_invocations is exhausted, the process restarts, and the next call is still denied', async () => {
    const path = fresh();
    const first = kernelAt(path);
    const cap = first.kernel.issueCapability({
      subject: agent.publicKeyHex,
      scope: { grants: [{ server_id: 'fs', tool_name: 'hello_tool', operations: ['invoke'], max_invocations: 2 }] },
    });
    expect(await first.kernel.evaluateToolCall(call(cap, 'hello_tool', {}))).toMatchObject({ ok: true });
    expect(await first.kernel.evaluateToolCall(call(cap, 'hello_tool', {}))).toMatchObject({ ok: true });
    expect(await first.kernel.evaluateToolCall(call(cap, 'hello_tool', {}))).toMatchObject({
      ok: false,
      guard: 'budget',
      reason: 'budget exhausted: grant 0 has used 2 of 2 invocations',
    });
    await first.kernel.close();
    open = [];
    // A new process (its own child) opens the same ledger with the same key and tries again.
    const script = `
      import { Kernel } from '${join(process.cwd(), 'dist/src/kernel/index.js')}';
      const k = Kernel.open({ ledgerPath: ${JSON.stringify(path)}, seed: Uint8Array.from(Buffer.from('${'44'.repeat(32)}', 'hex')) });
      k.registerToolServer({ manifest: ${JSON.stringify(new CountingToolServer().manifest)}, async invoke() { process.stdout.write('INVOKED\\n'); return {}; } });
      const r = await k.evaluateToolCall({ capability: ${JSON.stringify(cap)}, caller: '${agent.publicKeyHex}', serverId: 'fs', toolName: 'hello_tool', arguments: {} });
      process.stdout.write(JSON.stringify({ ok: r.ok, guard: r.guard, reason: r.reason }) + '\\n');
      await k.close();`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(child.stderr).toBe('');
    expect(child.stdout).not.toContain('INVOKED');
    expect(JSON.parse(child.stdout)).toEqual({
      ok: false,
      guard: 'budget',
      reason: 'budget exhausted: grant 0 has used 2 of 2 invocations',
    });
  });
});

describe('fail closed', () => {
  it('with the ledger files made read-only (immutable), the tool is never invoked and the caller gets an error', async () => {
    const path = fresh();
    const { kernel, server } = kernelAt(path);
    const cap = kernel.issueCapability({ subject: agent.publicKeyHex });
    await kernel.evaluateToolCall(call(cap, 'hello_tool', {}));
    // root ignores mode bits; the immutable attribute stops even root (ext4 chattr +i). The -shm
    // file stays writable: SQLite maps it into memory, and it holds no ledger data.
    const files = [path, `${path}-wal`];
    expect(spawnSync('chattr', ['+i', ...files]).status).toBe(0);
    try {
      await expect(kernel.evaluateToolCall(call(cap, 'hello_tool', {}))).rejects.toMatchObject({
        code: 'CHIO-LEDGER-APPEND-FAILED',
      });
      expect(server.calls).toHaveLength(1);
    } finally {
      spawnSync('chattr', ['-i', ...files]);
    }
  });

  it('every receipt the kernel wrote verifies with chio ledger verify, pinned to the kernel key', async () => {
    const path = fresh();
    const { kernel } = kernelAt(path);
    const cap = kernel.issueCapability({ subject: agent.publicKeyHex });
    await Promise.all([
      kernel.evaluateToolCall(call(cap, 'hello_tool', { name: 'a' }, { sessionId: 'x' })),
      kernel.evaluateToolCall(call(cap, 'read_file', { path: '/etc/shadow' }, { sessionId: 'y' })),
      kernel.evaluateToolCall(call(cap, 'fail_tool', {}, { sessionId: 'x' })),
      kernel.evaluateToolCall(call({ junk: true }, 'hello_tool', {}, { sessionId: 'y' })),
    ]);
    await kernel.revokeCapability(cap.id);
    await kernel.close();
    open = [];
    const pub = join(dir, `kernel-${n}.pub`);
    (await import('node:fs')).writeFileSync(pub, `${signerFromSeed(SEED).publicKeyHex}\n`);
    const r = chio(['ledger', 'verify', '--receipt-db', path, '--trusted-kernel-pubkey', pub]);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^OK: 5 entries verified, 2 sessions/);
    void generateSeed;
  });
});

describe('check order: capability → budget → revocation → guards', () => {
  it('an exhausted, revoked capability asking for a forbidden path is denied for its budget first, then its revocation', async () => {
    const { kernel, server } = kernelAt(fresh());
    const cap = kernel.issueCapability({
      subject: agent.publicKeyHex,
      scope: { grants: [{ server_id: 'fs', tool_name: '*', operations: ['invoke'], max_invocations: 1 }] },
    });
    expect(await kernel.evaluateToolCall(call(cap, 'hello_tool', {}))).toMatchObject({ ok: true });
    await kernel.revokeCapability(cap.id);
    expect(await kernel.evaluateToolCall(call(cap, 'read_file', { path: '/etc/shadow' }))).toMatchObject({
      ok: false,
      guard: 'budget',
    });
    const fresh2 = kernel.issueCapability({ subject: agent.publicKeyHex });
    await kernel.revokeCapability(fresh2.id);
    expect(await kernel.evaluateToolCall(call(fresh2, 'read_file', { path: '/etc/shadow' }))).toMatchObject({
      ok: false,
      guard: 'revocation',
    });
    expect(server.calls).toHaveLength(1);
  });
});
