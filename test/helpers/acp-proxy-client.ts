/**
 * `chio acp proxy` as a real child process (the built CLI) with the scripted SDK fixture agent
 * behind it, driven by a real ACP SDK client in front. The client records every agent request
 * that reached it (so a test can assert a refused request was never forwarded), every
 * session/update in arrival order, and executes fs requests against the real filesystem.
 */
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import * as acp from '@agentclientprotocol/sdk';
import type { TerminalRunner } from './acp-terminal-runner.js';
import { CHIO_BIN } from './cli.js';

export const FIXTURE_AGENT = fileURLToPath(new URL('../fixtures/acp-agent.mjs', import.meta.url));

/** One step's outcome as the fixture agent reports it. */
export type StepOutcome = { ok: true; result: any } | { ok: false; code: number | null; message: string };

export interface ProxyClient {
  conn: acp.ClientConnection;
  child: ChildProcessWithoutNullStreams;
  /** Agent requests that reached the client, in order. */
  seen: Array<{ method: string; params: any }>;
  /** Every session/update the client received, in order. */
  updates: Array<{ sessionId: string; update: any }>;
  stderr: () => string;
  /** Holds session/request_permission answers until `release()` is called (when set). */
  holdPermissions: boolean;
  releasePermissions: () => void;
  newSession: () => Promise<string>;
  /** Sends session/prompt with these steps and resolves with every step's outcome (after the final chunk arrived). */
  prompt: (sessionId: string, steps: unknown[]) => Promise<StepOutcome[]>;
  methods: () => string[];
  close: () => Promise<number | null>;
}

export async function waitFor<T>(probe: () => T | undefined | false, what: string, timeoutMs = 10_000): Promise<T> {
  const start = Date.now();
  for (;;) {
    const v = probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** `terminals`: the editor really runs the terminals that reach it (otherwise it only records them). */
export function startProxyClient(
  proxyArgs: string[],
  agentArgs: string[] = [],
  options: { terminals?: TerminalRunner } = {},
): ProxyClient {
  const child = spawn(
    process.execPath,
    [CHIO_BIN, 'acp', 'proxy', ...proxyArgs, '--', process.execPath, FIXTURE_AGENT, ...agentArgs],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, FORCE_COLOR: '0' },
    },
  );
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const seen: ProxyClient['seen'] = [];
  const updates: ProxyClient['updates'] = [];
  const held: Array<() => void> = [];
  let terminals = 0;
  const record = (method: string, params: any) => void seen.push({ method, params });
  const self: Partial<ProxyClient> = { holdPermissions: false };
  const app = acp
    .client({ name: 'chio-acp-proxy-test' })
    .onRequest('fs/read_text_file', (c) => {
      record('fs/read_text_file', c.params);
      return { content: readFileSync(c.params.path, 'utf8') };
    })
    .onRequest('fs/write_text_file', (c) => {
      record('fs/write_text_file', c.params);
      writeFileSync(c.params.path, c.params.content);
      return {};
    })
    .onRequest('terminal/create', (c) => {
      record('terminal/create', c.params);
      if (options.terminals) return options.terminals.create(c.params);
      return { terminalId: `term-${++terminals}` };
    })
    .onRequest('terminal/output', (c) => {
      record('terminal/output', c.params);
      if (options.terminals) return options.terminals.output(c.params.terminalId);
      return { output: 'compiled', truncated: false };
    })
    .onRequest('terminal/wait_for_exit', (c) => {
      record('terminal/wait_for_exit', c.params);
      if (options.terminals) return options.terminals.waitForExit(c.params.terminalId);
      return { exitCode: 0 };
    })
    .onRequest('terminal/kill', (c) => {
      record('terminal/kill', c.params);
      return {};
    })
    .onRequest('terminal/release', (c) => {
      record('terminal/release', c.params);
      return {};
    })
    .onRequest('session/request_permission', async (c) => {
      record('session/request_permission', c.params);
      if (self.holdPermissions) await new Promise<void>((r) => held.push(r));
      return { outcome: { outcome: 'selected', optionId: c.params.options[0]!.optionId } };
    })
    .onNotification('session/update', (c) => {
      updates.push({ sessionId: c.params.sessionId, update: c.params.update });
    });
  const conn = app.connect(
    acp.ndJsonStream(
      Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout) as unknown as ReadableStream<Uint8Array>,
    ),
  );
  let initialized: Promise<unknown> | undefined;
  return Object.assign(self, {
    conn,
    child,
    seen,
    updates,
    stderr: () => stderr,
    releasePermissions: () => held.splice(0).forEach((r) => r()),
    methods: () => seen.map((s) => s.method),
    async newSession() {
      initialized ??= conn.agent.request('initialize', {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
      });
      await initialized;
      const s = await conn.agent.request('session/new', { cwd: '/', mcpServers: [] });
      return s.sessionId;
    },
    async prompt(sessionId: string, steps: unknown[]) {
      const from = updates.length;
      const r = await conn.agent.request('session/prompt', {
        sessionId,
        prompt: [{ type: 'text', text: JSON.stringify(steps) }],
      });
      if (r.stopReason !== 'end_turn') throw new Error(`prompt stopped: ${r.stopReason}`);
      const chunk = await waitFor(
        () =>
          updates
            .slice(from)
            .find((u) => u.sessionId === sessionId && u.update.sessionUpdate === 'agent_message_chunk'),
        'the final agent_message_chunk',
      );
      return JSON.parse(chunk.update.content.text) as StepOutcome[];
    },
    async close() {
      self.releasePermissions!();
      child.stdin.end();
      return exited;
    },
  }) as ProxyClient;
}
