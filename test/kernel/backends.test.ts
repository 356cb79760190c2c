// The kernel's contract on both ledgers (an SQLite file through Kernel.open, a PostgreSQL server through
// Kernel.connect): receipts in sessions on one verifiable chain, budgets that hold across processes,
// revocations seen by another kernel, SIGKILLed producers' calls settled by the next kernel, and a call
// whose reservation cannot be written never runs.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { fromHex, signerFromSeed } from '../../src/crypto/index.js';
import { Kernel } from '../../src/kernel/index.js';
import { closeAnyLedger, isPostgresUrl, openAnyLedger, verifyAnyChain } from '../../src/ledger/pg/index.js';
import { verifyReceipt } from '../../src/receipt/index.js';
import { ledgerExec, ledgerRows } from '../helpers/any-ledger.js';
import { chio } from '../helpers/cli.js';
import { freshPgDatabase } from '../helpers/postgres.js';
import { tempDir } from '../helpers/tmp.js';
import { CountingToolServer } from '../helpers/tool-server.js';

const dir = tempDir();
const SEED_HEX = '44'.repeat(32);
const SEED = fromHex(SEED_HEX);
const agent = signerFromSeed(fromHex('55'.repeat(32)));
const KERNEL_WORKER = new URL('../helpers/kernel-worker.mjs', import.meta.url).pathname;
const BLOCKING_WORKER = new URL('../helpers/blocking-kernel-worker.mjs', import.meta.url).pathname;
let n = 0;

const backends: Array<[string, () => Promise<string>]> = [
  ['SQLite', async () => join(dir, `k-${++n}.sqlite`)],
  ['PostgreSQL', async () => (await freshPgDatabase()).url],
];

const kernels: Kernel[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const k of kernels.splice(0)) await k.close().catch(() => {});
});
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

async function kernelAt(location: string, seed = SEED) {
  const kernel = await Kernel.connect({ ledgerPath: location, seed });
  const server = new CountingToolServer();
  kernel.registerToolServer(server);
  kernels.push(kernel);
  return { kernel, server };
}
const call = (capability: unknown, toolName: string, args: unknown, extra: Record<string, unknown> = {}) => ({
  capability,
  caller: agent.publicKeyHex,
  serverId: 'fs',
  toolName,
  arguments: args,
  ...extra,
});

async function verified(location: string) {
  const ledger = await openAnyLedger(location, { readonly: true });
  try {
    return await verifyAnyChain(ledger, { trustedKernelKeys: new Set([signerFromSeed(SEED).publicKeyHex]) });
  } finally {
    await closeAnyLedger(ledger);
  }
}

function run(
  args: string[],
): ChildProcess & { output: Promise<{ code: number | null; stdout: string; stderr: string }> } {
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const output = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
  return Object.assign(child, { output });
}

