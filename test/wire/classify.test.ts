/**
 * One parsed JSON-RPC 2.0 message, classified as every line-based peer sees it (MCP edge, ACP edge,
 * ACP proxy). An invalid message is answered with its own id when it carries a usable one (a
 * string or a safe integer) and with null otherwise, so a hostile peer cannot make an error
 * answer a different request.
 */
import { describe, expect, it } from 'vitest';
import { classify } from '../../src/wire/index.js';

describe('classify', () => {
  it('a request, a notification and a response are told apart and kept as sent', () => {
    expect(classify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { a: 1 } })).toEqual({
      kind: 'request',
      message: { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { a: 1 } },
    });
    expect(classify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's' } })).toEqual({
      kind: 'notification',
      message: { jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's' } },
    });
    expect(classify({ jsonrpc: '2.0', id: 'x', result: {} })).toMatchObject({ kind: 'response' });
  });

  it('an invalid request is answered with its own id; an id that is no string or safe integer becomes null', () => {
    expect(classify({ jsonrpc: '2.0', id: 'req-1', method: '' })).toMatchObject({ kind: 'invalid', id: 'req-1' });
    expect(classify({ jsonrpc: '1.0', id: 3, method: 'm' })).toMatchObject({ kind: 'invalid', id: 3 });
    expect(classify({ jsonrpc: '2.0', id: 1.5, method: 'm' })).toMatchObject({ kind: 'invalid', id: null });
    expect(classify({ jsonrpc: '2.0', id: 2 ** 60, method: 'm' })).toMatchObject({ kind: 'invalid', id: null });
    expect(classify({ jsonrpc: '2.0', id: { x: 1 }, method: 'm' })).toMatchObject({ kind: 'invalid', id: null });
  });

  it('an invalid notification has no id to answer; a response with both result and error keeps its id', () => {
    expect(classify({ jsonrpc: '2.0', method: 'm', params: [1] })).toEqual({
      kind: 'invalid',
      id: null,
      reason: 'not a valid JSON-RPC 2.0 notification',
    });
    expect(classify({ jsonrpc: '2.0', id: 9, result: 1, error: {} })).toMatchObject({ kind: 'invalid', id: 9 });
    expect(classify({ jsonrpc: '2.0', id: 9 })).toMatchObject({ kind: 'invalid', id: 9 });
  });

  it('batches and non-objects are invalid with no id', () => {
    expect(classify([{ jsonrpc: '2.0', id: 1, method: 'm' }], { batchReason: 'no batches' })).toEqual({
      kind: 'invalid',
      id: null,
      reason: 'no batches',
    });
    expect(classify('text')).toMatchObject({ kind: 'invalid', id: null });
    expect(classify(null)).toMatchObject({ kind: 'invalid', id: null });
  });
});
