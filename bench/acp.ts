/**
 * ACP figures for `npm run bench`, each beside a limit measured in the same run:
 *  - the ACP edge (examples/hello-acp over stdio, the real ACP SDK client, one call in flight):
 *    governed `tool/invoke` round trips beside `session/list_capabilities` round trips on the
 *    same wire (transport alone, no kernel), fresh and at the JIT's steady state;
 *  - the ACP proxy: one prompt turn in which the SDK fixture agent makes N allowed fs reads, or
 *    sends N tool_call updates (each a signed receipt), through `chio acp proxy` beside the same
 *    turn straight to the agent; in the first few thousand messages of each process and again at
 *    the JIT's steady state.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import * as acp from '@agentclientprotocol/sdk';
import { ledgerStats, openLedger } from '../src/ledger/index.js';
import { treeCpu } from './process-cpu.js';
import { concurrentCalls, sequentialCalls } from './echo-calls.js';
import type { Sequential } from './echo-calls.js';
import { STEADY_AFTER } from './mcp-edge.js';

const CLI = fileURLToPath(new URL('../cli/main.js', import.meta.url));
const HELLO_ACP = fileURLToPath(new URL('../examples/hello-acp/edge.js', import.meta.url));
const AGENT = fileURLToPath(new URL('../../test/fixtures/acp-agent.mjs', import.meta.url));

function connect(args: string[], env: NodeJS.ProcessEnv, handlers: (c: acp.ClientApp) => acp.ClientApp = (c) => c) {
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'ignore'], env: { ...process.env, ...env } });
  const conn = handlers(acp.client({ name: 'chio-bench' })).connect(
    acp.ndJsonStream(
      Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
    ),
  );
  const close = async () => {
    child.stdin.end();
    await new Promise((r) => child.once('exit', r));
  };
  return { conn, close, pid: child.pid! };
}

/**
 * The ACP edge one call in flight: `session/list_capabilities` (the wire alone) and governed
 * `tool/invoke` round trips, in the edge's first calls and again after it has served
 * `STEADY_AFTER` of each (16 in flight in between; mcp-edge.ts says why the two are apart).
 */
export async function acpEdgeFigures(
  calls = 500,
): Promise<{ wire: Sequential; invoke: Sequential; steady: { wire: Sequential; invoke: Sequential } }> {
  const home = mkdtempSync(join(tmpdir(), 'chio-bench-acp-edge-'));
  const { conn, close } = connect([HELLO_ACP, 'serve'], { HELLO_ACP_HOME: home });
  const wireCall = () => conn.agent.request('session/list_capabilities', {});
  const invokeCall = (i: number) =>
    conn.agent.request('tool/invoke', { capabilityId: 'hello_tool', arguments: { name: `n${i}` } });
  try {
    const wire = await sequentialCalls(calls, wireCall, 200);
    const invoke = await sequentialCalls(calls, invokeCall, 200);
    const done = calls + 200;
    await concurrentCalls(STEADY_AFTER - done, 16, wireCall);
    await concurrentCalls(STEADY_AFTER - done, 16, invokeCall);
    return {
      wire,
      invoke,
      steady: {
        wire: await sequentialCalls(calls, wireCall, 200),
        invoke: await sequentialCalls(calls, invokeCall, 200),
      },
    };
  } finally {
    await close();
    rmSync(home, { recursive: true, force: true });
  }
}

/** Messages per second in a fresh process and at steady state, and the turns the session made. */
interface TurnRates {
  fresh: number;
  steady: number;
  turns: number;
  /** CPU µs per message over the steady turns: this client, the process it started, that process's children. */
  steadyCpu: { clientUs: number; childUs: number; grandchildrenUs: number };
}

/**
 * Messages per second of a prompt turn whose steps the fixture agent performs (requests or
 * notifications): the median of three turns, after one whole turn that warms the JIT up (a
 * proxy's per-message path is several times slower until V8 has optimized it: 1,000 updates ran
 * at ~1,400/s in a first turn and ~4,000/s by the third, where the direct turn changes less).
 * Then, on the same session, turns until the process has handled `STEADY_AFTER` messages, and the
 * median of three more: the JIT's steady state (both routes keep getting faster for ~10,000
 * messages; mcp-edge.ts says why the two are printed apart).
 */
