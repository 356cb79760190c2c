// examples/governed_hello runs as documented: against a real `chio mcp serve-http --auth-token` in
// front of the real server-everything, it lists tools, makes a governed call and resolves that
// call's receipt from the audit API (CHIO_CONTROL_URL defaulting to CHIO_BASE_URL, or `chio
// serve`); without CHIO_BASE_URL or CHIO_AUTH_TOKEN it stops with a clear message (exit 2).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openLedger } from '../../src/ledger/index.js';
import { childProcesses } from '../helpers/children.js';
import { CHIO_BIN } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const require = createRequire(import.meta.url);
const EVERYTHING = join(
  require.resolve('@modelcontextprotocol/server-everything/package.json'),
  '..',
  'dist',
  'index.js',
);
const EXAMPLE = fileURLToPath(new URL('../../dist/examples/governed_hello/governed_hello.js', import.meta.url));
const TOKEN = 'demo-token-0123456789abcdef';
const children = childProcesses();
const started = async (args: string[], ready: RegExp) => (await children.start([CHIO_BIN, ...args], ready)).match[1]!;

const run = (env: Record<string, string>) => {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CHIO_'))) as Record<
    string,
    string
  >;
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [EXAMPLE], { env: { ...clean, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
};

describe('examples/governed_hello', () => {
  it('lists tools, calls echo, and resolves the receipt of that call from the edge itself and from chio serve', async () => {
    const db = join(tempDir(), 'hello.sqlite');
    const mcp = await started(
      [
        'mcp',
        'serve-http',
        '--listen',
        '127.0.0.1:0',
        '--receipt-db',
        db,
        '--server-id',
        'wrapped-everything',
        '--auth-token',
        TOKEN,
        '--',
        process.execPath,
        EVERYTHING,
        'stdio',
      ],
      /MCP over Streamable HTTP at (\S+)\/mcp/,
    );
    const r = await run({ CHIO_BASE_URL: mcp, CHIO_AUTH_TOKEN: TOKEN });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^tools: .*\becho\b/m);
    expect(r.stdout).toContain('echo: ok: [{"type":"text","text":"Echo: hello from governed_hello"}]');
    const m = /^receipt ([0-9a-f]{64}): allow at seq (\d+), verified by the service: true$/m.exec(r.stdout);
    expect(m, r.stdout).not.toBeNull();
    const ledger = openLedger(db, { readonly: true });
    try {
      expect(ledger.db.prepare('SELECT seq, tool_name FROM ledger_entries WHERE receipt_id = ?').get(m![1])).toEqual({
        seq: Number(m![2]),
        tool_name: 'echo',
      });
    } finally {
      ledger.close();
    }
    // The control URL may be a separate `chio serve` over the same ledger.
    const control = await started(
      ['serve', '--listen', '127.0.0.1:0', '--receipt-db', db, '--service-token', TOKEN],
      /audit API at (\S+)/,
    );
    const again = await run({
      CHIO_BASE_URL: mcp,
      CHIO_CONTROL_URL: control,
      CHIO_AUTH_TOKEN: TOKEN,
      CHIO_TOOL_ARGS: '{"message":"second"}',
    });
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/verified by the service: true$/m);
  });

  it('without CHIO_BASE_URL or CHIO_AUTH_TOKEN: exit 2 and a message naming what is missing', async () => {
    for (const [env, missing] of [
      [{ CHIO_AUTH_TOKEN: TOKEN }, 'CHIO_BASE_URL'],
      [{ CHIO_BASE_URL: 'http://127.0.0.1:9' }, 'CHIO_AUTH_TOKEN'],
    ] as const) {
      const r = await run(env);
      expect(r.status).toBe(2);
      expect(r.stderr).toContain(`governed_hello: ${missing} is not set`);
      expect(r.stdout).toBe('');
    }
  });
});
