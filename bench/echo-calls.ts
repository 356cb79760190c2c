/**
 * Timing `echo` tool calls through a connected MCP SDK client, for the bench modules that compare
 * an edge with what it stands in front of (mcp-edge.ts, http-bridges.ts, profile.ts): 20 warm-up
 * calls, then `calls` one at a time (calls/s, p50, p99), and optionally `calls` with `inFlight`
 * at a time on the same session (calls/s).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

export interface Sequential {
  perSecond: number;
  p50ms: number;
  p99ms: number;
}

export async function sequentialEchoCalls(client: Client, calls: number): Promise<Sequential> {
  for (let i = 0; i < 20; i++) await client.callTool({ name: 'echo', arguments: { message: `warm ${i}` } });
  const latencies: number[] = [];
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) {
    const t = process.hrtime.bigint();
    await client.callTool({ name: 'echo', arguments: { message: `call ${i}` } });
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

/** Calls per second with `inFlight` calls at a time on one session (the requests interleave on its transport). */
export async function concurrentEchoCalls(client: Client, calls: number, inFlight: number): Promise<number> {
  let next = 0;
  const start = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next++ < calls) await client.callTool({ name: 'echo', arguments: { message: `par ${next}` } });
    }),
  );
  return calls / (Number(process.hrtime.bigint() - start) / 1e9);
}
