// `chio acp proxy` judges the next agent messages while a tool-call update's receipt commits
// (group commit), yet every message leaves in arrival order and only after its own receipt:
// bursts of updates, requests and receipt-less messages in the middle of a burst, a burst larger
// than the in-flight bound, and an update whose receipt cannot be written under --attestation
// required. Real proxy process, real SDK fixture agent, a real SQLite ledger (and PostgreSQL for the
// first burst), `chio ledger verify`.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { setImmediate as turn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { gatedInput, MAX_IN_FLIGHT, OrderedPipeline } from '../../src/proxy/acp/pipeline.js';
import { readLines } from '../../src/wire/index.js';
import { startProxyClient, waitFor } from '../helpers/acp-proxy-client.js';
import { kernelKeyFiles, ledgerReceipts } from '../helpers/acp-proxy-ledger.js';
import { INIT_PARAMS, promptParams, rawProxy } from '../helpers/acp-proxy-raw.js';
import { ledgerRows } from '../helpers/any-ledger.js';
import { chio } from '../helpers/cli.js';
import { freshPgDatabase } from '../helpers/postgres.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('chio-acp-proxy-pipeline-');
const keys = kernelKeyFiles(dir);
let dbs = 0;
const freshDb = () => join(dir, `ledger-${++dbs}.sqlite`);
const verifyLedger = (db: string) =>
  chio(['ledger', 'verify', '--receipt-db', db, '--trusted-kernel-pubkey', keys.pubFile]);

/** n updates: each call opened (tool_call, in_progress) then closed (tool_call_update, completed), ids tagged. */
function burst(tag: string, n: number): Array<Record<string, unknown>> {
  return Array.from({ length: n }, (_, i) => {
    const toolCallId = `${tag}-${Math.floor(i / 2)}`;
    return i % 2 === 0
      ? { sessionUpdate: 'tool_call', toolCallId, title: `Run ${toolCallId}`, kind: 'execute', status: 'in_progress' }
      : { sessionUpdate: 'tool_call_update', toolCallId, status: 'completed' };
  });
}
const key = (u: Record<string, any>) => [u.sessionUpdate, u.toolCallId ?? null, u.status ?? null];
const notification = (sessionId: string, update: unknown) =>
  JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId, update } });
/** The session's receipts in seq order as [tool_call_id, status]. */
const recorded = (db: string, sessionId: string) =>
  ledgerReceipts(db)
    .filter((e) => e.session_id === sessionId)
    .map((e) => [e.receipt.action.parameters.tool_call_id, e.receipt.action.parameters.status]);

const backends: Array<[string, () => Promise<string>]> = [
  ['SQLite', async () => freshDb()],
  ['PostgreSQL', async () => (await freshPgDatabase()).url],
];

/** The session's receipts in seq order as [tool_call_id, status], read from either store. */
async function recordedIn(db: string, sessionId: string) {
  const rows = await ledgerRows<{ session_id: string | null; body: string }>(
    db,
    'SELECT session_id, body FROM ledger_entries ORDER BY seq',
  );
  return rows
    .filter((r) => r.session_id === sessionId)
    .map((r) => JSON.parse(r.body).action.parameters)
    .map((p: any) => [p.tool_call_id, p.status]);
}

describe.each(backends)('a burst of tool-call updates, ledger on %s', (_name, fresh) => {
  it('200 updates sent back to back reach the editor in the order sent, with one receipt each in the same seq order; the ledger verifies', async () => {
    const db = await fresh();
    const client = startProxyClient(['--receipt-db', db, '--kernel-seed-file', keys.seedFile]);
    const sent = burst('tc-burst', 200);
    let s: string;
    try {
      s = await client.newSession();
      await client.prompt(
        s,
        sent.map((update) => ({ update })),
      );
      expect(client.updates.filter((u) => u.sessionId === s).map((u) => key(u.update))).toEqual([
        ...sent.map(key),
        ['agent_message_chunk', null, null],
      ]);
    } finally {
      expect(await client.close()).toBe(0);
    }
    expect(await recordedIn(db, s)).toEqual(sent.map((u) => [u.toolCallId, u.status]));
    const v = verifyLedger(db);
    expect(v.status, v.stdout + v.stderr).toBe(0);
  });
});

