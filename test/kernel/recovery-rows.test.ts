// Recovery row by row, on real ledger files: which reservations a kernel's open may settle (owner judgement, including
// hostile owners and facts), what an old-format row's receipt honestly says, and what a reservation stores.
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { canonicalJson, fromHex, hashCanonical, NULL_CONTENT_HASH, signerFromSeed } from '../../src/crypto/index.js';
import { Kernel, normalizePolicy, RedactionKey } from '../../src/kernel/index.js';
import type { ToolServerConnection } from '../../src/kernel/index.js';
import { currentOwner, formatOwner } from '../../src/kernel/owner.js';
import {
  CHIO_APPLICATION_ID,
  invocationsUsed,
  LEDGER_SCHEMA_VERSION,
  openLedger,
  verifyChain,
} from '../../src/ledger/index.js';
import { saltedParameterHash, verifyReceipt } from '../../src/receipt/index.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir();
const SEED = fromHex('44'.repeat(32));
const agent = signerFromSeed(fromHex('55'.repeat(32)));
const self = currentOwner();
let n = 0;
const fresh = () => join(dir, `r-${++n}.sqlite`);
const kernels: Kernel[] = [];
afterEach(async () => {
  for (const k of kernels.splice(0)) await k.close().catch(() => {});
});
const sleeper: ChildProcess = spawn('sleep', ['600'], { stdio: 'ignore' });
afterAll(() => void sleeper.kill('SIGKILL'));

const REDACTION_KEY = fromHex('66'.repeat(32));
function open(path: string, policy?: ReturnType<typeof normalizePolicy>): Kernel {
  const k = Kernel.open({
    ledgerPath: path,
    seed: SEED,
    redactionKey: REDACTION_KEY,
    ...(policy === undefined ? {} : { policy }),
  });
  kernels.push(k);
  return k;
}

/** A pid that was just used and is gone (its process exited and was reaped). */
function deadPid(): number {
  const r = spawnSync('true');
  return r.pid!;
}

/** Field 22 of /proc/<pid>/stat, parsed independently of the code under test. */
function startTime(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]!;
}

/** A ledger as chio wrote it before schema 5 (migrations 0000–0003), with a crashed producer's reservation. */
function schema4Ledger(path: string, rows: Array<[string, string, number, number, string]>): void {
  const folder = new URL('../../migrations/', import.meta.url).pathname;
  const journal = JSON.parse(readFileSync(join(folder, 'meta', '_journal.json'), 'utf8')) as {
    entries: Array<{ tag: string }>;
  };
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  for (const e of journal.entries.slice(0, 4)) {
    for (const statement of readFileSync(join(folder, `${e.tag}.sql`), 'utf8').split('--> statement-breakpoint'))
      if (statement.trim() !== '') db.exec(statement);
  }
  db.pragma(`application_id = ${CHIO_APPLICATION_ID}`);
  db.pragma('user_version = 4');
  const insert = db.prepare(
    'INSERT INTO pending_calls (request_id, capability_id, grant_index, reserved_at, owner) VALUES (?, ?, ?, ?, ?)',
  );
  for (const r of rows) insert.run(...r);
  db.close();
}

function insertRow(
  path: string,
  row: { id: string; owner: string; capability?: string; facts?: string | null; session?: string | null },
): void {
  const l = openLedger(path);
  l.db
    .prepare(
      'INSERT INTO pending_calls (request_id, capability_id, grant_index, reserved_at, owner, session_id, tool_server, tool_name, facts) VALUES (?, ?, 0, 1800000000, ?, ?, ?, ?, ?)',
    )
    .run(row.id, row.capability ?? 'cap-x', row.owner, row.session ?? null, 'fs', 'read_file', row.facts ?? null);
  l.close();
}

function entryFor(path: string, requestId: string): { session_id: string | null; receipt: any } | undefined {
  const l = openLedger(path, { readonly: true });
  const rows = l.db.prepare('SELECT session_id, body FROM ledger_entries').all() as Array<{
    session_id: string | null;
    body: string;
  }>;
  l.close();
  const e = rows
    .map((r) => ({ session_id: r.session_id, receipt: JSON.parse(r.body) }))
    .find((r) => r.receipt.metadata?.chio_receipt_signing_nonce === requestId);
  return e;
}

