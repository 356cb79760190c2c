/**
 * Demo part 1: `chio mcp serve` in front of a real MCP server from npm
 * (@modelcontextprotocol/server-filesystem over ./demo-workspace), driven by the real MCP SDK
 * client exactly as an IDE or agent would: list the tools, make an allowed and a denied call.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const require = createRequire(import.meta.url);

export async function mcpPart(options: { cli: string; db: string; seedFile: string }): Promise<void> {
  const workspace = resolve('./demo-workspace');
  mkdirSync(workspace, { recursive: true });
  writeFileSync(join(workspace, 'README.md'), '# demo workspace\nA file the agent may read.\n');
  writeFileSync(join(workspace, '.env'), 'DATABASE_PASSWORD=hunter2\n');
  const server = join(
    require.resolve('@modelcontextprotocol/server-filesystem/package.json'),
    '..',
    'dist',
    'index.js',
  );
  const args = [
    options.cli,
    'mcp',
    'serve',
    '--receipt-db',
    options.db,
    '--kernel-seed-file',
    options.seedFile,
    '--server-id',
    'filesystem',
    '--',
    process.execPath,
    server,
    workspace,
  ];
  console.log(
    `$ chio mcp serve --receipt-db ${options.db} --kernel-seed-file ${options.seedFile} --server-id filesystem -- mcp-server-filesystem ./demo-workspace`,
  );
  const client = new Client({ name: 'chio-demo', version: '1.0.0' }, { capabilities: {} });
  await client.connect(new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' }));
  const { tools } = await client.listTools();
  console.log(
    `  tools/list: ${tools.length} tools (${tools
      .slice(0, 4)
      .map((t) => t.name)
      .join(', ')}, …)`,
  );
  for (const path of [join(workspace, 'README.md'), join(workspace, '.env')]) {
    const r = await client.callTool({ name: 'read_text_file', arguments: { path } });
    const receipt = (r._meta as Record<string, { id: string; decision: string }>)['chio/receipt']!;
    const text = (r.content as Array<{ text?: string }>)[0]?.text ?? '';
    console.log(
      `  read_text_file ${path.replace(process.cwd(), '.')}: ${receipt.decision.padEnd(5)} receipt ${receipt.id.slice(0, 16)}…  ${r.isError === true ? text : JSON.stringify(text.split('\n')[0])}`,
    );
  }
  await client.close();
}
