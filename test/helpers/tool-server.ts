/** A real in-process tool server for kernel tests: counts its invocations so a test can prove a tool never ran. */
import type { StreamChunk, ToolManifest, ToolServerConnection } from '../../src/kernel/index.js';

export class CountingToolServer implements ToolServerConnection {
  readonly calls: Array<{ tool: string; args: unknown }> = [];
  readonly manifest: ToolManifest = {
    schema: 'chio.manifest.v1',
    server_id: 'fs',
    name: 'test filesystem',
    version: '1.0.0',
    tools: [
      { name: 'read_file', description: 'read a file', input_schema: { type: 'object' }, has_side_effects: false },
      { name: 'hello_tool', description: 'say hello', input_schema: { type: 'object' }, has_side_effects: false },
      { name: 'fail_tool', description: 'always fails', input_schema: { type: 'object' }, has_side_effects: false },
      { name: 'count_tool', description: 'streams a count', input_schema: { type: 'object' }, has_side_effects: false },
    ],
  };

  async invoke(tool: string, args: unknown): Promise<unknown> {
    this.calls.push({ tool, args });
    if (tool === 'fail_tool') throw new Error('disk on fire');
    if (tool === 'hello_tool') return { message: `hello, ${(args as { name?: string }).name ?? 'world'}` };
    return { text: `contents of ${(args as { path?: string }).path}` };
  }

  async *invokeStream(tool: string, args: unknown): AsyncIterable<StreamChunk> {
    this.calls.push({ tool, args });
    for (let i = 1; i <= 3; i++) yield { data: { n: i } };
  }
}