/** The kernel's own call ids (the reservation key and signing nonce) are random UUIDs. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('an old-format row (written before schema 5: no stored facts)', () => {
  it('is settled honestly: capability, grant and time as recorded; tool, parameters, policy, evidence and session stated unknown, nothing invented', () => {
    const path = fresh();
    const pid = deadPid();
    const owner = `${hostname()}:${pid}`;
    schema4Ledger(path, [['old-1', 'cap-old', 0, 1_700_000_000, owner]]);
    const before = new Database(path, { readonly: true });
    expect(before.prepare('SELECT count(*) AS n FROM pending_calls').get()).toEqual({ n: 1 });
    before.close();

    const kernel = open(path);
    expect(kernel.lastRecovery.settled.map((s) => s.requestId)).toEqual(['old-1']);
    const e = entryFor(path, 'old-1')!;
    expect(e.session_id).toBeNull();
    expect(e.receipt).toMatchObject({
      timestamp: 1_700_000_000,
      capability_id: 'cap-old',
      tool_server: '(unknown)',
      tool_name: '(unknown)',
      action: { parameters: null, parameter_hash: '0'.repeat(64) },
      redaction_mode: 'summary',
      policy_hash: '',
      content_hash: NULL_CONTENT_HASH,
      receipt_kind: 'mediated_decision',
      trust_level: 'mediated',
      kernel_key: kernel.publicKeyHex,
      decision: {
        verdict: 'incomplete',
        reason: `the receipt was not written after dispatch (its producer is gone: process ${pid} is not running); the tool may have run; its outcome is unknown`,
      },
      metadata: {
        chio_grant_index: 0,
        chio_receipt_signing_nonce: 'old-1',
        chio_recovery: {
          cause: 'producer_gone',
          facts: 'unknown',
          reserved_by: owner,
          reserved_at: 1_700_000_000,
          settled_by: formatOwner(self),
          unknown: [
            'tool_server',
            'tool_name',
            'parameters',
            'parameter_hash',
            'policy_hash',
            'evidence',
            'session_id',
          ],
        },
      },
    });
    expect(e.receipt.evidence).toBeUndefined();
    expect(verifyReceipt(e.receipt).ok).toBe(true);
    const l = openLedger(path, { readonly: true });
    expect(l.db.pragma('user_version', { simple: true })).toBe(LEDGER_SCHEMA_VERSION);
    expect(l.db.prepare('SELECT count(*) AS n FROM pending_calls').get()).toEqual({ n: 0 });
    expect(verifyChain(l)).toMatchObject({ ok: true, entries: 1 });
    l.close();
  });

  it('an old-format owner naming a running process is left alone: without a start time a reused pid cannot be told apart', () => {
    const path = fresh();
    schema4Ledger(path, [
      ['old-live', 'cap-old', 0, 1_700_000_000, `${hostname()}:${sleeper.pid}`],
      ['old-self', 'cap-old', 0, 1_700_000_000, `${hostname()}:${process.pid}`],
    ]);
    const kernel = open(path);
    expect(kernel.lastRecovery.settled).toEqual([]);
    expect(kernel.lastRecovery.left).toEqual([
      {
        requestId: 'old-live',
        owner: `${hostname()}:${sleeper.pid}`,
        why: `process ${sleeper.pid} is running (no start time to tell a reused pid apart)`,
      },
      { requestId: 'old-self', owner: `${hostname()}:${process.pid}`, why: 'written by this pid without a start time' },
    ]);
  });
});

describe('owners: only provably dead producers of this host are settled', () => {
  const linux =
    process.platform === 'linux' && self.start !== undefined && self.boot !== undefined && self.pidns !== undefined;

  it.runIf(linux)(
    'a reused pid, a rebooted host and a dead pid are settled; a live process, another host, another pid namespace and an unreadable owner are left',
    () => {
      const path = fresh();
      const ours = { host: self.host, boot: self.boot!, pidns: self.pidns! };
      const dead = deadPid();
      const owners = {
        reused: formatOwner({ ...ours, pid: sleeper.pid!, start: String(Number(startTime(sleeper.pid!)) + 1) }),
        rebooted: formatOwner({
          ...ours,
          pid: sleeper.pid!,
          start: startTime(sleeper.pid!),
          boot: '00000000-0000-4000-8000-000000000000',
        }),
        dead: formatOwner({ ...ours, pid: dead, start: '12345' }),
        live: formatOwner({ ...ours, pid: sleeper.pid!, start: startTime(sleeper.pid!) }),
        otherHost: formatOwner({ ...ours, host: `not-${self.host}`, pid: dead, start: '12345' }),
        otherNs: formatOwner({ ...ours, pid: dead, start: '12345', pidns: '1' }),
        garbage: `${self.host}:${dead}; rm -rf /`,
      };
      for (const [id, owner] of Object.entries(owners)) insertRow(path, { id, owner });
      const kernel = open(path);
      expect(kernel.lastRecovery.settled.map((s) => s.requestId).sort()).toEqual(['dead', 'rebooted', 'reused']);
      expect(Object.fromEntries(kernel.lastRecovery.left.map((l) => [l.requestId, l.why]))).toEqual({
        live: `process ${sleeper.pid} is running`,
        otherHost: `another host (not-${self.host})`,
        otherNs: 'another pid namespace (1)',
        garbage: 'owner not in a format this version reads',
      });
      expect(entryFor(path, 'reused')!.receipt.decision.reason).toContain(
        `pid ${sleeper.pid} now belongs to another process`,
      );
      expect(entryFor(path, 'rebooted')!.receipt.decision.reason).toContain('host rebooted since');
      // The rows left alone keep their reservation (and their place in the budget).
      const l = openLedger(path, { readonly: true });
      expect(
        (
          l.db.prepare('SELECT request_id FROM pending_calls ORDER BY request_id').all() as Array<{
            request_id: string;
          }>
        ).map((r) => r.request_id),
      ).toEqual(['garbage', 'live', 'otherHost', 'otherNs']);
      l.close();
    },
  );

  it('stored facts that name another capability, or unredacted parameters that do not match their hash, are not signed', () => {
    const path = fresh();
    const dead = `${self.host}:${deadPid()}`;
    const facts = (capability: string, parameters: unknown, hash = hashCanonical(parameters)) =>
      canonicalJson({
        timestamp: 1_800_000_000,
        capability_id: capability,
        tool_server: 'fs',
        tool_name: 'read_file',
        action: { parameters, parameter_hash: hash },
        redaction_mode: 'none',
        policy_hash: '',
        receipt_kind: 'mediated_decision',
        boundary_class: 'prevent',
        tool_origin: 'caller_executed',
        trust_level: 'mediated',
      });
    insertRow(path, { id: 'good', owner: dead, facts: facts('cap-x', { path: '/w/a' }), session: 's-1' });
    insertRow(path, { id: 'other-cap', owner: dead, facts: facts('cap-someone-else', { path: '/attacker' }) });
    insertRow(path, {
      id: 'bad-hash',
      owner: dead,
      facts: facts('cap-x', { path: '/attacker' }, hashCanonical({ path: '/w/a' })),
    });
    insertRow(path, { id: 'not-json', owner: dead, facts: '{"timestamp":' });
    open(path);
    expect(entryFor(path, 'good')).toMatchObject({
      session_id: 's-1',
      receipt: { action: { parameters: { path: '/w/a' } }, metadata: { chio_recovery: { facts: 'stored' } } },
    });
    for (const id of ['other-cap', 'bad-hash', 'not-json']) {
      const e = entryFor(path, id)!;
      expect(e.receipt, id).toMatchObject({
        capability_id: 'cap-x',
        tool_server: 'fs',
        tool_name: 'read_file',
        action: { parameters: null },
        redaction_mode: 'summary',
        metadata: { chio_recovery: { facts: 'unreadable' } },
      });
    }
  });
});

/** A tool that blocks until released, so a test can look at the ledger while a call is in flight. */
function blockingServer(): ToolServerConnection & { release: () => void; started: Promise<void> } {
  let release!: () => void;
  let started!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const startedP = new Promise<void>((r) => (started = r));
  return {
    manifest: {
      schema: 'chio.manifest.v1',
      server_id: 'fs',
      name: 'b',
      version: '1',
      tools: [{ name: 'login', description: '', input_schema: {}, has_side_effects: true }],
    },
    async invoke() {
      started();
      await gate;
      return { ok: true };
    },
    release,
    started: startedP,
  };
}

