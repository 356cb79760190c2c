// examples/hello-acp's tool server: the blocking path echoes, the stream path yields the two
// documented chunks, and any other tool name fails closed on both paths (before any output).
import { describe, expect, it } from 'vitest';
import { helloServer, SERVER_ID, TOOL } from '../../examples/hello-acp/server.js';

async function collect(iterable: AsyncIterable<{ data: unknown }>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const chunk of iterable) out.push(chunk.data);
  return out;
}

describe('hello-acp-srv', () => {
  it('publishes hello_tool with the three hints, no side effects', () => {
    expect(helloServer.manifest.server_id).toBe(SERVER_ID);
    expect(helloServer.manifest.tools.map((t) => t.name)).toEqual([TOOL]);
    expect(helloServer.manifest.tools[0]).toMatchObject({
      has_side_effects: false,
      input_schema: { 'x-chio-streaming': true, 'x-chio-partial-output': true, 'x-chio-cancellation': true },
    });
  });

  it('blocking path: a JSON echo of the arguments', async () => {
    await expect(helloServer.invoke(TOOL, { name: 'ada', n: 1 })).resolves.toEqual({
      message: 'hello from acp',
      arguments: { name: 'ada', n: 1 },
    });
  });

  it('stream path: "hello from acp, <name>" then "resume complete" (name defaults to world)', async () => {
    const text = (chunks: unknown[]) => chunks.map((c) => (c as { content: Array<{ text: string }> }).content[0]!.text);
    expect(text(await collect(helloServer.invokeStream!(TOOL, { name: 'ada' })))).toEqual([
      'hello from acp, ada',
      'resume complete',
    ]);
    expect(text(await collect(helloServer.invokeStream!(TOOL, {})))).toEqual([
      'hello from acp, world',
      'resume complete',
    ]);
  });

  it('any other tool name fails closed on both paths', async () => {
    await expect(helloServer.invoke('not_hello_tool', {})).rejects.toThrow('tool not registered: not_hello_tool');
    await expect(collect(helloServer.invokeStream!('not_hello_tool', {}))).rejects.toThrow(
      'tool not registered: not_hello_tool',
    );
  });
});
