// `chio mcp serve` governs resources/read, resources/subscribe and prompts/get like tool calls: the
// kernel judges them (capability, path/egress/secret guards) on the upstream's server id with the
// method as the tool name, signs a receipt either way, and a denied one never reaches the upstream.
// Through the built CLI, a real SDK upstream that logs every request it gets, and the real SDK client.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashCanonical } from '../../src/crypto/index.js';
import { openLedger } from '../../src/ledger/index.js';
import { chio } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { governedMcpTransport } from '../helpers/mcp-serve.js';

const SERVER = fileURLToPath(new URL('../helpers/resource-mcp-server.mjs', import.meta.url));
const dir = tempDir();
const ws = tempDir('chio-ws-');
const seed = join(dir, 'kernel.seed');
const pub = join(dir, 'kernel.pub');

async function connect(transport: StdioClientTransport): Promise<Client> {
  const client = new Client({ name: 'chio-test', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  return client;
}
const upstream = (log: string) => [process.execPath, SERVER, log];
const edge = (db: string, log: string, policy?: string) =>
  governedMcpTransport({
    db,
    seedFile: seed,
    serverId: 'res',
    flags: [...(policy === undefined ? [] : ['--policy', policy])],
    upstream: [...upstream(log)],
  });
const asked = (log: string): Array<Record<string, unknown>> =>
  existsSync(log)
    ? readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l))
    : [];
const fileUri = (path: string) => `file://${path}`;
async function rpcError(p: Promise<unknown>): Promise<McpError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(McpError);
  return e as McpError;
}