describe('a burst of tool-call updates', () => {
  it(`a burst of ${4 * MAX_IN_FLIGHT} updates in one write (beyond the in-flight bound of ${MAX_IN_FLIGHT}), with receipt-less chunks among them, arrives complete and in order, each update recorded in order`, async () => {
    const db = freshDb();
    const p = rawProxy(['--receipt-db', db, '--kernel-seed-file', keys.seedFile]);
    await p.request(1, 'initialize', INIT_PARAMS);
    const s = (await p.request(2, 'session/new', { cwd: '/', mcpServers: [] })).result.sessionId;
    const updates = burst('tc-flood', 4 * MAX_IN_FLIGHT);
    // A receipt-less chunk after every 100 updates: it must wait for the updates before it.
    const sent = updates.flatMap((u, i) =>
      i % 100 === 99
        ? [u, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `after ${i + 1}` } }]
        : [u],
    );
    const r = await p.request(
      3,
      'session/prompt',
      promptParams(s, [{ raw: sent.map((u) => notification(s, u)).join('\n') }]),
    );
    expect(r.result).toEqual({ stopReason: 'end_turn' });
    expect(await p.end()).toBe(0);
    const got = p
      .messages()
      .filter((m) => m.method === 'session/update')
      .map((m) => [...key(m.params.update), m.params.update.content?.text ?? null]);
    expect(got.slice(0, -1)).toEqual(sent.map((u: Record<string, any>) => [...key(u), u.content?.text ?? null]));
    expect(got.at(-1)!.slice(0, 3)).toEqual(['agent_message_chunk', null, null]);
    expect(recorded(db, s)).toEqual(updates.map((u) => [u.toolCallId, u.status]));
    const v = verifyLedger(db);
    expect(v.status, v.stdout + v.stderr).toBe(0);
  });
});

describe('other messages in the middle of a burst', () => {
  it('agent requests (permission, fs read) and receipt-less updates never overtake the updates before them, nor are overtaken', async () => {
    const root = join(dir, 'project');
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, 'a.txt'), 'a');
    const db = freshDb();
    const p = rawProxy(['--receipt-db', db, '--kernel-seed-file', keys.seedFile, '--allow-path', root]);
    await p.request(1, 'initialize', INIT_PARAMS);
    const s = (await p.request(2, 'session/new', { cwd: root, mcpServers: [] })).result.sessionId;
    const [a, b, c] = [burst('tc-a', 60), burst('tc-b', 60), burst('tc-c', 60)];
    const chunk = { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'thinking' } };
    const noStatus = { sessionUpdate: 'tool_call_update', toolCallId: 'tc-a-0', title: 'no status: no receipt' };
    const permission = {
      toolCall: { toolCallId: 'tc-b-1' },
      options: [{ optionId: 'yes', name: 'Yes', kind: 'allow_once' }],
    };
    const steps = [
      ...a.slice(0, 30).map((update) => ({ update })),
      { update: chunk },
      { update: noStatus },
      ...a.slice(30).map((update) => ({ update })),
      { permission },
      ...b.map((update) => ({ update })),
      { read: { path: join(root, 'a.txt') } },
      ...c.map((update) => ({ update })),
    ];
    p.send({ jsonrpc: '2.0', id: 3, method: 'session/prompt', params: promptParams(s, steps) });
    // The editor answers each request once it arrives; the agent sends nothing after a request until then.
    const asked = await waitFor(
      () => p.messages().find((m) => m.method === 'session/request_permission'),
      'the permission request',
    );
    p.send({ jsonrpc: '2.0', id: asked.id, result: { outcome: { outcome: 'selected', optionId: 'yes' } } });
    const read = await waitFor(() => p.messages().find((m) => m.method === 'fs/read_text_file'), 'the fs read');
    p.send({ jsonrpc: '2.0', id: read.id, result: { content: 'a' } });
    expect((await p.response(3)).result).toEqual({ stopReason: 'end_turn' });
    expect(await p.end()).toBe(0);

    const seen = p
      .messages()
      .filter((m) => m.method !== undefined)
      .map((m) => (m.method === 'session/update' ? key(m.params.update) : [m.method]));
    expect(seen).toEqual([
      ...a.slice(0, 30).map(key),
      key(chunk),
      key(noStatus),
      ...a.slice(30).map(key),
      ['session/request_permission'],
      ...b.map(key),
      ['fs/read_text_file'],
      ...c.map(key),
      ['agent_message_chunk', null, null],
    ]);
    const outcome = JSON.parse(
      p
        .messages()
        .filter((m) => m.params?.update?.sessionUpdate === 'agent_message_chunk')
        .at(-1).params.update.content.text,
    );
    expect(outcome.every((o: { ok: boolean }) => o.ok)).toBe(true);
    expect(recorded(db, s)).toEqual([...a, ...b, ...c].map((u) => [u.toolCallId, u.status]));
    const v = verifyLedger(db);
    expect(v.status, v.stdout + v.stderr).toBe(0);
  });
});

