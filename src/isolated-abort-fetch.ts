/**
 * A fetch for the MCP SDK's Streamable HTTP client transport that puts every request on an
 * AbortSignal of its own. The transport passes each request the one signal of its session, and
 * Node's fetch (undici) adds an abort listener to the signal it is given for every request,
 * dropped only when the request object is garbage-collected: a session making calls for hours
 * piled up thousands of listeners (memory held until a full GC, and a MaxListenersExceededWarning
 * on stderr every call past 1,500). Here each request gets a private controller, linked to the
 * session's signal by one listener that is removed as soon as the exchange is over: at once for a
 * response without a body or an unsuccessful one, else when its body has been read to the end,
 * failed or been cancelled, so closing the transport still aborts a stream being read (an SSE
 * response, the standalone GET). Used by the MCP edge's `--upstream-url` connection and by the SDK.
 * Owns: that link. Imports node: only.
 */

import { getMaxListeners, setMaxListeners } from 'node:events';

type Fetch = typeof fetch;

/**
 * The session's signal carries one link per request in flight, no more: past Node's default of
 * 10 listeners that is calls in flight, not a leak. A warning is kept for a thousand at once.
 */
const LINKS_BEFORE_WARNING = 1000;

/** Wraps `base` (default: the global fetch) so no request adds a listener to the caller's signal beyond its own lifetime. */
export function isolatedAbortFetch(base: Fetch = fetch): Fetch {
  return async (input, init) => {
    const shared = init?.signal ?? undefined;
    if (shared === undefined) return base(input, init);
    if (shared.aborted) return base(input, init); // rejects at once, as the caller expects
    if (getMaxListeners(shared) < LINKS_BEFORE_WARNING) setMaxListeners(LINKS_BEFORE_WARNING, shared);
    const own = new AbortController();
    const abort = () => own.abort(shared.reason);
    shared.addEventListener('abort', abort, { once: true });
    const unlink = () => shared.removeEventListener('abort', abort);
    let response: Response;
    try {
      response = await base(input, { ...init, signal: own.signal });
    } catch (e) {
      unlink();
      throw e;
    }
    if (response.body === null || !response.ok) {
      unlink();
      return response;
    }
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            unlink();
            controller.close();
          } else controller.enqueue(value);
        } catch (e) {
          unlink();
          controller.error(e);
        }
      },
      cancel(reason) {
        unlink();
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
