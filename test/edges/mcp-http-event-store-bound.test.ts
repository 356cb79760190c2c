// The replay buffer of one Streamable HTTP session stays bounded however many requests the session serves:
// every POST opens a stream, and past the stream bound the one written least recently is forgotten.
import { describe, expect, it } from 'vitest';
import { BoundedEventStore } from '../../src/edges/mcp/event-store.js';

const msg = (n: number) => ({ jsonrpc: '2.0' as const, method: 'notifications/message', params: { n } });

async function replay(store: BoundedEventStore, after: string): Promise<unknown[]> {
  const out: unknown[] = [];
  await store.replayEventsAfter(after, { send: async (_id, m) => void out.push(m) });
  return out;
}

describe('BoundedEventStore stream bound', () => {
  it('keeps the streams written most recently, a stream written again counts as recent, and the rest are forgotten', async () => {
    const store = new BoundedEventStore(10, 3);
    const first = await store.storeEvent('get', msg(0)); // a long-lived GET stream
    const a = await store.storeEvent('post-a', msg(1));
    await store.storeEvent('post-b', msg(2));
    await store.storeEvent('get', msg(3)); // written again: now the most recent
    const c = await store.storeEvent('post-c', msg(4)); // a fourth stream: post-a, the least recent, goes
    await store.storeEvent('post-c', msg(5));
    expect(await replay(store, a)).toEqual([]);
    expect(await replay(store, first)).toEqual([msg(3)]);
    expect(await replay(store, c)).toEqual([msg(5)]);
  });

  it('after 20,000 streams (one per request) exactly the last 64 can still be replayed', async () => {
    const store = new BoundedEventStore(1000, 64);
    const firsts: string[] = [];
    for (let i = 0; i < 20_000; i++) {
      firsts.push(await store.storeEvent(`post-${i}`, msg(i)));
      await store.storeEvent(`post-${i}`, msg(-i)); // what a resume after the first event gets back
    }
    const replayable: number[] = [];
    for (let i = 0; i < firsts.length; i++) if ((await replay(store, firsts[i]!)).length > 0) replayable.push(i);
    expect(replayable).toEqual(Array.from({ length: 64 }, (_, k) => 20_000 - 64 + k));
  });
});