async function turn(args: string[], stepsOfTurn: (turn: number) => unknown[], root: string): Promise<TurnRates> {
  const { conn, close, pid } = connect(args, {}, (c) =>
    c.onRequest('fs/read_text_file', () => ({ content: 'x' })).onNotification('session/update', () => {}),
  );
  try {
    await conn.agent.request('initialize', {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: true } },
    });
    const { sessionId } = await conn.agent.request('session/new', { cwd: root, mcpServers: [] });
    let turns = 0;
    const prompt = () =>
      conn.agent.request('session/prompt', {
        sessionId,
        prompt: [{ type: 'text', text: JSON.stringify(stepsOfTurn(turns++)) }],
      });
    const perTurn = stepsOfTurn(0).length;
    const medianOfThree = async () => {
      const rates: number[] = [];
      for (let i = 0; i < 3; i++) {
        const start = process.hrtime.bigint();
        await prompt();
        rates.push(perTurn / (Number(process.hrtime.bigint() - start) / 1e9));
      }
      return rates.sort((a, b) => a - b)[1]!;
    };
    await prompt();
    const fresh = await medianOfThree();
    for (let handled = 4 * perTurn; handled < STEADY_AFTER; handled += perTurn) await prompt();
    const tree0 = treeCpu(pid);
    const client0 = process.cpuUsage();
    const steady = await medianOfThree();
    const tree = treeCpu(pid);
    const client = process.cpuUsage(client0);
    const messages = 3 * perTurn;
    return {
      fresh,
      steady,
      turns,
      steadyCpu: {
        clientUs: (client.user + client.system) / messages,
        childUs: (tree.ownUs - tree0.ownUs) / messages,
        grandchildrenUs: (tree.descendantsUs - tree0.descendantsUs) / messages,
      },
    };
  } finally {
    await close();
  }
}

export async function acpProxyFigures(n = 1000): Promise<{
  readsDirect: TurnRates;
  readsProxied: TurnRates;
  updatesDirect: TurnRates;
  updatesProxied: TurnRates;
  /** Updates the proxied turns sent, and entries its ledger holds afterwards (at least one each). */
  updatesSent: number;
  updatesLedgerEntries: number;
}> {
  const dir = mkdtempSync(join(tmpdir(), 'chio-bench-acp-proxy-'));
  const root = join(dir, 'project');
  mkdirSync(root);
  writeFileSync(join(root, 'a.txt'), 'x');
  const proxied = (db: string) => [
    CLI,
    'acp',
    'proxy',
    '--receipt-db',
    join(dir, db),
    '--allow-path',
    root,
    '--',
    process.execPath,
    AGENT,
  ];
  const reads = Array.from({ length: n }, () => ({ read: { path: join(root, 'a.txt') } }));
  // Each turn's updates are new tool calls (their ids name the turn): the proxy maps an event sent
  // again to the receipt it already recorded (src/proxy/acp/updates.ts), so repeating one turn's
  // updates would measure that lookup, not a receipt each.
  const updates = (t: number) =>
    Array.from({ length: n }, (_, i) => ({
      update: {
        sessionUpdate: 'tool_call',
        toolCallId: `tc-${t}-${i}`,
        title: 'Read a',
        kind: 'read',
        status: 'completed',
      },
    }));
  try {
    const readsDirect = await turn([AGENT], () => reads, root);
    const readsProxied = await turn(proxied('reads.sqlite'), () => reads, root);
    const updatesDirect = await turn([AGENT], updates, root);
    const updatesProxied = await turn(proxied('updates.sqlite'), updates, root);
    const ledger = openLedger(join(dir, 'updates.sqlite'), { readonly: true });
    try {
      return {
        readsDirect,
        readsProxied,
        updatesDirect,
        updatesProxied,
        updatesSent: updatesProxied.turns * n,
        updatesLedgerEntries: ledgerStats(ledger).entries,
      };
    } finally {
      ledger.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
