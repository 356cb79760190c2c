/**
 * `chio acp proxy` spawned directly and driven with raw lines on its stdio (no SDK in front), for
 * malformed input and misbehaving agents. Every stdout line is kept verbatim; JSON ones parsed.
 */
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { CHIO_BIN } from './cli.js';
import { FIXTURE_AGENT, waitFor } from './acp-proxy-client.js';

export interface RawProxy {
  child: ChildProcessWithoutNullStreams;
  /** Everything the proxy wrote to stdout (the editor's side). */
  stdout: () => string;
  stderr: () => string;
  /** stdout lines parsed as JSON (a non-JSON line is kept as `{ unparsed: line }`). */
  messages: () => any[];
  send: (line: string | object) => void;
  /** Waits for a message from the proxy with this id. */
  response: (id: number | string) => Promise<any>;
  /** Sends a request and waits for its response. */
  request: (id: number, method: string, params: unknown) => Promise<any>;
  /** Closes the proxy's stdin and resolves with its exit code. */
  end: () => Promise<number | null>;
}

export function rawProxy(
  proxyArgs: string[],
  agent: string[] = [process.execPath, FIXTURE_AGENT],
  env: NodeJS.ProcessEnv = {},
): RawProxy {
  const child = spawn(process.execPath, [CHIO_BIN, 'acp', 'proxy', ...proxyArgs, '--', ...agent], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, FORCE_COLOR: '0', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  child.stdin.on('error', () => {});
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const messages = () =>
    stdout
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => {
        try {
          return JSON.parse(l);
        } catch {
          return { unparsed: l };
        }
      });
  const send = (line: string | object) =>
    void child.stdin.write(`${typeof line === 'string' ? line : JSON.stringify(line)}\n`);
  const response = (id: number | string) =>
    waitFor(() => messages().find((m) => m.id === id && ('result' in m || 'error' in m)), `the response to ${id}`);
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    messages,
    send,
    response,
    async request(id, method, params) {
      send({ jsonrpc: '2.0', id, method, params });
      return response(id);
    },
    async end() {
      child.stdin.end();
      return exited;
    },
  };
}

export const INIT_PARAMS = {
  protocolVersion: 1,
  clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
};

export const promptParams = (sessionId: string, steps: unknown[]) => ({
  sessionId,
  prompt: [{ type: 'text', text: JSON.stringify(steps) }],
});
