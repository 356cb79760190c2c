// `chio acp proxy` against hostile input: raw malformed lines from the editor, an agent that exits
// mid-session or writes garbage, an unwritable ledger under --attestation required|optional, and
// the CLI's own argument handling. Real proxy process, real fixture agent, real SQLite ledger.
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startProxyClient, waitFor } from '../helpers/acp-proxy-client.js';
import { kernelKeyFiles, ledgerReceipts } from '../helpers/acp-proxy-ledger.js';
import { INIT_PARAMS, promptParams, rawProxy } from '../helpers/acp-proxy-raw.js';
import { chio, errorCode } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('chio-acp-proxy-hostile-');
const keys = kernelKeyFiles(dir);
let dbs = 0;
const freshDb = () => join(dir, `ledger-${++dbs}.sqlite`);
const verifyLedger = (db: string) => chio(['ledger', 'verify', '--receipt-db', db, '--trusted-kernel-pubkey', keys.pubFile]);
const toolCall = (toolCallId: string) => ({ update: { sessionUpdate: 'tool_call', toolCallId, title: `Run ${toolCallId}`, kind: 'execute', status: 'in_progress' } });

/** Root ignores mode bits; the immutable attribute (ext4 `chattr +i`) stops even root. */
const CHATTR = (() => {
  const probe = join(dir, 'chattr-probe');
  writeFileSync(probe, 'x');
  const ok = spawnSync('chattr', ['+i', probe]).status === 0;
  if (ok) spawnSync('chattr', ['-i', probe]);
  return ok;
})();

describe('raw lines from the editor, garbage from the agent', () => {
  it('a malformed line gets -32700, a batch -32600 (its request never forwarded), bad params -32600; valid requests around them are forwarded and answered', async () => {
    const p = rawProxy(['--receipt-db', freshDb(), '--kernel-seed-file', keys.seedFile]);
    try {
      p.send('{"jsonrpc":"2.0","id":1,"method":');
      p.send('');
      const init = await p.request(2, 'initialize', INIT_PARAMS);
      expect(init.result.protocolVersion).toBe(1);
      p.send([{ jsonrpc: '2.0', id: 3, method: 'session/new', params: { cwd: '/', mcpServers: [] } }]);
      p.send('{"jsonrpc":"2.0","id":5,"method":"session/new","params":[1]}');
      const s = await p.request(4, 'session/new', { cwd: '/', mcpServers: [] });
      expect(typeof s.result.sessionId).toBe('string');
      const errors = p.messages().filter((m) => m.error !== undefined);
      expect(errors.map((m) => [m.id, m.error.code])).toEqual([[null, -32700], [null, -32600], [5, -32600]]);
      expect(p.messages().filter((m) => m.id === 3)).toEqual([]);
    } finally {
      expect(await p.end()).toBe(0);
    }
  });

  it('an agent line that is not JSON (or not JSON-RPC) is dropped and logged; the session continues; the editor never sees it; the ledger verifies', async () => {
    const db = freshDb();
    const p = rawProxy(['--receipt-db', db, '--kernel-seed-file', keys.seedFile]);
    await p.request(1, 'initialize', INIT_PARAMS);
    const sessionId = (await p.request(2, 'session/new', { cwd: '/', mcpServers: [] })).result.sessionId;
    const r = await p.request(3, 'session/prompt', promptParams(sessionId, [{ raw: 'not json' }, { raw: '{"hello":"agent"}' }, toolCall('tc-garbage')]));
    expect(r.result).toEqual({ stopReason: 'end_turn' });
    p.send({ jsonrpc: '2.0', id: 4, method: 'session/new', params: { cwd: '/', mcpServers: [] } });
    expect((await p.response(4)).result.sessionId).toEqual(expect.any(String));
    expect(await p.end()).toBe(0);
    const updates = p.messages().filter((m) => m.method === 'session/update').map((m) => m.params.update.sessionUpdate);
    expect(updates).toEqual(['tool_call', 'agent_message_chunk']);
    const outcome = JSON.parse(p.messages().find((m) => m.params?.update?.sessionUpdate === 'agent_message_chunk').params.update.content.text);
    expect(outcome).toEqual([{ ok: true, result: null }, { ok: true, result: null }, { ok: true, result: null }]);
    expect(p.stdout()).not.toContain('not json');
    expect(p.stdout()).not.toContain('hello');
    expect(p.messages().filter((m) => 'unparsed' in m)).toEqual([]);
    expect(p.stderr()).toContain('dropped a line from the agent that is not JSON: not json');
    expect(ledgerReceipts(db).filter((e) => e.session_id === sessionId).map((e) => e.receipt.action.parameters.tool_call_id)).toEqual(['tc-garbage']);
    const v = verifyLedger(db);
    expect(v.status, v.stdout + v.stderr).toBe(0);
  });
});

