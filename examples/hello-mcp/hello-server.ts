/**
 * hello-mcp's native tool server `hello-mcp-srv`: one tool, `hello_tool`, answering
 * {message: "hello from mcp, <name>", arguments}. Any other tool name fails closed.
 * Owns the tool's manifest and behaviour; imports only the kernel's types.
 */
import type { ToolServerConnection } from '../../src/index.js';

export const helloServer: ToolServerConnection = {
  manifest: {
    schema: 'chio.manifest.v1',
    server_id: 'hello-mcp-srv',
    name: 'hello-mcp',
    version: '1.0.0',
    tools: [
      {
        name: 'hello_tool',
        description: 'Return a greeting payload',
        input_schema: { type: 'object', properties: { name: { type: 'string' } } },
        output_schema: { type: 'object', properties: { message: { type: 'string' }, arguments: { type: 'object' } } },
        has_side_effects: false,
      },
    ],
  },
  async invoke(tool, args) {
    // Fail closed on a name this server never registered, even though the kernel routes only
    // registered tools: the server defends its own boundary (attacker-controlled name).
    if (tool !== 'hello_tool') throw new Error(`tool not registered: ${tool}`);
    const name = (args as { name?: unknown }).name;
    return { message: `hello from mcp, ${typeof name === 'string' ? name : 'world'}`, arguments: args };
  },
};