describe('an update whose receipt cannot be written, in the middle of a burst', () => {
  // The ledger refuses a session label over 256 characters: that update's receipt fails alone,
  // while its neighbours' receipts are committed (attacker-controlled sessionId from the agent).
  for (const mode of ['required', 'optional'] as const) {
    it(`${mode}: it is ${mode === 'required' ? 'NOT ' : ''}forwarded; the updates around it are forwarded and recorded in order`, async () => {
      const db = freshDb();
      const p = rawProxy(['--receipt-db', db, '--kernel-seed-file', keys.seedFile, '--attestation', mode]);
      await p.request(1, 'initialize', INIT_PARAMS);
      const s = (await p.request(2, 'session/new', { cwd: '/', mcpServers: [] })).result.sessionId;
      const [before, after] = [burst('tc-before', 40), burst('tc-after', 40)];
      const unlabelled = `s-${'x'.repeat(300)}`;
      const bad = {
        sessionUpdate: 'tool_call',
        toolCallId: 'tc-unrecordable',
        title: 'Run it',
        kind: 'execute',
        status: 'in_progress',
      };
      const lines = [
        ...before.map((u) => notification(s, u)),
        notification(unlabelled, bad),
        ...after.map((u) => notification(s, u)),
      ];
      expect((await p.request(3, 'session/prompt', promptParams(s, [{ raw: lines.join('\n') }]))).result).toEqual({
        stopReason: 'end_turn',
      });
      expect(await p.end()).toBe(0);
      const updates = p
        .messages()
        .filter((m) => m.method === 'session/update')
        .map((m) => key(m.params.update));
      expect(updates).toEqual([
        ...before.map(key),
        ...(mode === 'required' ? [] : [key(bad)]),
        ...after.map(key),
        ['agent_message_chunk', null, null],
      ]);
      expect(p.stderr()).toContain('receipt for tool call tc-unrecordable (in_progress) failed');
      if (mode === 'required')
        expect(p.stderr()).toContain('tool call tc-unrecordable (in_progress) not forwarded: attestation is required');
      expect(recorded(db, s)).toEqual([...before, ...after].map((u) => [u.toolCallId, u.status]));
      expect(ledgerReceipts(db).filter((e) => e.session_id === unlabelled)).toEqual([]);
      const v = verifyLedger(db);
      expect(v.status, v.stdout + v.stderr).toBe(0);
    });
  }
});

describe('the in-flight bound (the pipeline and its gated input, with the real line reader)', () => {
  it('a flood is read only up to the bound while nothing leaves; each message that leaves lets exactly one more in; all leave in order', async () => {
    const bound = 8;
    const faults: unknown[] = [];
    const pipe = new OrderedPipeline((e) => faults.push(e), bound);
    const input = new PassThrough();
    const read: string[] = [];
    const left: string[] = [];
    const holds: Array<() => void> = [];
    const reading = readLines(gatedInput(input, pipe), {
      onLine: (line) => {
        read.push(line);
        // Every message waits for its "receipt" (released by the test), the last one first.
        pipe.push(() => ({
          leave: new Promise<() => void>((resolve) => holds.push(() => resolve(() => void left.push(line)))),
        }));
      },
      onOversize: () => {},
    });
    input.end(`${Array.from({ length: 100 }, (_, i) => `m${i}`).join('\n')}\n`); // one chunk, 100 lines
    const settle = async () => {
      for (let i = 0; i < 20; i++) await turn();
    };
    await settle();
    expect(read).toHaveLength(bound);
    holds.at(-1)!(); // the newest is ready, but earlier ones hold it back: nothing leaves, nothing more is read
    await settle();
    expect([left.length, read.length]).toEqual([0, bound]);
    holds[0]!(); // the oldest leaves: one more is read
    await settle();
    expect([left, read.length]).toEqual([['m0'], bound + 1]);
    for (let released = 1; released < 100; released++) {
      for (const h of holds) h();
      await settle();
    }
    await reading;
    await pipe.drained();
    expect(read).toEqual(Array.from({ length: 100 }, (_, i) => `m${i}`));
    expect(left).toEqual(read);
    expect(faults).toEqual([]);
  });
});
