/**
 * Server-to-client messages of one Streamable HTTP session that belong with no client request —
 * the edge's own roots/list, and the upstream's requests and notifications while no client
 * request is in flight — go on the session's standalone GET stream (MCP basic/transports
 * §Listening for Messages from the Server). Until the client has opened that stream once, the SDK
 * transport only stores such a message for a replay the client cannot ask for (its first GET has
 * no Last-Event-ID), so the message would be lost: a filesystem server asking for roots right
 * after initialize would never get them. So they are held here, and sent when the GET stream first
 * opens or on the stream of the client's next request, whichever comes first. Once the stream has
 * opened, they go to the transport as they come (stored there for replay across reconnects).
 * Owns: that holding. Sends through a MessageSink (the transport, or held-answers.ts in front of it).
 */
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { MessageSink } from './held-answers.js';

/** Messages held at most; past it, newer ones are dropped (a session whose client never listens nor asks). */
export const MAX_HELD = 256;

export class StandaloneOutbox {
  private opened = false;
  private held: JSONRPCMessage[] = [];

  constructor(private readonly sink: MessageSink) {}

  /** Sends a message on the stream of `related`, on the standalone stream, or holds it (see the header). */
  send(message: JSONRPCMessage, related: RequestId | undefined): Promise<void> | void {
    if (related !== undefined) return this.sink.send(message, { relatedRequestId: related });
    if (this.opened) return this.sink.send(message);
    if (this.held.length < MAX_HELD) this.held.push(message);
  }

  /** The client's GET stream is open: what was held goes on it. */
  streamOpened(): void {
    this.opened = true;
    this.flush(undefined);
  }

  /** A client request arrived (its stream exists): what was held goes on it, unless the GET stream took it already. */
  requestArrived(id: RequestId): void {
    if (!this.opened) this.flush(id);
  }

  private flush(related: RequestId | undefined): void {
    const messages = this.held;
    this.held = [];
    for (const m of messages)
      void this.sink.send(m, related === undefined ? {} : { relatedRequestId: related }).catch(() => {});
  }
}
