/**
 * Demo part 3: `chio acp proxy` between an editor and an ACP agent, both built with the real
 * @agentclientprotocol/sdk (the agent is the scripted fixture in test/fixtures/acp-agent.mjs).
 * The editor (this process) allows ./demo-workspace and `git`; the agent reads a file, tries
 * /etc/shadow, a path traversal and `rm -rf /`, runs `git status`, and reports one tool call.
 * Refusals never reach the editor; every refusal and tool-call event is a signed receipt.
 */
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import * as acp from '@agentclientprotocol/sdk';

const AGENT = fileURLToPath(new URL('../../../test/fixtures/acp-agent.mjs', import.meta.url));

export async function acpPart(options: { cli: string; db: string; seedFile: string }): Promise<string> {
  const workspace = resolve('./demo-workspace');
  const args = [
    options.cli,
    'acp',
    'proxy',
    '--receipt-db',
    options.db,
    '--kernel-seed-file',
    options.seedFile,
    '--allow-path',
    workspace,
    '--allow-command',
    'git',
    '--',
    process.execPath,
    AGENT,
  ];
  console.log(
    `$ chio acp proxy --receipt-db ${options.db} --kernel-seed-file ${options.seedFile} --allow-path ./demo-workspace --allow-command git -- <acp agent>`,
  );
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'ignore'] });
  const reached: string[] = [];
  let report: unknown[] | undefined;
  const conn = acp
    .client({ name: 'chio-demo-editor' })
    .onRequest('fs/read_text_file', (c) => {
      reached.push(`read ${c.params.path}`);
      return { content: '# demo workspace\n' };
    })
    .onRequest('terminal/create', (c) => {
      reached.push(`terminal ${c.params.command} ${(c.params.args ?? []).join(' ')}`);
      return { terminalId: 'term-1' };
    })
    .onNotification('session/update', (c) => {
      const u = c.params.update;
      if (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text')
        report = JSON.parse(u.content.text) as unknown[];
    })
    .connect(
      acp.ndJsonStream(
        Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
        Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
      ),
    );
  await conn.agent.request('initialize', {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: true }, terminal: true },
  });
  const { sessionId } = await conn.agent.request('session/new', { cwd: workspace, mcpServers: [] });
  const steps = [
    { read: { path: join(workspace, 'README.md') } },
    { read: { path: '/etc/shadow' } },
    { read: { path: `${workspace}/../../etc/passwd` } },
    { terminal: { command: 'rm', args: ['-rf', '/'] } },
    { terminal: { command: 'git', args: ['status'] } },
    {
      update: {
        sessionUpdate: 'tool_call',
        toolCallId: 'tc-1',
        title: 'Read README.md',
        kind: 'read',
        status: 'in_progress',
      },
    },
    { update: { sessionUpdate: 'tool_call_update', toolCallId: 'tc-1', status: 'completed' } },
  ];
  await conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: JSON.stringify(steps) }] });
  for (let i = 0; report === undefined && i < 100; i++) await new Promise((r) => setTimeout(r, 20));
  const labels = [
    'read README.md',
    'read /etc/shadow',
    'read ../../etc/passwd',
    'terminal rm -rf /',
    'terminal git status',
    'tool_call tc-1 in_progress',
    'tool_call tc-1 completed',
  ];
  (report ?? []).forEach((o, i) => {
    const r = o as { ok: boolean; message?: string };
    console.log(`  agent ${labels[i]!.padEnd(26)} ${r.ok ? 'forwarded' : `refused: ${r.message}`}`);
  });
  console.log(`  the editor saw only: ${reached.join('; ')}`);
  child.stdin.end();
  await new Promise((r) => child.once('exit', r));
  return sessionId;
}