describe('chio mcp serve: resources/read, resources/subscribe and prompts/get are governed and receipted', () => {
  const db = join(dir, 'edge.sqlite');
  const log = join(dir, 'edge.log');
  const directLog = join(dir, 'direct.log');
  let client: Client;
  let direct: Client;

  beforeAll(async () => {
    expect(chio(['keys', 'generate', '--out', seed, '--pub-out', pub]).status).toBe(0);
    writeFileSync(join(ws, '.env'), `AWS_SECRET_ACCESS_KEY=${'x'.repeat(40)}\n`);
    writeFileSync(join(ws, 'notes.txt'), 'plain notes\nline two\n');
    client = await connect(edge(db, log));
    direct = await connect(
      new StdioClientTransport({ command: process.execPath, args: [SERVER, directLog], stderr: 'pipe' }),
    );
  });
  afterAll(async () => {
    await client?.close();
    await direct?.close();
  });

  it('a read of <ws>/.env is denied by forbidden-path as a JSON-RPC error with its receipt; the upstream is never asked', async () => {
    const e = await rpcError(client.readResource({ uri: fileUri(join(ws, '.env')) }));
    expect(e.code).toBe(-32602);
    expect(e.message).toMatch(/denied: .*\(forbidden-path\)/);
    expect(e.data).toMatchObject({ decision: 'deny', guard: 'forbidden-path', 'chio/receipt': { decision: 'deny' } });
    expect(asked(log)).toEqual([]);
  });

  it('a read of an ordinary file is allowed: the same contents as a direct read, and an allow receipt over exactly them', async () => {
    const uri = fileUri(join(ws, 'notes.txt'));
    const viaEdge = await client.readResource({ uri });
    const viaDirect = await direct.readResource({ uri });
    const { _meta, ...result } = viaEdge;
    expect(result).toEqual(viaDirect);
    expect(result.contents[0]).toMatchObject({ text: 'plain notes\nline two\n' });
    expect(_meta).toMatchObject({ 'chio/receipt': { decision: 'allow' } });
    expect(asked(log)).toEqual([{ method: 'resources/read', uri }]);
    const ledger = openLedger(db, { readonly: true });
    try {
      const body = JSON.parse(
        (
          ledger.db
            .prepare("SELECT body FROM ledger_entries WHERE kind = 'receipt' ORDER BY seq DESC LIMIT 1")
            .get() as { body: string }
        ).body,
      );
      expect(body).toMatchObject({
        tool_server: 'res',
        tool_name: 'resources/read',
        decision: { verdict: 'allow' },
        action: { parameters: { uri } },
      });
      expect(body.content_hash).toBe(hashCanonical(result));
      expect(body.id).toBe((_meta as Record<string, { id: string }>)['chio/receipt']!.id);
    } finally {
      ledger.close();
    }
  });

  it('a read of the cloud metadata address is denied by the network guards; the upstream is never asked', async () => {
    const before = asked(log).length;
    const e = await rpcError(
      client.readResource({ uri: 'http://169.254.169.254/latest/meta-data/iam/security-credentials/' }),
    );
    expect(e.code).toBe(-32602);
    expect((e.data as { guard: string }).guard).toMatch(/internal-network|egress/);
    expect(asked(log)).toHaveLength(before);
  });

  it("an opaque-scheme URI (the server's own namespace) is not egress: note://box/readme is read; note://box/.env is still a forbidden path", async () => {
    const read = await client.readResource({ uri: 'note://box/readme' });
    expect(read.contents[0]).toMatchObject({ text: 'note note://box/readme' });
    const e = await rpcError(client.readResource({ uri: 'note://box/.env' }));
    expect(e.data).toMatchObject({ decision: 'deny', guard: 'forbidden-path' });
    expect(asked(log).filter((a) => String(a.uri).startsWith('note:'))).toEqual([
      { method: 'resources/read', uri: 'note://box/readme' },
    ]);
  });

  it('an upstream error keeps its code and message; its receipt is incomplete', async () => {
    const uri = fileUri(join(ws, 'missing.txt'));
    const viaEdge = await rpcError(client.readResource({ uri }));
    const viaDirect = await rpcError(direct.readResource({ uri }));
    expect([viaEdge.code, viaEdge.message]).toEqual([viaDirect.code, viaDirect.message]);
    expect(viaEdge.data).toMatchObject({ 'chio/receipt': { decision: 'incomplete' } });
  });

  it('subscribing to <ws>/.env is denied; subscribing to an ordinary file reaches the upstream', async () => {
    const e = await rpcError(client.subscribeResource({ uri: fileUri(join(ws, '.env')) }));
    expect(e.data).toMatchObject({ decision: 'deny', guard: 'forbidden-path' });
    expect(asked(log).some((a) => a.method === 'resources/subscribe')).toBe(false);
    const ok = await client.subscribeResource({ uri: fileUri(join(ws, 'notes.txt')) });
    expect(ok._meta).toMatchObject({ 'chio/receipt': { decision: 'allow' } });
    expect(asked(log).filter((a) => a.method === 'resources/subscribe')).toEqual([
      { method: 'resources/subscribe', uri: fileUri(join(ws, 'notes.txt')) },
    ]);
  });

  it('prompts/get with /etc/shadow or a destructive shell command in an argument is denied; the upstream is never asked', async () => {
    for (const [topic, guard] of [
      ['/etc/shadow', 'forbidden-path'],
      ['rm -rf / --no-preserve-root', 'shell-command'],
    ]) {
      const e = await rpcError(client.getPrompt({ name: 'review', arguments: { topic: topic! } }));
      expect(e.code, topic).toBe(-32602);
      expect(e.data, topic).toMatchObject({ decision: 'deny', guard });
    }
    expect(asked(log).some((a) => a.method === 'prompts/get')).toBe(false);
  });

  it('a benign prompt is allowed and identical to the direct answer', async () => {
    const viaEdge = await client.getPrompt({ name: 'review', arguments: { topic: 'the release notes' } });
    const viaDirect = await direct.getPrompt({ name: 'review', arguments: { topic: 'the release notes' } });
    const { _meta, ...result } = viaEdge;
    expect(result).toEqual(viaDirect);
    expect(_meta).toMatchObject({ 'chio/receipt': { decision: 'allow' } });
    expect(asked(log).filter((a) => a.method === 'prompts/get')).toEqual([
      { method: 'prompts/get', topic: 'the release notes' },
    ]);
  });

  it("the pseudo-tools are not tools: tools/list shows only the upstream's own tools", async () => {
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo']);
  });

  it('every request left one receipt, nothing is left reserved, and chio ledger verify accepts the ledger', async () => {
    await client.close();
    const ledger = openLedger(db, { readonly: true });
    try {
      const bodies = (
        ledger.db.prepare("SELECT body FROM ledger_entries WHERE kind = 'receipt' ORDER BY seq").all() as Array<{
          body: string;
        }>
      ).map((b) => JSON.parse(b.body));
      expect(bodies.map((b) => `${b.tool_name} ${b.decision.verdict}`)).toEqual([
        'resources/read deny',
        'resources/read allow',
        'resources/read deny',
        'resources/read allow',
        'resources/read deny',
        'resources/read incomplete',
        'resources/subscribe deny',
        'resources/subscribe allow',
        'prompts/get deny',
        'prompts/get deny',
        'prompts/get allow',
      ]);
      expect(ledger.db.prepare('SELECT count(*) AS n FROM pending_calls').get()).toEqual({ n: 0 });
    } finally {
      ledger.close();
    }
    const verify = chio(['ledger', 'verify', '--receipt-db', db, '--trusted-kernel-pubkey', pub]);
    expect(verify.stdout).toMatch(/^OK: /);
    expect(verify.status).toBe(0);
  });
});

describe('chio mcp serve: a capability that grants specific tools does not grant the governed methods', () => {
  it('with default_grants naming only the echo tool, resources/read and prompts/get are denied by the capability and never relayed; echo still runs', async () => {
    const db = join(dir, 'narrow.sqlite');
    const log = join(dir, 'narrow.log');
    const policy = join(dir, 'narrow.yaml');
    writeFileSync(policy, 'default_grants:\n  - server_id: res\n    tool_name: echo\n    operations: [invoke]\n');
    const client = await connect(edge(db, log, policy));
    try {
      const read = await rpcError(client.readResource({ uri: fileUri(join(ws, 'notes.txt')) }));
      expect(read.data).toMatchObject({ decision: 'deny', guard: 'capability' });
      const prompt = await rpcError(client.getPrompt({ name: 'review', arguments: { topic: 'anything' } }));
      expect(prompt.data).toMatchObject({ decision: 'deny', guard: 'capability' });
      const echo = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
      expect(echo.isError).not.toBe(true);
    } finally {
      await client.close();
    }
    expect(asked(log)).toEqual([]);
  });
});
