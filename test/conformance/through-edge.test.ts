// The official MCP conformance suite through Chio's MCP edge: `chio mcp serve-http` in front of the
// reference server (test/helpers/conformance-server.mjs), once with the reference server as a stdio
// upstream (a process per edge session) and once as a Streamable HTTP upstream (`--upstream-url`).
// Every scenario the suite passes directly against the reference server must pass through the
// edge, scenario by scenario; the calls the suite makes leave receipts that verify.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLedger, verifyChain } from '../../src/ledger/index.js';
import { listServerScenarios, runServerSuite, type ScenarioResult } from '../helpers/conformance.js';
import { startHttpEdge, type RunningEdge } from '../helpers/http-edge.js';
import { tempDir } from '../helpers/tmp.js';

const SERVER = fileURLToPath(new URL('../helpers/conformance-server.mjs', import.meta.url));
const scenarios = listServerScenarios();
const dir = tempDir();

function startReference(): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SERVER, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /^listening (http:\/\/\S+)$/m.exec(out);
      if (m) resolve({ child, url: m[1]! });
    });
    child.on('exit', (code) => reject(new Error(`conformance server exited ${code} before listening`)));
  });
}

const failures = (r: ScenarioResult | undefined) => (r === undefined ? 'not run' : r.failures.join('; '));

describe('MCP conformance suite through chio mcp serve-http', () => {
  let reference: { child: ChildProcess; url: string };
  let direct = new Map<string, ScenarioResult>();
  const through: Record<'stdio' | 'http', { edge?: RunningEdge; db: string; results: Map<string, ScenarioResult> }> = {
    stdio: { db: join(dir, 'stdio.sqlite'), results: new Map() },
    http: { db: join(dir, 'http.sqlite'), results: new Map() },
  };

  beforeAll(async () => {
    reference = await startReference();
    direct = (await runServerSuite(reference.url, 'all')).results;
    through.stdio.edge = await startHttpEdge([
      '--receipt-db',
      through.stdio.db,
      '--server-id',
      'conformance',
      '--',
      process.execPath,
      SERVER,
      '--stdio',
    ]);
    through.http.edge = await startHttpEdge([
      '--receipt-db',
      through.http.db,
      '--server-id',
      'conformance',
      '--upstream-url',
      reference.url,
    ]);
    for (const kind of ['stdio', 'http'] as const)
      through[kind].results = (await runServerSuite(through[kind].edge!.url.href, 'all')).results;
  }, 600_000);

  afterAll(async () => {
    await through.stdio.edge?.stop();
    await through.http.edge?.stop();
    reference?.child.kill('SIGTERM');
  });

  it('the suite lists scenarios, and the reference server passes every one of them directly', () => {
    expect(scenarios.length).toBeGreaterThanOrEqual(32);
    expect(scenarios.filter((s) => direct.get(s)?.ok !== true).map((s) => `${s}: ${failures(direct.get(s))}`)).toEqual(
      [],
    );
  });

  for (const kind of ['stdio', 'http'] as const) {
    describe(`with the reference server as a ${kind} upstream`, () => {
      for (const scenario of scenarios) {
        it(`${scenario} passes through the edge as it does directly`, () => {
          expect(direct.get(scenario)?.ok, 'passes directly').toBe(true);
          expect(through[kind].results.get(scenario)?.ok, failures(through[kind].results.get(scenario))).toBe(true);
        });
      }

      it('the tool calls the suite made are receipted, the sampling and elicitation exchanges observed, and the chain verifies', () => {
        const ledger = openLedger(through[kind].db, { readonly: true });
        try {
          expect(verifyChain(ledger)).toMatchObject({ ok: true });
          const rows = ledger.db
            .prepare('SELECT tool_name, verdict, receipt_kind AS kind FROM ledger_entries')
            .all() as Array<{ tool_name: string; verdict: string | null; kind: string }>;
          const names = new Set(rows.map((r) => r.tool_name));
          for (const tool of ['test_simple_text', 'test_sampling', 'test_elicitation', 'resources/read', 'prompts/get'])
            expect(names, tool).toContain(tool);
          const observed = rows.filter((r) => r.kind === 'trace_observation').map((r) => r.tool_name);
          expect(observed).toContain('sampling/createMessage');
          expect(observed).toContain('elicitation/create');
        } finally {
          ledger.close();
        }
      });
    });
  }
});
