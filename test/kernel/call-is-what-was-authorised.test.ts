// What runs, and what the budget is charged, is exactly what the checks approved: the kernel judges
// a call once, so the capability that authorised it is the one whose budget its receipt uses, the
// tool it dispatches is the tool the capability covers, and the arguments the tool receives are
// the arguments its constraints passed — whatever the caller's objects read or become afterwards.
// Hostile in-process callers: accessor properties that answer differently per read, and a request
// object changed after evaluateToolCall returned its promise.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CapabilityToken } from '../../src/capability/index.js';
import { fromHex, signerFromSeed } from '../../src/crypto/index.js';
import { Kernel } from '../../src/kernel/index.js';
import type { ToolCallRequest } from '../../src/kernel/index.js';
import { tempDir } from '../helpers/tmp.js';
import { CountingToolServer } from '../helpers/tool-server.js';

const SEED = fromHex('5a'.repeat(32));
const agent = signerFromSeed(fromHex('61'.repeat(32)));
const dir = tempDir();
let n = 0;
const opened: Kernel[] = [];
afterEach(async () => {
  for (const k of opened.splice(0)) await k.close();
});
function kernelAt(): { kernel: Kernel; server: CountingToolServer } {
  const kernel = Kernel.open({ ledgerPath: join(dir, `w-${++n}.sqlite`), seed: SEED });
  const server = new CountingToolServer();
  kernel.registerToolServer(server);
  opened.push(kernel);
  return { kernel, server };
}

/** The token, with an `id` that reads as `decoy` the first `lies` times and as the real id after. */
function lyingId(token: CapabilityToken, decoy: string, lies: number): Record<string, unknown> {
  const { id, ...rest } = token;
  let reads = 0;
  const hostile: Record<string, unknown> = { ...rest };
  Object.defineProperty(hostile, 'id', { enumerable: true, get: () => (++reads <= lies ? decoy : id) });
  return hostile;
}

describe('the budget charged is the budget of the capability that authorised the call', () => {
  it('a grant of 3 invocations allows 3 calls, however the presented id reads; no other token is charged', async () => {
    const { kernel, server } = kernelAt();
    const grant = { server_id: 'fs', tool_name: 'read_file', operations: ['invoke' as const], max_invocations: 3 };
    const mine = kernel.issueCapability({ subject: agent.publicKeyHex, scope: { grants: [grant] } });
    const victim = kernel.issueCapability({ subject: agent.publicKeyHex, scope: { grants: [grant] } });
    let allowed = 0;
    const charged: string[] = [];
    for (let i = 0; i < 10; i++) {
      const r = await kernel.evaluateToolCall({
        capability: lyingId(mine, victim.id, 2),
        caller: agent.publicKeyHex,
        serverId: 'fs',
        toolName: 'read_file',
        arguments: { path: '/workspace/a' },
      });
      if (r.ok) {
        allowed++;
        charged.push(r.receipt.capability_id);
      }
    }
    expect(allowed).toBe(3);
    expect(server.calls).toHaveLength(3);
    expect(new Set(charged)).toEqual(new Set([mine.id]));
    // The victim, never presented, still has its 3 calls.
    const victimCalls = await Promise.all(
      [0, 1, 2].map(() =>
        kernel.evaluateToolCall({
          capability: victim,
          caller: agent.publicKeyHex,
          serverId: 'fs',
          toolName: 'read_file',
          arguments: { path: '/workspace/a' },
        }),
      ),
    );
    expect(victimCalls.map((r) => r.ok)).toEqual([true, true, true]);
  });
});

describe('the tool runs what the capability approved', () => {
  const scope = {
    grants: [
      {
        server_id: 'fs',
        tool_name: 'read_file',
        operations: ['invoke' as const],
        constraints: [{ type: 'path_prefix' as const, value: '/workspace' }],
      },
    ],
  };

  it('arguments whose path reads inside the prefix when checked and outside it later never reach the tool outside it', async () => {
    const { kernel, server } = kernelAt();
    const token = kernel.issueCapability({ subject: agent.publicKeyHex, scope });
    let reads = 0;
    const args = {
      get path() {
        return ++reads <= 1 ? '/workspace/a' : '/srv/secrets/key';
      },
    };
    const r = await kernel.evaluateToolCall({
      capability: token,
      caller: agent.publicKeyHex,
      serverId: 'fs',
      toolName: 'read_file',
      arguments: args,
    });
    const paths = server.calls.map((c) => (c.args as { path: string }).path);
    expect(
      paths.every((p) => p.startsWith('/workspace/')),
      `the tool was given ${JSON.stringify(paths)} (allowed: ${r.ok})`,
    ).toBe(true);
  });

  it('arguments changed after evaluateToolCall returned its promise are not the ones dispatched', async () => {
    const { kernel, server } = kernelAt();
    const token = kernel.issueCapability({ subject: agent.publicKeyHex, scope });
    const args = { path: '/workspace/a' };
    const pending = kernel.evaluateToolCall({
      capability: token,
      caller: agent.publicKeyHex,
      serverId: 'fs',
      toolName: 'read_file',
      arguments: args,
    });
    args.path = '/srv/secrets/key';
    const r = await pending;
    const paths = server.calls.map((c) => (c.args as { path: string }).path);
    expect(paths, `allowed: ${r.ok}`).toEqual(r.ok ? ['/workspace/a'] : []);
  });

  it('a request whose tool name is changed after evaluateToolCall returned its promise runs the tool that was authorised, or nothing', async () => {
    const { kernel, server } = kernelAt();
    const token = kernel.issueCapability({
      subject: agent.publicKeyHex,
      scope: { grants: [{ server_id: 'fs', tool_name: 'hello_tool', operations: ['invoke'] }] },
    });
    const request: ToolCallRequest = {
      capability: token,
      caller: agent.publicKeyHex,
      serverId: 'fs',
      toolName: 'hello_tool',
      arguments: { name: 'x', path: '/srv/secrets/key' },
    };
    const pending = kernel.evaluateToolCall(request);
    request.toolName = 'read_file'; // not granted
    const r = await pending;
    expect(server.calls.map((c) => c.tool)).toEqual(r.ok ? ['hello_tool'] : []);
    expect(r.receipt.tool_name).toBe(server.calls[0]?.tool ?? r.receipt.tool_name);
  });
});
