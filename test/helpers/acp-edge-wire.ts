/** The hello-acp edge as a real child process: driven by the ACP SDK client, or by raw lines; its ledger read from disk. */
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import * as acp from '@agentclientprotocol/sdk';
import Database from 'better-sqlite3';

export const HELLO_ACP_EDGE = fileURLToPath(new URL('../../dist/examples/hello-acp/edge.js', import.meta.url));

export const ledgerPath = (home: string) => join(home, '.state', 'receipts.sqlite');

function spawnEdge(home: string, session?: string): ChildProcessWithoutNullStreams {
  const env: NodeJS.ProcessEnv = { ...process.env, HELLO_ACP_HOME: home };
  if (session !== undefined) env.HELLO_ACP_SESSION = session;
  return spawn(process.execPath, [HELLO_ACP_EDGE, 'serve'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
}

export interface SdkEdge {
  conn: acp.ClientConnection;
  /** A custom ACP method through the SDK's generic `request<Response>(method, params)`. */
  call: <T = any>(method: string, params: unknown) => Promise<T>;
  /** The JSON-RPC error the SDK rejects with (`code`, `message`); fails the test if the call succeeds. */
  fail: (method: string, params: unknown) => Promise<{ code: number; message: string }>;
  stderr: () => string;
  /** Closes the client and the edge's stdin; resolves with the edge's exit code. */
  close: () => Promise<number | null>;
}

export function sdkEdge(home: string, session: string): SdkEdge {
  const child = spawnEdge(home, session);
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const stream = acp.ndJsonStream(
    Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout) as unknown as ReadableStream<Uint8Array>,
  );
  const conn = acp.client({ name: 'chio-acp-edge-test' }).connect(stream);
  const call = <T = any>(method: string, params: unknown) => conn.agent.request<T>(method, params);
  return {
    conn,
    call,
    async fail(method, params) {
      const outcome = await call(method, params).then(
        (result) => ({ resolved: result }),
        (e: unknown) => ({ rejected: e as { code: number; message: string } }),
      );
      if ('resolved' in outcome) throw new Error(`${method} succeeded: ${JSON.stringify(outcome.resolved)}`);
      return { code: outcome.rejected.code, message: outcome.rejected.message };
    },
    stderr: () => stderr,
    async close() {
      conn.close();
      child.stdin.end();
      return exited;
    },
  };
}

/** Writes raw lines to a fresh edge, closes its stdin, and collects every response line until it exits. */
export function rawEdge(
  home: string,
  lines: string[],
): Promise<{ code: number | null; responses: any[]; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawnEdge(home);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({
        code,
        stdout,
        stderr,
        responses: stdout
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l)),
      }),
    );
    for (const l of lines) child.stdin.write(`${l}\n`);
    child.stdin.end();
  });
}

/** Ledger rows on disk, read through a separate read-only connection (the edge may still be running). */
export function ledgerRows(db: string): Array<{ seq: number; receipt_id: string; session_id: string | null }> {
  const conn = new Database(db, { readonly: true, fileMustExist: true });
  try {
    return conn.prepare('SELECT seq, receipt_id, session_id FROM ledger_entries ORDER BY seq').all() as Array<{
      seq: number;
      receipt_id: string;
      session_id: string | null;
    }>;
  } finally {
    conn.close();
  }
}
