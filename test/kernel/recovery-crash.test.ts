// Producers killed with SIGKILL while their tools run, on either ledger (an SQLite file, a PostgreSQL server): the next
// open of a kernel gives every dispatched call a signed `incomplete` receipt under its session, and never touches a call
// a live producer still has in flight.
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, describe, expect, it } from 'vitest';
import { fromHex, signerFromSeed } from '../../src/crypto/index.js';
import { ledgerRows } from '../helpers/any-ledger.js';
import { chio } from '../helpers/cli.js';
import { freshPgDatabase } from '../helpers/postgres.js';
import { tempDir } from '../helpers/tmp.js';
import { governedMcpTransport } from '../helpers/mcp-serve.js';

const MARKER_SERVER = new URL('../helpers/marker-mcp-server.mjs', import.meta.url).pathname;
const BLOCKING_WORKER = new URL('../helpers/blocking-kernel-worker.mjs', import.meta.url).pathname;
const OPEN_WORKER = new URL('../helpers/kernel-open-worker.mjs', import.meta.url).pathname;
const SEED_HEX = '44'.repeat(32);
const REASON = /^the receipt was not written after dispatch \(/;

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/** Waits (polling) until `done()` holds; a deadline only so a broken build cannot hang the suite. */
async function until(done: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

interface Row {
  seq: number;
  session_id: string | null;
  verdict: string | null;
  producer: string;
  body: string;
}
async function entries(db: string): Promise<Array<Row & { receipt: any }>> {
  return (
    await ledgerRows<Row>(db, 'SELECT seq, session_id, verdict, producer, body FROM ledger_entries ORDER BY seq')
  ).map((r) => ({ ...r, receipt: JSON.parse(r.body) }));
}
async function pending(
  db: string,
): Promise<Array<{ request_id: string; session_id: string | null; owner: string; tool_name: string | null }>> {
  return ledgerRows(db, 'SELECT request_id, session_id, owner, tool_name FROM pending_calls ORDER BY request_id');
}

const backends: Array<[string, (dir: string) => Promise<string>]> = [
  ['SQLite', async (dir) => join(dir, 'receipts.sqlite')],
  ['PostgreSQL', async () => (await freshPgDatabase()).url],
];

function spawnWorker(
  db: string,
  markers: string,
  requestId: string,
): ChildProcess & { output: Promise<{ code: number | null; stdout: string; stderr: string }> } {
  const child = spawn(process.execPath, [BLOCKING_WORKER, db, SEED_HEX, markers, requestId, `session-${requestId}`], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
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

function openElsewhere(db: string): {
  pid: number;
  settled: string[];
  left: Array<{ requestId: string; why: string }>;
  error: string | null;
} {
  const r = spawnSync(process.execPath, [OPEN_WORKER, db, SEED_HEX], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

describe.each(backends)('SIGKILL between dispatch and receipt, on %s', (backend, fresh) => {
  // With --reservation-sync normal the reservations are not fsynced, but a process death loses
  // nothing the OS already has: the same recovery must follow.
  for (const sync of backend === 'SQLite' ? (['full', 'normal'] as const) : (['full'] as const))
    it(`chio mcp serve --reservation-sync ${sync} killed while three tools run: the next open receipts every marker as incomplete under its session, and verify passes with the pinned key`, async () => {
      const dir = tempDir();
      const markers = join(dir, 'markers');
      mkdirSync(markers);
      const db = await fresh(dir);
      const seed = join(dir, 'kernel.seed');
      const pub = join(dir, 'kernel.pub');
      expect(chio(['keys', 'generate', '--out', seed, '--pub-out', pub]).status).toBe(0);
      const serve = () =>
        governedMcpTransport({
          db,
          seedFile: seed,
          serverId: 'marker',
          flags: ['--reservation-sync', sync],
          upstream: [process.execPath, MARKER_SERVER, markers],
        });

      const transport = serve();
      const client = new Client({ name: 'chio-test', version: '1.0.0' }, { capabilities: {} });
      await client.connect(transport);
      const echo = await client.callTool({ name: 'echo', arguments: { text: 'before' } });
      expect((echo._meta as Record<string, any>)['chio/receipt']).toMatchObject({ decision: 'allow', seq: 1 });
      const names = ['m-1', 'm-2', 'm-3'];
      const marks = names.map((name) =>
        client.callTool({ name: 'mark', arguments: { name } }).catch((e: unknown) => e),
      );
      await until(() => names.every((n) => existsSync(join(markers, n))), 'every marker');
      const pid = transport.pid!;
      process.kill(pid, 'SIGKILL');
      await Promise.all(marks); // the client sees the connection close
      await until(() => gone(pid), 'the killed edge to be reaped');

      // The failure really happened: three dispatched calls, no receipt for any of them.
      const reserved = await pending(db);
      expect(reserved.map((r) => r.tool_name)).toEqual(['mark', 'mark', 'mark']);
      expect(reserved.every((r) => r.owner.startsWith(`${hostname()}:${pid} start=`))).toBe(true);
      expect(await entries(db)).toHaveLength(1);
      const session = (await entries(db))[0]!.session_id;
      expect(reserved.every((r) => r.session_id === session)).toBe(true);

      // The next open of a kernel on the ledger: the same product, started again.
      const again = serve();
      const client2 = new Client({ name: 'chio-test', version: '1.0.0' }, { capabilities: {} });
      await client2.connect(again);
      expect((await client2.listTools()).tools.map((t) => t.name)).toContain('mark');
      await client2.close();

      expect(await pending(db)).toEqual([]);
      const all = await entries(db);
      const recovered = all.filter((e) => e.verdict === 'incomplete');
      expect(recovered).toHaveLength(3);
      expect(readdirSync(markers).sort()).toEqual(names);
      for (const name of names) {
        const mine = recovered.filter((e) => e.receipt.action.parameters.name === name);
        expect(mine, name).toHaveLength(1);
        const e = mine[0]!;
        const row = reserved.find((r) => e.receipt.metadata.chio_receipt_signing_nonce === r.request_id);
        expect(row, 'the nonce is the original request id').toBeDefined();
        expect(e.session_id).toBe(session);
        expect(e.receipt).toMatchObject({
          tool_server: 'marker',
          tool_name: 'mark',
          receipt_kind: 'mediated_decision',
          redaction_mode: 'none',
          policy_hash: all[0]!.receipt.policy_hash,
          capability_id: all[0]!.receipt.capability_id,
          decision: { verdict: 'incomplete' },
          metadata: {
            chio_grant_index: 0,
            chio_recovery: { cause: 'producer_gone', reserved_by: row!.owner, facts: 'stored' },
          },
        });
        expect(e.receipt.decision.reason).toMatch(REASON);
        expect(e.receipt.decision.reason).toContain(`process ${pid} is not running`);
        expect(e.receipt.metadata.chio_recovery.settled_by).toMatch(new RegExp(`^${hostname()}:\\d+ start=`));
        expect(e.receipt.metadata.chio_recovery.settled_by).not.toBe(row!.owner);
      }
      const r = chio(['ledger', 'verify', '--receipt-db', db, '--trusted-kernel-pubkey', pub]);
      expect(r.status, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^OK: 4 entries verified, 1 session/);
    });

  it("a live producer's call in flight is left alone by another process's open, while a killed one's is settled; the live call then ends with its own allow receipt", async () => {
    const dir = tempDir();
    const markers = join(dir, 'markers');
    mkdirSync(markers);
    const db = await fresh(dir);
    const live = spawnWorker(db, markers, 'live-1');
    await until(() => existsSync(join(markers, 'live-1')), "the live producer's tool to run");
    const killed = spawnWorker(db, markers, 'dead-1');
    await until(() => existsSync(join(markers, 'dead-1')), "the doomed producer's tool to run");
    killed.kill('SIGKILL');
    await killed.output;
    // Reservations are keyed by the kernel's own call id; the session names the worker.
    const rows = await pending(db);
    const sessionOf = new Map(rows.map((r) => [r.request_id, r.session_id]));
    expect(rows.map((r) => r.session_id).sort()).toEqual(['session-dead-1', 'session-live-1']);

    const opened = openElsewhere(db);
    expect(opened).toMatchObject({ left: [{ why: `process ${live.pid} is running` }], error: null });
    expect(opened.settled.map((id) => sessionOf.get(id))).toEqual(['session-dead-1']);
    expect(opened.left.map((l) => sessionOf.get(l.requestId))).toEqual(['session-live-1']);
    expect((await pending(db)).map((r) => r.session_id)).toEqual(['session-live-1']);

    live.stdin!.write('go\n');
    const out = await live.output;
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ ok: true, verdict: 'allow' });
    expect(await pending(db)).toEqual([]);
    const all = await entries(db);
    expect(
      all.map((e) => [sessionOf.get(e.receipt.metadata.chio_receipt_signing_nonce), e.verdict, e.session_id]),
    ).toEqual([
      ['session-dead-1', 'incomplete', 'session-dead-1'],
      ['session-live-1', 'allow', 'session-live-1'],
    ]);
    expect(all[0]!.receipt.metadata.chio_recovery).toMatchObject({
      cause: 'producer_gone',
      settled_by: expect.stringMatching(new RegExp(`^${hostname()}:${opened.pid} `)),
    });
    // Both receipts name the producer's own id for the call, the recovered one from the stored facts.
    expect(all.map((e) => e.receipt.metadata.chio_request_id)).toEqual(['dead-1', 'live-1']);
    const verify = chio(['ledger', 'verify', '--receipt-db', db]);
    expect(verify.status, verify.stdout + verify.stderr).toBe(0);
    expect(verify.stdout).toMatch(/^OK: 2 entries verified, 2 sessions/);
  });

  it("two processes opening at once settle each dead producer's call exactly once", async () => {
    const dir = tempDir();
    const markers = join(dir, 'markers');
    mkdirSync(markers);
    const db = await fresh(dir);
    const ids = ['k-1', 'k-2', 'k-3', 'k-4'];
    // All four run at once (each worker's own open would settle an earlier dead one's call), then die together.
    const workers = ids.map((id) => spawnWorker(db, markers, id));
    await until(() => ids.every((id) => existsSync(join(markers, id))), 'every tool to run');
    for (const w of workers) w.kill('SIGKILL');
    await Promise.all(workers.map((w) => w.output));
    const rows = await pending(db);
    expect(rows.map((r) => r.session_id).sort()).toEqual(ids.map((id) => `session-${id}`));
    const callIds = rows.map((r) => r.request_id).sort();
    const run = () =>
      new Promise<{ settled: string[] }>((resolve, reject) => {
        const c = spawn(process.execPath, [OPEN_WORKER, db, SEED_HEX], { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        c.stdout.on('data', (d) => (out += d));
        c.stderr.on('data', (d) => (err += d));
        c.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(err))));
      });
    const [a, b] = await Promise.all([run(), run()]);
    expect([...a.settled, ...b.settled].sort()).toEqual(callIds);
    expect(await pending(db)).toEqual([]);
    const all = await entries(db);
    expect(all.map((e) => e.receipt.metadata.chio_receipt_signing_nonce).sort()).toEqual(callIds);
    expect(all.map((e) => e.session_id).sort()).toEqual(ids.map((id) => `session-${id}`));
    expect(all.every((e) => e.verdict === 'incomplete')).toBe(true);
    const pub = join(dir, 'kernel.pub');
    (await import('node:fs')).writeFileSync(pub, `${signerFromSeed(fromHex(SEED_HEX)).publicKeyHex}\n`);
    const r = chio(['ledger', 'verify', '--receipt-db', db, '--trusted-kernel-pubkey', pub]);
    expect(r.status, r.stdout + r.stderr).toBe(0);
  });
});
