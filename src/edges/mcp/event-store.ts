/**
 * The replay buffer behind `GET /mcp` with `Last-Event-ID` (MCP Streamable HTTP resumability): the
 * last events of each stream, in memory, bounded, so a reconnecting client gets what it missed.
 * Every POST with a request opens a stream of its own, so streams are bounded too: past
 * `maxStreams` the one written least recently is forgotten, and a session's memory stays flat
 * however many requests it serves (a client resumes a stream soon after losing it).
 * Owns: event ids (`<stream>_<n>`) and eviction. Implements the SDK's EventStore contract.
 */
import type { EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export class BoundedEventStore implements EventStore {
  private readonly streams = new Map<string, Array<[string, JSONRPCMessage]>>();
  private next = 0;

  constructor(
    private readonly perStream = 1000,
    private readonly maxStreams = 64,
  ) {}

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const id = `${streamId}_${++this.next}`;
    const events = this.streams.get(streamId) ?? [];
    events.push([id, message]);
    if (events.length > this.perStream) events.shift();
    this.streams.delete(streamId); // re-inserted last: Map order is least recently written first
    this.streams.set(streamId, events);
    if (this.streams.size > this.maxStreams) this.streams.delete(this.streams.keys().next().value!);
    return id;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    const cut = eventId.lastIndexOf('_');
    return cut > 0 ? eventId.slice(0, cut) : undefined;
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const streamId = (await this.getStreamIdForEventId(lastEventId)) ?? '';
    const events = this.streams.get(streamId) ?? [];
    const at = events.findIndex(([id]) => id === lastEventId);
    for (const [id, message] of at < 0 ? [] : events.slice(at + 1)) await send(id, message);
    return streamId;
  }
}
