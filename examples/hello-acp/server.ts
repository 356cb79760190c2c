/**
 * hello-acp's tool server, `hello-acp-srv`, with one tool, `hello_tool` (upstream's hello-acp):
 * the stream path yields `hello from acp, <name>` then `resume complete`; the blocking path
 * returns a JSON echo; any other tool name fails closed on both paths.
 */
import type { StreamChunk, ToolServerConnection } from '../../src/index.js';

export const SERVER_ID = 'hello-acp-srv';
export const TOOL = 'hello_tool';

/** Refuses any tool but hello_tool on both paths, even though the kernel routes only known tools. */
function known(tool: string): void {
  if (tool !== TOOL) throw new Error(`tool not registered: ${tool}`);
}

export const helloServer: ToolServerConnection = {
  manifest: {
    schema: 'chio.manifest.v1',
    server_id: SERVER_ID,
    name: 'Hello ACP Server',
    version: '0.1.0',
    tools: [
      {
        name: TOOL,
        description: 'Return a greeting payload',
        input_schema: {
          type: 'object',
          'x-chio-streaming': true,
          'x-chio-partial-output': true,
          'x-chio-cancellation': true,
        },
        has_side_effects: false,
      },
    ],
  },
  async invoke(tool, args) {
    known(tool);
    return { message: 'hello from acp', arguments: args };
  },
  async *invokeStream(tool, args): AsyncIterable<StreamChunk> {
    known(tool);
    const name = typeof (args as { name?: unknown })?.name === 'string' ? (args as { name: string }).name : 'world';
    yield { data: { content: [{ type: 'text', text: `hello from acp, ${name}` }] } };
    yield { data: { content: [{ type: 'text', text: 'resume complete' }] } };
  },
};
