// The hostile and harmless corpora through the real `chio mcp serve` (a child process) in front of a
// real MCP server that records every call it receives, driven by the real MCP SDK client: every
// hostile call is denied with a signed deny receipt naming the guard and never reaches the
// upstream; every harmless call reaches it and is allowed. The ledger verifies under the kernel key.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createCorpusWorkspace,
  HARMLESS_CORPUS,
  HOSTILE_CORPUS,
  materialize,
} from '../../src/kernel/guards/corpus/index.js';
import { openLedger, verifyChain } from '../../src/ledger/index.js';
import { chio } from '../helpers/cli.js';
import { connectGovernedMcp } from '../helpers/mcp-serve.js';
import { tempDir } from '../helpers/tmp.js';

const CORPUS_SERVER = new URL('../helpers/corpus-mcp-server.mjs', import.meta.url).pathname;

const dir = tempDir();
const ws = join(dir, 'ws');
const log = join(dir, 'upstream-calls.jsonl');
const db = join(dir, 'receipts.sqlite');
const seed = join(dir, 'kernel.seed');
const pub = join(dir, 'kernel.pub');
let client: Client;

// Cases that need "no base" cannot arise behind a local upstream (its working directory is one);
// they are judged in test/kernel/guard-corpus.test.ts and through `chio check`.
const hostile = HOSTILE_CORPUS.filter((c) => c.noBase !== true);

type ToolResult = {
  isError?: boolean;
  content: Array<{ text: string }>;
  _meta?: Record<string, { id: string; decision: string }>;
};

beforeAll(async () => {
  mkdirSync(ws);
  createCorpusWorkspace(ws);
  writeFileSync(log, '');
  expect(chio(['keys', 'generate', '--out', seed, '--pub-out', pub]).status).toBe(0);
  // Started in the workspace: the upstream's working directory is the base for relative paths.
  client = await connectGovernedMcp(
    { db, seedFile: seed, serverId: 'corpus', upstream: [process.execPath, CORPUS_SERVER, log], cwd: ws },
    'corpus-test',
  );
});

afterAll(async () => {
  await client?.close();
});

const upstreamCalls = () =>
  readFileSync(log, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { tool: string; arguments: unknown });

describe('the guard corpora through chio mcp serve', () => {
  it(`denies each of the ${hostile.length} hostile calls by the guard named, with a signed deny receipt, and the upstream never sees one`, async () => {
    const wrong: string[] = [];
    for (const c of hostile) {
      const r = (await client.callTool({
        name: c.tool,
        arguments: materialize(c, ws) as Record<string, unknown>,
      })) as ToolResult;
      const receipt = r._meta?.['chio/receipt'];
      if (r.isError !== true || receipt?.decision !== 'deny' || !r.content[0]!.text.endsWith(`(${c.guard})`))
        wrong.push(`${c.id}: ${JSON.stringify(r)}`);
    }
    expect(wrong).toEqual([]);
    expect(upstreamCalls()).toEqual([]);
  });

  it(`allows each of the ${HARMLESS_CORPUS.length} harmless calls, which reach the upstream as sent`, async () => {
    const before = upstreamCalls().length;
    const wrong: string[] = [];
    for (const c of HARMLESS_CORPUS) {
      const r = (await client.callTool({
        name: c.tool,
        arguments: materialize(c, ws) as Record<string, unknown>,
      })) as ToolResult;
      if (r.isError === true || r._meta?.['chio/receipt']?.decision !== 'allow')
        wrong.push(`${c.id}: ${JSON.stringify(r)}`);
    }
    expect(wrong).toEqual([]);
    expect(upstreamCalls().slice(before)).toEqual(
      HARMLESS_CORPUS.map((c) => ({ tool: c.tool, arguments: materialize(c, ws) })),
    );
  });

  it('the ledger holds one verified receipt per call, each deny naming its guard in the decision and the evidence', () => {
    const ledger = openLedger(db, { readonly: true });
    try {
      expect(verifyChain(ledger)).toMatchObject({ ok: true, entries: hostile.length + HARMLESS_CORPUS.length });
      const bodies = (
        ledger.db.prepare('SELECT body FROM ledger_entries ORDER BY seq').all() as Array<{ body: string }>
      ).map(
        (r) =>
          JSON.parse(r.body) as {
            tool_name: string;
            decision: { verdict: string; guard?: string };
            evidence?: Array<{ guard_name: string; verdict: boolean }>;
          },
      );
      hostile.forEach((c, i) => {
        expect(bodies[i], c.id).toMatchObject({ tool_name: c.tool, decision: { verdict: 'deny', guard: c.guard } });
        expect(bodies[i]!.evidence?.at(-1), c.id).toEqual(
          expect.objectContaining({ guard_name: c.guard, verdict: false }),
        );
      });
      HARMLESS_CORPUS.forEach((c, i) =>
        expect(bodies[hostile.length + i], c.id).toMatchObject({ tool_name: c.tool, decision: { verdict: 'allow' } }),
      );
    } finally {
      ledger.close();
    }
    const verify = chio(['ledger', 'verify', '--receipt-db', db, '--trusted-kernel-pubkey', pub]);
    expect(verify.stdout).toMatch(/^OK: /);
    expect(verify.status).toBe(0);
  });
});
