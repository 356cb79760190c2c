/** An in-process tool server for ACP edge tests: `wait_tool` streams one chunk, then holds until its call is aborted. */
import type { InvokeContext, StreamChunk, ToolManifest, ToolServerConnection } from '../../src/kernel/index.js';

export class GateToolServer implements ToolServerConnection {
  readonly calls: string[] = [];
  /** Signals the server saw aborted. */
  readonly aborts: string[] = [];
  readonly manifest: ToolManifest = {
    schema: 'chio.manifest.v1',
    server_id: 'gate',
    name: 'gate',
    version: '1.0.0',
    tools: [
      {
        name: 'wait_tool',
        description: 'waits until cancelled',
        input_schema: { type: 'object', 'x-chio-streaming': true, 'x-chio-cancellation': true },
        has_side_effects: false,
      },
      { name: 'other_tool', description: 'answers at once', input_schema: { type: 'object' }, has_side_effects: false },
    ],
  };
  private started!: () => void;
  /** Resolves when `wait_tool` is running and holding. */
  holding = new Promise<void>((resolve) => (this.started = resolve));

  async invoke(tool: string): Promise<unknown> {
    this.calls.push(tool);
    return { tool };
  }

  async *invokeStream(tool: string, _args: unknown, context?: InvokeContext): AsyncIterable<StreamChunk> {
    this.calls.push(tool);
    yield { data: { first: tool } };
    if (tool !== 'wait_tool') return;
    const signal = context?.signal;
    if (signal === undefined) throw new Error('wait_tool needs an abort signal');
    this.started();
    await new Promise<void>((_, reject) => {
      const stop = () => {
        this.aborts.push(tool);
        reject(new Error('aborted by the signal'));
      };
      if (signal.aborted) stop();
      else signal.addEventListener('abort', stop, { once: true });
    });
  }
}