describe('what a reservation stores, and calls in flight in this process', () => {
  it('stores the redacted parameters (never the secret), the salted hash of the originals (never the salt), the session and the process incarnation', async () => {
    const path = fresh();
    const kernel = open(path, normalizePolicy({ redaction: { mode: 'redact_keys', keys: ['password'] } }));
    const server = blockingServer();
    kernel.registerToolServer(server);
    const cap = kernel.issueCapability({ subject: agent.publicKeyHex });
    const args = { user: 'ada', password: 'hunter2-secret' };
    const call = kernel.evaluateToolCall({
      capability: cap,
      caller: agent.publicKeyHex,
      serverId: 'fs',
      toolName: 'login',
      arguments: args,
      requestId: 'r-1',
      sessionId: 's-9',
    });
    await server.started;
    const l = openLedger(path, { readonly: true });
    const row = l.db.prepare('SELECT * FROM pending_calls').get() as Record<string, string>;
    l.close();
    expect(JSON.stringify(row)).not.toContain('hunter2');
    // The row is keyed by the kernel's own call id; the producer's id 'r-1' is only recorded.
    expect(row).toMatchObject({
      request_id: expect.stringMatching(UUID),
      session_id: 's-9',
      tool_server: 'fs',
      tool_name: 'login',
      owner: formatOwner(self),
    });
    const salt = RedactionKey.fromBytes(REDACTION_KEY).salt({
      capabilityId: cap.id,
      timestamp: JSON.parse(row.facts!).timestamp,
      signingNonce: row.request_id!,
    });
    expect(JSON.stringify(row)).not.toContain(salt);
    expect(JSON.parse(row.facts!)).toMatchObject({
      action: { parameters: { user: 'ada', password: '[REDACTED]' }, parameter_hash: saltedParameterHash(salt, args) },
      redaction_mode: 'redacted',
      policy_hash: kernel.policy.policyHash,
      metadata: {
        chio_parameter_salt: { key_id: RedactionKey.fromBytes(REDACTION_KEY).id, scheme: 'chio.parameter-salt.v1' },
        chio_request_id: 'r-1',
      },
    });
    server.release();
    expect(await call).toMatchObject({ ok: true });
  });

  it("a second kernel opened in the same process does not settle the first one's call in flight", async () => {
    const path = fresh();
    const first = open(path);
    const server = blockingServer();
    first.registerToolServer(server);
    const cap = first.issueCapability({ subject: agent.publicKeyHex });
    const call = first.evaluateToolCall({
      capability: cap,
      caller: agent.publicKeyHex,
      serverId: 'fs',
      toolName: 'login',
      arguments: {},
      requestId: 'in-flight',
    });
    await server.started;
    const l = openLedger(path, { readonly: true });
    const row = l.db.prepare('SELECT request_id, facts FROM pending_calls').get() as {
      request_id: string;
      facts: string;
    };
    l.close();
    expect(JSON.parse(row.facts).metadata).toEqual({ chio_request_id: 'in-flight' });
    const second = open(path);
    expect(second.lastRecovery).toEqual({
      settled: [],
      left: [{ requestId: row.request_id, owner: formatOwner(self), why: 'in flight in this process' }],
    });
    server.release();
    expect(await call).toMatchObject({ ok: true, receipt: { decision: { verdict: 'allow' } } });
  });

  it('budget: a reservation counts while pending; once recovery settles it as incomplete it no longer does', () => {
    const path = fresh();
    const dead = `${self.host}:${deadPid()}`;
    insertRow(path, { id: 'x', owner: dead, capability: 'cap-b' });
    const l = openLedger(path, { readonly: true });
    expect(invocationsUsed(l, 'cap-b', 0, [])).toBe(1);
    open(path);
    expect(invocationsUsed(l, 'cap-b', 0, [])).toBe(0);
    l.close();
  });
});
