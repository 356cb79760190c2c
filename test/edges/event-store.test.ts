// The Last-Event-ID replay buffer: a reconnecting client gets exactly the events after the one it saw, per stream, within the bound.
import { describe, expect, it } from 'vitest';
import { BoundedEventStore } from '../../src/edges/mcp/event-store.js';

const msg = (n: number) => ({ jsonrpc: '2.0' as const, method: 'notifications/message', params: { n } });

describe('BoundedEventStore', () => {
  it('replays the events after the last one seen, on that stream only, in order', async () => {
    const store = new BoundedEventStore();
    const a = [
      await store.storeEvent('s1', msg(1)),
      await store.storeEvent('s1', msg(2)),
      await store.storeEvent('s1', msg(3)),
    ];
    await store.storeEvent('s2', msg(99));
    const replayed: unknown[] = [];
    const stream = await store.replayEventsAfter(a[0]!, { send: async (_id, m) => void replayed.push(m) });
    expect(stream).toBe('s1');
    expect(replayed).toEqual([msg(2), msg(3)]);
  });

  it('forgets the oldest events past its bound, and an unknown id replays nothing', async () => {
    const store = new BoundedEventStore(2);
    const ids = [];
    for (let i = 1; i <= 4; i++) ids.push(await store.storeEvent('s', msg(i)));
    const replayed: unknown[] = [];
    await store.replayEventsAfter(ids[2]!, { send: async (_id, m) => void replayed.push(m) });
    expect(replayed).toEqual([msg(4)]);
    const none: unknown[] = [];
    await store.replayEventsAfter(ids[0]!, { send: async (_id, m) => void none.push(m) });
    expect(none).toEqual([]);
  });
});
