// The documentation's smallest SDK program runs as written: the fenced block under "The smallest
// program" is taken from docs/audit-api.md, only its two URLs pointed at this test's ports (an edge in
// front of the real server-everything, and `chio serve` over the same ledger), and run by node
// from inside the package, so `@chio-protocol/sdk` resolves as a user's install does.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChioClient } from '../../src/sdk/index.js';
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
const children = childProcesses();

function readmeSnippet(): string {
  const readme = readFileSync('docs/audit-api.md', 'utf8');
  const at = readme.indexOf('The smallest program');
  expect(at).toBeGreaterThan(0);
  const block = /```ts\n([\s\S]*?)```/.exec(readme.slice(at));
  return block![1]!;
}

describe('the SDK snippet in docs/audit-api.md', () => {
  it('lists the tools and prints the totalCount of the receipts of the wrapped server, as written', async () => {
    const snippet = readmeSnippet();
    expect(snippet).toContain('from "@chio-protocol/sdk"');
    const db = join(tempDir(), 'snippet.sqlite');
    const edge = (
      await children.start(
        [
          CHIO_BIN,
          'mcp',
          'serve-http',
          '--listen',
          '127.0.0.1:0',
          '--receipt-db',
          db,
          '--server-id',
          'wrapped-http-mock',
          '--auth-token',
          'demo-token',
          '--',
          process.execPath,
          EVERYTHING,
          'stdio',
        ],
        /MCP over Streamable HTTP at (\S+)\/mcp/,
      )
    ).match[1]!;
    const control = (
      await children.start(
        [CHIO_BIN, 'serve', '--listen', '127.0.0.1:0', '--receipt-db', db, '--service-token', 'demo-token'],
        /audit API at (\S+)/,
      )
    ).match[1]!.replace(/\/$/, '');
    // Two governed calls first, so there are receipts to count.
    const session = await ChioClient.withStaticBearer(edge, 'demo-token').initialize();
    await session.callTool('echo', { message: 'one' });
    await session.callTool('echo', { message: 'two' });
    await session.close();

    const program = snippet.replace('http://127.0.0.1:8931', edge).replace('http://127.0.0.1:8940', control);
    mkdirSync('.artifacts', { recursive: true });
    const file = join('.artifacts', `docs-snippet-${process.pid}.mjs`);
    writeFileSync(file, program);
    // Inside the checkout, so that the snippet's `from 'chio'` resolves to this package; removed after.
    const r = spawnSync(process.execPath, [file], { encoding: 'utf8', timeout: 30_000 });
    rmSync(file, { force: true });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("name: 'echo'");
    const ledger = openLedger(db, { readonly: true });
    const count = (
      ledger.db.prepare("SELECT count(*) AS n FROM ledger_entries WHERE tool_server = 'wrapped-http-mock'").get() as {
        n: number;
      }
    ).n;
    ledger.close();
    expect(count).toBeGreaterThanOrEqual(2);
    expect(r.stdout.trim().split('\n').at(-1)).toBe(String(count));
  });
});
