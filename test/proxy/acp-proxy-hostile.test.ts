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
const verifyLedger = (db: string) =>
  chio(['ledger', 'verify', '--receipt-db', db, '--trusted-kernel-pubkey', keys.pubFile]);
const toolCall = (toolCallId: string) => ({
  update: {
    sessionUpdate: 'tool_call',
    toolCallId,
    title: `Run ${toolCallId}`,
    kind: 'execute',
    status: 'in_progress',
  },
});

/** Root ignores mode bits; the immutable attribute (ext4 `chattr +i`) stops even root. */
const CHATTR = (() => {
  const probe = join(dir, 'chattr-probe');
  writeFileSync(probe, 'x');
  const ok = spawnSync('chattr', ['+i', probe]).status === 0;
  if (ok) spawnSync('chattr', ['-i', probe]);
  return ok;
})();

describe('raw lines from the editor, garbage from the agent', () => {
  it('a malformed line gets -32700, a batch (its request never forwarded) and bad params -32600; valid requests around them are forwarded and answered', async () => {
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
      expect(errors.map((m) => [m.id, m.error.code])).toEqual([
        [null, -32700],
        [null, -32600],
        [5, -32600],
      ]);
      expect(p.messages().filter((m) => m.id === 3)).toEqual([]);
    } finally {
      expect(await p.end()).toBe(0);
    }
  });

  it('an oversize line from the editor is refused with -32600, in arrival order after the answer to the line before it, and never forwarded', async () => {
    const p = rawProxy(['--receipt-db', freshDb(), '--kernel-seed-file', keys.seedFile, '--max-message-bytes', '4096']);
    try {
      await p.request(1, 'initialize', INIT_PARAMS);
      const oversize = JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'session/new',
        params: { cwd: `/${'x'.repeat(5000)}`, mcpServers: [] },
      });
      p.send(`{"jsonrpc":"2.0","id":2,"method":\n${oversize}`); // one write: both lines arrive together
      expect((await p.request(4, 'session/new', { cwd: '/', mcpServers: [] })).result.sessionId).toEqual(
        expect.any(String),
      );
      const errors = p.messages().filter((m) => m.error !== undefined);
      expect(errors.map((m) => [m.id, m.error.code, m.error.message.slice(0, 12)])).toEqual([
        [null, -32700, 'parse error:'],
        [null, -32600, 'message larg'],
      ]);
      expect(errors[1].error.message).toBe('message larger than 4096 bytes refused');
      expect(p.messages().filter((m) => m.id === 3)).toEqual([]);
    } finally {
      expect(await p.end()).toBe(0);
    }
  });

  it('an agent line that is not JSON, not JSON-RPC or oversize is dropped and logged; the session continues; the editor never sees it; the ledger verifies', async () => {
    const db = freshDb();
    const p = rawProxy(['--receipt-db', db, '--kernel-seed-file', keys.seedFile, '--max-message-bytes', '4096']);
    await p.request(1, 'initialize', INIT_PARAMS);
    const sessionId = (await p.request(2, 'session/new', { cwd: '/', mcpServers: [] })).result.sessionId;
    const garbage = ['not json', '{"hello":"agent"}', '{"jsonrpc":"2.0","id":"bad-1","method":7}'];
    const r = await p.request(
      3,
      'session/prompt',
      promptParams(sessionId, [...garbage.map((raw) => ({ raw })), { big: 5000 }, toolCall('tc-garbage')]),
    );
    expect(r.result).toEqual({ stopReason: 'end_turn' });
    p.send({ jsonrpc: '2.0', id: 4, method: 'session/new', params: { cwd: '/', mcpServers: [] } });
    expect((await p.response(4)).result.sessionId).toEqual(expect.any(String));
    expect(await p.end()).toBe(0);
    const updates = p
      .messages()
      .filter((m) => m.method === 'session/update')
      .map((m) => m.params.update.sessionUpdate);
    expect(updates).toEqual(['tool_call', 'agent_message_chunk']);
    const outcome = JSON.parse(
      p.messages().find((m) => m.params?.update?.sessionUpdate === 'agent_message_chunk').params.update.content.text,
    );
    expect(outcome).toHaveLength(5);
    expect(outcome.every((o: { ok: boolean }) => o.ok)).toBe(true);
    for (const needle of ['not json', 'hello', 'bad-1', 'hhhh']) expect(p.stdout()).not.toContain(needle);
    expect(p.messages().filter((m) => 'unparsed' in m)).toEqual([]);
    expect(p.stderr()).toContain('dropped a line from the agent that is not JSON: not json');
    expect(p.stderr()).toContain('dropped a message from the agent that is not JSON-RPC');
    expect(p.stderr()).toContain('dropped a message from the agent larger than 4096 bytes');
    expect(
      ledgerReceipts(db)
        .filter((e) => e.session_id === sessionId)
        .map((e) => e.receipt.action.parameters.tool_call_id),
    ).toEqual(['tc-garbage']);
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
    const pending = await p.request(
      3,
      'session/prompt',
      promptParams(sessionId, [toolCall('tc-exit'), { sleep: 100 }, { exit: 3 }]),
    );
    expect(pending.error.message).toMatch(/agent exited with code 3/);
    expect(pending.error.message).toContain('session/prompt');
    expect(pending.error.code).toBeLessThan(0);
    p.send({ jsonrpc: '2.0', method: 'session/cancel', params: { sessionId } });
    const later = await p.request(4, 'session/new', { cwd: '/', mcpServers: [] });
    expect(later.error.message).toMatch(/agent exited with code 3/);
    expect(
      p
        .messages()
        .filter((m) => m.method === 'session/update')
        .map((m) => m.params.update.toolCallId),
    ).toEqual(['tc-exit']);
    expect(typeof (await p.end())).toBe('number');
    expect(p.messages().filter((m) => m.id === undefined && m.method === undefined)).toEqual([]);
    expect(ledgerReceipts(db).map((e) => [e.session_id, e.receipt.action.parameters.tool_call_id])).toEqual([
      [sessionId, 'tc-exit'],
    ]);
    const v = verifyLedger(db);
    expect(v.status, v.stdout + v.stderr).toBe(0);
  });
});