describe.each(backends)('the kernel on %s', (name, fresh) => {
  it('allows and denies with signed receipts linked in their sessions, on one chain that verifies', async () => {
    const location = await fresh();
    const { kernel, server } = await kernelAt(location);
    expect(kernel.ledgerKind).toBe(name === 'SQLite' ? 'sqlite' : 'postgres');
    const cap = kernel.issueCapability({ subject: agent.publicKeyHex });
    const allowed = await kernel.evaluateToolCall(
      call(cap, 'read_file', { path: '/workspace/a.txt' }, { sessionId: 's1' }),
    );
    const denied = await kernel.evaluateToolCall(call(cap, 'read_file', { path: '/etc/shadow' }, { sessionId: 's1' }));
    const other = await kernel.evaluateToolCall(call(cap, 'hello_tool', { name: 'x' }, { sessionId: 's2' }));
    expect(allowed).toMatchObject({ ok: true, entry: { seq: 1, sessionPrevSeq: null } });
    expect(denied).toMatchObject({
      ok: false,
      verdict: 'deny',
      guard: 'forbidden-path',
      entry: { seq: 2, sessionPrevSeq: 1 },
    });
    expect(other).toMatchObject({ ok: true, entry: { seq: 3, sessionPrevSeq: null } });
    expect(server.calls.map((c) => c.tool)).toEqual(['read_file', 'hello_tool']);
    for (const r of [allowed, denied, other]) expect(verifyReceipt(r.receipt)).toMatchObject({ ok: true });
    await kernel.close();
    expect(await verified(location)).toMatchObject({ ok: true, entries: 3 });
    const rows = await ledgerRows<{ seq: number; session_id: string; verdict: string }>(
      location,
      'SELECT seq, session_id, verdict FROM ledger_entries ORDER BY seq',
    );
    expect(rows).toEqual([
      { seq: 1, session_id: 's1', verdict: 'allow' },
      { seq: 2, session_id: 's1', verdict: 'deny' },
      { seq: 3, session_id: 's2', verdict: 'allow' },
    ]);
    expect(await ledgerRows(location, 'SELECT count(*) AS n FROM pending_calls')).toEqual([{ n: 0 }]);
  });

  it('two processes racing on one grant with max_invocations 7 allow exactly 7 calls between them', async () => {
    const location = await fresh();
    const { kernel } = await kernelAt(location);
    const cap = kernel.issueCapability({
      subject: agent.publicKeyHex,
      scope: { grants: [{ server_id: 'fs', tool_name: 'hello_tool', operations: ['invoke'], max_invocations: 7 }] },
    });
    await kernel.close();
    const capFile = join(dir, `cap-${++n}.json`);
    writeFileSync(capFile, JSON.stringify(cap));
    const race = async () => {
      const r = await run([KERNEL_WORKER, location, SEED_HEX, capFile, agent.publicKeyHex, '10']).output;
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as { allowed: number; denied: number; invoked: number };
    };
    const [a, b] = await Promise.all([race(), race()]);
    expect(a.allowed + b.allowed).toBe(7);
    expect(a.denied + b.denied).toBe(13);
    expect(a.invoked + b.invoked).toBe(7);
    expect(await ledgerRows(location, 'SELECT invocations FROM grant_usage')).toEqual([{ invocations: 7 }]);
    expect(await ledgerRows(location, 'SELECT count(*) AS n FROM pending_calls')).toEqual([{ n: 0 }]);
    expect(await verified(location)).toMatchObject({ ok: true, entries: 20 });
  });

  it('a revocation appended by one kernel is enforced by another kernel on the same ledger that trusts its key', async () => {
    const location = await fresh();
    const revoker = await kernelAt(location);
    const otherSeed = fromHex('77'.repeat(32));
    const other = await Kernel.connect({
      ledgerPath: location,
      seed: otherSeed,
      trustedKernelKeys: [revoker.kernel.publicKeyHex],
    });
    kernels.push(other);
    const server = new CountingToolServer();
    other.registerToolServer(server);
    // A token the other kernel issued, revoked by a receipt the first kernel signed.
    const own = other.issueCapability({ subject: agent.publicKeyHex });
    expect(await other.evaluateToolCall(call(own, 'hello_tool', {}))).toMatchObject({ ok: true });
    await revoker.kernel.revokeCapability(own.id, 'compromised');
    expect(await other.evaluateToolCall(call(own, 'hello_tool', {}))).toMatchObject({ ok: false, guard: 'revocation' });
    expect(await other.previewToolCall(call(own, 'hello_tool', {}))).toMatchObject({ ok: false, guard: 'revocation' });
    expect(server.calls).toHaveLength(1);
    // A revocation signed by a key the kernel does not trust revokes nothing.
    const untrusted = await Kernel.connect({ ledgerPath: location, seed: fromHex('88'.repeat(32)) });
    kernels.push(untrusted);
    const cap2 = other.issueCapability({ subject: agent.publicKeyHex });
    await untrusted.revokeCapability(cap2.id, 'not yours to revoke');
    expect(await other.evaluateToolCall(call(cap2, 'hello_tool', {}))).toMatchObject({ ok: true });
  });

  it('a producer SIGKILLed while its tool runs: the next kernel signs the call an incomplete receipt under its session', async () => {
    const location = await fresh();
    const markers = join(dir, `markers-${++n}`);
    mkdirSync(markers);
    const worker = run([BLOCKING_WORKER, location, SEED_HEX, markers, 'call-1', 'session-a']);
    const deadline = Date.now() + 30_000;
    while (!existsSync(join(markers, 'call-1'))) {
      if (Date.now() > deadline)
        throw new Error(
          `the worker never ran its tool: ${(await Promise.race([worker.output, new Promise((r) => setTimeout(() => r('still running'), 10))])) as string}`,
        );
      await new Promise((r) => setTimeout(r, 20));
    }
    const pid = worker.pid!;
    worker.kill('SIGKILL');
    await worker.output;
    const reserved = await ledgerRows<{ owner: string; session_id: string; tool_name: string }>(
      location,
      'SELECT owner, session_id, tool_name FROM pending_calls',
    );
    expect(reserved).toHaveLength(1);
    expect(reserved[0]).toMatchObject({ session_id: 'session-a', tool_name: 'mark' });
    expect(reserved[0]!.owner.startsWith(`${hostname()}:${pid} `)).toBe(true);
    expect(await ledgerRows(location, 'SELECT count(*) AS n FROM ledger_entries')).toEqual([{ n: 0 }]);
    // chio ledger verify shows the dispatched call without a receipt (in flight until it is 15 minutes old).
    const v = chio(['ledger', 'verify', '--receipt-db', location, '--json']);
    expect(v.status, v.stderr).toBe(0);
    expect(JSON.parse(v.stdout).pending_calls).toMatchObject({
      without_receipt: [],
      in_flight: [{ tool_name: 'mark' }],
    });

    const { kernel } = await kernelAt(location);
    expect(kernel.lastRecovery.error).toBeUndefined();
    expect(kernel.lastRecovery.settled).toHaveLength(1);
    const settled = kernel.lastRecovery.settled[0]!.receipt;
    expect(settled).toMatchObject({
      decision: { verdict: 'incomplete' },
      tool_name: 'mark',
      metadata: { chio_recovery: { cause: 'producer_gone' } },
    });
    await kernel.close();
    expect(await ledgerRows(location, 'SELECT count(*) AS n FROM pending_calls')).toEqual([{ n: 0 }]);
    expect(await ledgerRows(location, 'SELECT session_id, verdict FROM ledger_entries')).toEqual([
      { session_id: 'session-a', verdict: 'incomplete' },
    ]);
    expect(await verified(location)).toMatchObject({ ok: true, entries: 1 });
  });

  it('a ledger that refuses the reservation: the call fails closed, the tool never runs, the chain stays whole', async () => {
    const location = await fresh();
    const { kernel, server } = await kernelAt(location);
    const cap = kernel.issueCapability({ subject: agent.publicKeyHex });
    expect(await kernel.evaluateToolCall(call(cap, 'hello_tool', {}, { sessionId: 's' }))).toMatchObject({ ok: true });
    await ledgerExec(
      location,
      isPostgresUrl(location)
        ? `CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk full (played by the test)'; END $$;
         CREATE TRIGGER refuse BEFORE INSERT ON pending_calls FOR EACH ROW EXECUTE FUNCTION refuse();`
        : `CREATE TRIGGER refuse BEFORE INSERT ON pending_calls BEGIN SELECT RAISE(ABORT, 'disk full (played by the test)'); END;`,
    );
    await expect(kernel.evaluateToolCall(call(cap, 'hello_tool', {}, { sessionId: 's' }))).rejects.toMatchObject({
      code: 'CHIO-LEDGER-APPEND-FAILED',
      message: expect.stringMatching(/so it will not run/),
    });
    expect(server.calls).toHaveLength(1);
    // Denials need no reservation: they are still recorded.
    expect(
      await kernel.evaluateToolCall(call(cap, 'read_file', { path: '/etc/shadow' }, { sessionId: 's' })),
    ).toMatchObject({ ok: false, guard: 'forbidden-path', entry: { seq: 2 } });
    await kernel.close();
    expect(await ledgerRows(location, 'SELECT count(*) AS n FROM pending_calls')).toEqual([{ n: 0 }]);
    expect(await verified(location)).toMatchObject({ ok: true, entries: 2 });
  });
});
