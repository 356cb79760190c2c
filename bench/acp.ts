/**
 * ACP figures for `npm run bench`, each beside a limit measured in the same run:
 *  - the ACP edge (examples/hello-acp over stdio, the real ACP SDK client, one call in flight):
 *    governed `tool/invoke` round trips beside `session/list_capabilities` round trips on the
 *    same wire (transport alone, no kernel), fresh and at the JIT's steady state;
 *  - the ACP proxy: one prompt turn in which the SDK fixture agent makes N allowed fs reads, or
 *    sends N tool_call updates (each a signed receipt), through `chio acp proxy` beside the same
 *    turn straight to the agent, the two routes' turns alternating; in the first few thousand
 *    messages of each process and again at the JIT's steady state.
 * Owns: those measurements. Imports the product's ledger reader only to count the entries written.
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

/** One route's ACP session: prompt turns whose steps the fixture agent performs, each timed, with its CPU. */
interface Route {
  /** Runs one turn: messages per second, and the CPU µs it took (this client, the process, its children). */
  turn(): Promise<{ rate: number; clientUs: number; childUs: number; grandchildrenUs: number }>;
  readonly perTurn: number;
  turns: number;
  close(): Promise<void>;
}

async function openRoute(args: string[], stepsOfTurn: (turn: number) => unknown[], root: string): Promise<Route> {
  const { conn, close, pid } = connect(args, {}, (c) =>
    c.onRequest('fs/read_text_file', () => ({ content: 'x' })).onNotification('session/update', () => {}),
  );
  await conn.agent.request('initialize', {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: true } },
  });
  const { sessionId } = await conn.agent.request('session/new', { cwd: root, mcpServers: [] });
  const route: Route = {
    perTurn: stepsOfTurn(0).length,
    turns: 0,
    close,
    async turn() {
      const steps = JSON.stringify(stepsOfTurn(route.turns++));
      const tree0 = treeCpu(pid);
      const client0 = process.cpuUsage();
      const start = process.hrtime.bigint();
      await conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: steps }] });
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      const client = process.cpuUsage(client0);
      const tree = treeCpu(pid);
      return {
        rate: route.perTurn / seconds,
        clientUs: client.user + client.system,
        childUs: tree.ownUs - tree0.ownUs,
        grandchildrenUs: tree.descendantsUs - tree0.descendantsUs,
      };
    },
  };
  return route;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * Messages per second of the same prompt turn straight to the agent and through the proxy, each
 * route in its own session, their turns alternating so that both see the machine as it is at that
 * moment (on this VM a turn's speed drifts by ±30 % from one minute to the next, and a direct turn
 * timed apart from the proxied one made the ratio drift with it). Each route's first turn warms the
 * JIT up (a proxy's per-message path is several times slower until V8 has optimized it: 1,000
 * updates ran at ~1,400/s in a first turn and ~4,000/s by the third), then the median of three
 * turns each, alternating. Then turns, still alternating, until each process has handled
 * `STEADY_AFTER` messages, and the median of three more each: the JIT's steady state (both routes
 * keep getting faster for ~10,000 messages; mcp-edge.ts says why the two are printed apart).
 */
async function pairedTurns(
  direct: string[],
  proxied: string[],
  stepsOfTurn: (turn: number) => unknown[],
  root: string,
): Promise<[TurnRates, TurnRates]> {
  const routes = [await openRoute(direct, stepsOfTurn, root), await openRoute(proxied, stepsOfTurn, root)] as const;
  try {
    const alternate = async (rounds: number) => {
      const runs = routes.map(() => [] as Awaited<ReturnType<Route['turn']>>[]);
      for (let r = 0; r < rounds; r++) for (const [k, route] of routes.entries()) runs[k]!.push(await route.turn());
      return runs;
    };
    await alternate(1);
    const fresh = await alternate(3);
    while (routes.some((route) => route.turns * route.perTurn < STEADY_AFTER)) await alternate(1);
    const steady = await alternate(3);
    const rates = (k: number): TurnRates => {
      const runs = steady[k]!;
      const messages = runs.length * routes[k]!.perTurn;
      const sum = (f: (run: (typeof runs)[number]) => number) => runs.reduce((t, run) => t + f(run), 0) / messages;
      return {
        fresh: median(fresh[k]!.map((run) => run.rate)),
        steady: median(runs.map((run) => run.rate)),
        turns: routes[k]!.turns,
        steadyCpu: {
          clientUs: sum((run) => run.clientUs),
          childUs: sum((run) => run.childUs),
          grandchildrenUs: sum((run) => run.grandchildrenUs),
        },
      };
    };
    return [rates(0), rates(1)];
  } finally {
    for (const route of routes) await route.close();
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
    const [readsDirect, readsProxied] = await pairedTurns([AGENT], proxied('reads.sqlite'), () => reads, root);
    const [updatesDirect, updatesProxied] = await pairedTurns([AGENT], proxied('updates.sqlite'), updates, root);
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
