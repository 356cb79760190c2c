/**
 * Timing calls one at a time and many in flight (any request; `echo` tool calls through a
 * connected MCP SDK client for mcp-edge.ts, http-bridges.ts and profile.ts, ACP requests for
 * acp.ts), for the bench modules that compare an edge with what it stands in front of: warm-up
 * calls, then `calls` one at a time (calls/s, p50, p99), and optionally `calls` with `inFlight`
 * at a time on the same session (calls/s).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

export interface Sequential {
  perSecond: number;
  p50ms: number;
  p99ms: number;
}

/** `warmUp` calls, then `calls` one at a time: calls/s, p50, p99. */
export async function sequentialCalls(
  calls: number,
  call: (i: number) => Promise<unknown>,
  warmUp = 20,
): Promise<Sequential> {
  for (let i = 0; i < warmUp; i++) await call(i);
  const latencies: number[] = [];
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) {
    const t = process.hrtime.bigint();
    await call(i);
    latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  latencies.sort((a, b) => a - b);
  return {
    perSecond: calls / seconds,
    p50ms: latencies[Math.floor(calls * 0.5)]!,
    p99ms: latencies[Math.floor(calls * 0.99)]!,
  };
}

/** Calls per second with `inFlight` calls at a time (on one session, the requests interleave on its transport). */
export async function concurrentCalls(
  calls: number,
  inFlight: number,
  call: (i: number) => Promise<unknown>,
): Promise<number> {
  let next = 0;
  const start = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < calls) await call(next++);
    }),
  );
  return calls / (Number(process.hrtime.bigint() - start) / 1e9);
}

export function sequentialEchoCalls(client: Client, calls: number): Promise<Sequential> {
  return sequentialCalls(calls, (i) => client.callTool({ name: 'echo', arguments: { message: `call ${i}` } }));
}

export function concurrentEchoCalls(client: Client, calls: number, inFlight: number): Promise<number> {
  return concurrentCalls(calls, inFlight, (i) => client.callTool({ name: 'echo', arguments: { message: `par ${i}` } }));
}