describe('an agent that cannot start', () => {
  it('every request gets an error naming the failure; the proxy still exits cleanly when stdin closes', async () => {
    const p = rawProxy(['--receipt-db', freshDb(), '--kernel-seed-file', keys.seedFile], [join(dir, 'no-such-agent')]);
    const r = await p.request(1, 'initialize', INIT_PARAMS);
    expect(r.error.message).toContain(`agent could not start: spawn ${join(dir, 'no-such-agent')} ENOENT`);
    expect(await p.end()).toBe(0);
  });
});

describe.skipIf(!CHATTR)(
  `--attestation with an unwritable ledger${CHATTR ? '' : ' (skipped: chattr +i is unavailable here)'}`,
  () => {
    for (const mode of ['required', 'optional'] as const) {
      it(`${mode}: a tool-call update whose receipt cannot be appended is ${mode === 'required' ? 'NOT ' : ''}forwarded; once writable again it is recorded and forwarded`, async () => {
        const db = freshDb();
        const client = startProxyClient([
          '--receipt-db',
          db,
          '--kernel-seed-file',
          keys.seedFile,
          '--attestation',
          mode,
        ]);
        try {
          const s = await client.newSession();
          const files = [db, `${db}-wal`].filter((f) => existsSync(f));
          expect(spawnSync('chattr', ['+i', ...files]).status).toBe(0);
          try {
            await client.prompt(s, [
              toolCall('tc-locked'),
              { update: { sessionUpdate: 'tool_call_update', toolCallId: 'tc-locked', status: 'completed' } },
              {
                update: {
                  sessionUpdate: 'tool_call_update',
                  toolCallId: 'tc-locked',
                  title: 'no status: no receipt needed',
                },
              },
            ]);
          } finally {
            spawnSync('chattr', ['-i', ...files]);
          }
          const seen = () =>
            client.updates
              .filter((u) => u.sessionId === s)
              .map((u) => [u.update.sessionUpdate, u.update.toolCallId ?? null, u.update.status ?? null]);
          expect(seen()).toEqual([
            ...(mode === 'required'
              ? []
              : [
                  ['tool_call', 'tc-locked', 'in_progress'],
                  ['tool_call_update', 'tc-locked', 'completed'],
                ]),
            ['tool_call_update', 'tc-locked', null],
            ['agent_message_chunk', null, null],
          ]);
          expect(client.stderr()).toContain('receipt for tool call tc-locked (in_progress) failed');
          if (mode === 'required')
            expect(client.stderr()).toContain(
              'tool call tc-locked (in_progress) not forwarded: attestation is required',
            );
          expect(ledgerReceipts(db).filter((e) => e.session_id === s)).toEqual([]);
          await client.prompt(s, [toolCall('tc-unlocked')]);
          expect(seen().filter(([, id]) => id === 'tc-unlocked')).toEqual([
            ['tool_call', 'tc-unlocked', 'in_progress'],
          ]);
          expect(
            ledgerReceipts(db)
              .filter((e) => e.session_id === s)
              .map((e) => e.receipt.action.parameters.tool_call_id),
          ).toEqual(['tc-unlocked']);
        } finally {
          expect(await client.close()).toBe(0);
        }
        const v = verifyLedger(db);
        expect(v.status, v.stdout + v.stderr).toBe(0);
      });
    }
  },
);

describe('the CLI', () => {
  it('arguments after -- reach the agent unchanged, its environment is passed through, and stdout carries ACP messages only', async () => {
    const agent = fileURLToPath(new URL('../helpers/acp-proxy-argv-agent.mjs', import.meta.url));
    const args = ['007', '--allow-path', 'a b', '--', '$(x)', ''];
    const p = rawProxy(['--receipt-db', freshDb()], [process.execPath, agent, ...args], {
      CHIO_ACP_PROXY_TEST: 'passed through',
    });
    const note = await waitFor(() => p.messages().find((x) => x.method === '_test/argv'), 'the argv notification');
    expect(note.params).toEqual({ argv: args, env: 'passed through' });
    expect(await p.end()).toBe(0);
    // Without --kernel-seed-file a key is generated and announced on stderr; stdout stays ACP-only.
    expect(p.stderr()).toContain('generated kernel key');
    expect(p.messages()).toEqual([note]);
  });

  it('refuses a missing agent command, --allow-path / and a relative --allow-path with a usage error', () => {
    for (const args of [
      ['acp', 'proxy'],
      ['acp', 'proxy', '--allow-path', '/', '--', 'true'],
      ['acp', 'proxy', '--allow-path', 'project', '--', 'true'],
    ]) {
      const r = chio(['--receipt-db', join(dir, 'never.sqlite'), ...args]);
      expect(r.status, r.stderr).toBe(2);
      expect(errorCode(r.stderr)).toBe('CHIO-CLI-USAGE');
    }
    expect(existsSync(join(dir, 'never.sqlite'))).toBe(false);
  });
});
