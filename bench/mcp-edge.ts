/**
 * MCP edge figures for `npm run bench`: governed `tools/call` round trips per second and
 * p50/p99 latency through `chio mcp serve` (stdio) wrapping the real server-everything, beside the
 * same calls made directly to the same upstream in the same run; then calls per second with 16 in
 * flight, and the CPU each party spends per call meanwhile (client, edge, upstream: process-cpu.ts).
 * Beside them, the same calls through a null relay (bench/null-relay.ts: a process that starts the
 * upstream and copies bytes both ways): the floor of any edge that wraps a stdio server, since the
 * client, the relay and the upstream then share this machine's cores.
 *
 * Each route is measured twice, one call in flight and 16: in its first calls, as a freshly started
 * edge serves them, and again at the JIT's steady state, after every process of the route has served
 * `STEADY_AFTER` calls (V8 keeps compiling hot functions with its optimizing tier for the first
 * ten thousand calls or so; a long-running edge spends its life past that point).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { concurrentEchoCalls, sequentialEchoCalls } from './echo-calls.js';
import type { Sequential } from './echo-calls.js';
import { cpuPerCall } from './process-cpu.js';
import type { CallCpu } from './process-cpu.js';

const require = createRequire(import.meta.url);
const EVERYTHING = join(
  require.resolve('@modelcontextprotocol/server-everything/package.json'),
  '..',
  'dist',
  'index.js',
);
const CLI = fileURLToPath(new URL('../cli/main.js', import.meta.url));
const NULL_RELAY = fileURLToPath(new URL('./null-relay.js', import.meta.url));

export interface RoundTrips {
  perSecond: number;
  p50ms: number;
  p99ms: number;
  /** Calls per second with 16 in flight. */
  sixteenInFlight: number;
  /** CPU per call with 16 in flight: the client (this process), the process it started, that process's children. */
  sixteenCpu: CallCpu;
  /** The same at the JIT's steady state, after `STEADY_AFTER` calls on the session: one call in flight, then 16. */
  steady: { sequential: Sequential; perSecond: number; cpu: CallCpu };
}

/** Calls a route has served (warm-up included) before its steady-state window is measured. */
export const STEADY_AFTER = 20_000;
/** Calls in the steady-state window. */
const STEADY_CALLS = 8_000;

async function measure(args: string[], calls: number): Promise<RoundTrips> {
  const client = new Client({ name: 'chio-bench', version: '1.0.0' }, { capabilities: {} });
  const transport = new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' });
  await client.connect(transport);
  const sequential = await sequentialEchoCalls(client, calls);
  // Four times as many calls in flight as one at a time: CPU is counted in ticks of 10 ms.
  const concurrent = 4 * calls;
  const { result: sixteenInFlight, cpu: sixteenCpu } = await cpuPerCall(transport.pid!, concurrent, () =>
    concurrentEchoCalls(client, concurrent, 16),
  );
  // Up to STEADY_AFTER calls in all (20 warm-up calls, `calls` one at a time, `concurrent` above),
  // then the same two windows again.
  await concurrentEchoCalls(client, STEADY_AFTER - 20 - calls - concurrent, 16);
  const steadySequential = await sequentialEchoCalls(client, calls);
  const steady = await cpuPerCall(transport.pid!, STEADY_CALLS, () => concurrentEchoCalls(client, STEADY_CALLS, 16));
  await client.close();
  return {
    ...sequential,
    sixteenInFlight,
    sixteenCpu,
    steady: { sequential: steadySequential, perSecond: steady.result, cpu: steady.cpu },
  };
}

export async function mcpEdgeFigures(
  calls = 500,
): Promise<{ direct: RoundTrips; relayed: RoundTrips; governed: RoundTrips }> {
  const dir = mkdtempSync(join(tmpdir(), 'chio-bench-mcp-'));
  try {
    const direct = await measure([EVERYTHING, 'stdio'], calls);
    const relayed = await measure([NULL_RELAY, process.execPath, EVERYTHING, 'stdio'], calls);
    const governed = await measure(
      [CLI, 'mcp', 'serve', '--receipt-db', join(dir, 'edge.sqlite'), '--', process.execPath, EVERYTHING, 'stdio'],
      calls,
    );
    return { direct, relayed, governed };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