describe('an agent that exits mid-session', () => {
  it('the pending prompt and every later request get an error naming the exit; the proxy exits when stdin closes; the ledger verifies', async () => {
    const db = freshDb();
    const p = rawProxy(['--receipt-db', db, '--kernel-seed-file', keys.seedFile]);
    await p.request(1, 'initialize', INIT_PARAMS);
    const sessionId = (await p.request(2, 'session/new', { cwd: '/', mcpServers: [] })).result.sessionId;
    const pending = await p.request(3, 'session/prompt', promptParams(sessionId, [toolCall('tc-exit'), { sleep: 100 }, { exit: 3 }]));
    expect(pending.error.message).toMatch(/agent exited with code 3/);
    expect(pending.error.message).toContain('session/prompt');
    expect(pending.error.code).toBeLessThan(0);
    p.send({ jsonrpc: '2.0', method: 'session/cancel', params: { sessionId } });
    const later = await p.request(4, 'session/new', { cwd: '/', mcpServers: [] });
    expect(later.error.message).toMatch(/agent exited with code 3/);
    expect(p.messages().filter((m) => m.method === 'session/update').map((m) => m.params.update.toolCallId)).toEqual(['tc-exit']);
    expect(typeof (await p.end())).toBe('number');
    expect(p.messages().filter((m) => m.id === undefined && m.method === undefined)).toEqual([]);
    expect(ledgerReceipts(db).map((e) => [e.session_id, e.receipt.action.parameters.tool_call_id])).toEqual([[sessionId, 'tc-exit']]);
    const v = verifyLedger(db);
    expect(v.status, v.stdout + v.stderr).toBe(0);
  });
});

describe.skipIf(!CHATTR)(`--attestation with an unwritable ledger${CHATTR ? '' : ' (skipped: chattr +i is unavailable here)'}`, () => {
  for (const mode of ['required', 'optional'] as const) {
    it(`${mode}: a tool-call update whose receipt cannot be appended is ${mode === 'required' ? 'NOT ' : ''}forwarded; once writable again it is recorded and forwarded`, async () => {
      const db = freshDb();
      const client = startProxyClient(['--receipt-db', db, '--kernel-seed-file', keys.seedFile, '--attestation', mode]);
      try {
        const s = await client.newSession();
        const files = [db, `${db}-wal`].filter((f) => existsSync(f));
        expect(spawnSync('chattr', ['+i', ...files]).status).toBe(0);
        try {
          await client.prompt(s, [toolCall('tc-locked'), { update: { sessionUpdate: 'tool_call_update', toolCallId: 'tc-locked', status: 'completed' } }]);
        } finally {
          spawnSync('chattr', ['-i', ...files]);
        }
        const seen = () => client.updates.filter((u) => u.sessionId === s).map((u) => [u.update.sessionUpdate, u.update.toolCallId ?? null]);
        expect(seen()).toEqual(mode === 'required'
          ? [['agent_message_chunk', null]]
          : [['tool_call', 'tc-locked'], ['tool_call_update', 'tc-locked'], ['agent_message_chunk', null]]);
        expect(client.stderr()).toContain('receipt for tool call tc-locked (in_progress) failed');
        if (mode === 'required') expect(client.stderr()).toContain('tool call tc-locked (in_progress) not forwarded: attestation is required');
        expect(ledgerReceipts(db).filter((e) => e.session_id === s)).toEqual([]);
        await client.prompt(s, [toolCall('tc-unlocked')]);
        expect(seen().filter(([, id]) => id === 'tc-unlocked')).toEqual([['tool_call', 'tc-unlocked']]);
        expect(ledgerReceipts(db).filter((e) => e.session_id === s).map((e) => e.receipt.action.parameters.tool_call_id)).toEqual(['tc-unlocked']);
      } finally {
        expect(await client.close()).toBe(0);
      }
      const v = verifyLedger(db);
      expect(v.status, v.stdout + v.stderr).toBe(0);
    });
  }
});

describe('the CLI', () => {
  it('arguments after -- reach the agent unchanged and its environment is passed through', async () => {
    const agent = fileURLToPath(new URL('../helpers/acp-proxy-argv-agent.mjs', import.meta.url));
    const args = ['007', '--allow-path', 'a b', '--', '$(x)', ''];
    const p = rawProxy(['--receipt-db', freshDb(), '--kernel-seed-file', keys.seedFile], [process.execPath, agent, ...args], { CHIO_ACP_PROXY_TEST: 'passed through' });
    const note = await waitFor(() => p.messages().find((x) => x.method === '_test/argv'), 'the argv notification');
    expect(note.params).toEqual({ argv: args, env: 'passed through' });
    expect(await p.end()).toBe(0);
  });

  it('refuses a missing agent command, --allow-path / and a relative --allow-path with a usage error', () => {
    for (const args of [['acp', 'proxy'], ['acp', 'proxy', '--allow-path', '/', '--', 'true'], ['acp', 'proxy', '--allow-path', 'project', '--', 'true']]) {
      const r = chio(['--receipt-db', join(dir, 'never.sqlite'), ...args]);
      expect(r.status, r.stderr).toBe(2);
      expect(errorCode(r.stderr)).toBe('CHIO-CLI-USAGE');
    }
    expect(existsSync(join(dir, 'never.sqlite'))).toBe(false);
  });
});
