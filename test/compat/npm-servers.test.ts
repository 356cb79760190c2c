// Compatibility with real npm MCP servers: the same real SDK client sees the same server directly and
// through `chio mcp serve` (stdio) / `chio mcp serve-http`: serverInfo, instructions, capabilities
// (the edge may add experimental.chioProtocol/chioToolStreaming and tasks), tools, prompts,
// resources and templates, and tool results, apart from the edge's receipt in _meta['chio/receipt'],
// which must be there with decision allow. Real processes only: the servers from node_modules, the
// built `chio` CLI (dist/), the MCP Inspector's CLI.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { CHIO_BIN } from '../helpers/cli.js';
import {
  until,
  EVERYTHING,
  FILESYSTEM,
  INSPECTOR_CLI,
  MEMORY,
  splitReceipt,
  surface,
  texts,
  withRoute,
} from '../helpers/npm-servers.js';
import type { Connected, Profile, Route, Upstream } from '../helpers/npm-servers.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('chio-compat-');
let dbSeq = 0;
const db = (name: string) => join(dir, `${name}-${++dbSeq}.sqlite`);

type Result = Record<string, unknown>;
const call = async (c: Connected, name: string, args: Record<string, unknown>) =>
  (await c.client.callTool({ name, arguments: args })) as Result;

/** Direct vs edge: the edge's result minus its receipt equals the direct result, and the receipt says allow. */
function expectSameResult(direct: Result, viaEdge: Result, decision = 'allow') {
  const d = splitReceipt(direct);
  const e = splitReceipt(viaEdge);
  expect(d.receipt).toBeUndefined();
  expect(e.rest).toEqual(d.rest);
  expect(e.receipt).toMatchObject({ decision });
}

// ───────────────────────────── server-memory ─────────────────────────────

const MEMORY_CALLS: Array<[string, Record<string, unknown>]> = [
  [
    'create_entities',
    {
      entities: [
        { name: 'Ada Lovelace', entityType: 'person', observations: ['wrote the first published program'] },
        { name: 'Analytical Engine', entityType: 'machine', observations: ['designed by Charles Babbage'] },
      ],
    },
  ],
  ['create_relations', { relations: [{ from: 'Ada Lovelace', to: 'Analytical Engine', relationType: 'programmed' }] }],
  ['add_observations', { observations: [{ entityName: 'Ada Lovelace', contents: ['born 1815'] }] }],
  ['search_nodes', { query: 'Engine' }],
  ['read_graph', {}],
];

describe('@modelcontextprotocol/server-memory', () => {
  it('direct and through chio mcp serve: same identity, capabilities and lists; create/relate/observe/search/read give the same results and leave the same memory file', async () => {
    const run = (route: Route) => {
      const file = join(dir, `memory-${route}.jsonl`);
      const upstream: Upstream = { command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: file } };
      return withRoute(route, upstream, { capabilities: {} }, db('memory'), async (c) => {
        const seen = await surface(c.client);
        const results: Result[] = [];
        for (const [name, args] of MEMORY_CALLS) results.push(await call(c, name, args));
        return { seen, results, file: readFileSync(file, 'utf8') };
      });
    };
    const [direct, viaStdio] = await Promise.all([run('direct'), run('stdio')]);

    expect(direct.seen.serverInfo).toMatchObject({ name: 'memory-server' });
    expect(viaStdio.seen).toEqual(direct.seen);
    direct.results.forEach((r, i) => expectSameResult(r, viaStdio.results[i]!));
    // The graph really holds what was created, read back through the edge.
    expect(texts(viaStdio.results[4]!).join('')).toContain('born 1815');
    expect(viaStdio.file).toBe(direct.file);
  });
});

// ───────────────────────────── server-everything ─────────────────────────────

const EVERYTHING_UPSTREAM: Upstream = { command: process.execPath, args: [EVERYTHING, 'stdio'] };
const ROOTS = [{ uri: pathToFileURL(join(dir, 'workspace')).href, name: 'Compat Workspace' }];
const CONDITIONAL = ['get-roots-list', 'trigger-sampling-request', 'trigger-elicitation-request'];

/** A client that declares roots, sampling and elicitation, and answers each deterministically. */
const FULL: Profile = {
  capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: { form: {} } },
  roots: ROOTS,
  sampling: (params) => {
    const first = (params.messages as Array<{ content: { text?: string } }>)[0]!.content.text ?? '';
    return {
      model: 'compat-model',
      role: 'assistant',
      content: { type: 'text', text: `sampled <${first}>` },
      stopReason: 'endTurn',
    };
  },
  elicitation: (params) => {
    const props = (params.requestedSchema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {};
    const content: Record<string, string | number | boolean> =
      'interpretation' in props
        ? { interpretation: 'historical' }
        : { name: 'Ada Lovelace', check: true, email: 'ada@example.com', integer: 7 };
    return { action: 'accept', content };
  },
};
const BARE: Profile = { capabilities: {} };

const toolNames = (tools: unknown[] | undefined) => (tools ?? []).map((t) => (t as { name: string }).name);

/** server-everything asks for the client's roots 350 ms after initialized and logs when it has them: wait for that log. */
const upstreamHasRoots = (c: Connected) =>
  until('server-everything to log its roots', () =>
    c.logs.some((d) => typeof d === 'string' && d.startsWith('Roots updated: 1 root(s)')),
  );

const RELATED_TASK = 'io.modelcontextprotocol/related-task';

/**
 * A task's result names its task in _meta[related-task]; each route has its own task (the edge's task
 * store hands out its own ids), so that id must be the route's own and is then left out of the comparison.
 */
function withoutOwnTaskId(result: Result, taskId: string | undefined): Result {
  const meta = { ...(result._meta as Record<string, unknown> | undefined) };
  expect(meta[RELATED_TASK]).toEqual({ taskId });
  meta[RELATED_TASK] = { taskId: '<own task>' };
  return { ...result, _meta: meta };
}

describe('@modelcontextprotocol/server-everything', () => {
  it('a client without roots, sampling or elicitation is not offered the tools that need them, directly or through either edge, and calling one by name anyway is refused everywhere', async () => {
    const routes: Route[] = ['direct', 'stdio', 'http'];
    const seen = await Promise.all(
      routes.map((route) =>
        withRoute(route, EVERYTHING_UPSTREAM, BARE, db('everything-bare'), async (c) => {
          const s = await surface(c.client);
          // Hostile: a client that never declared sampling names the hidden tool anyway.
          const forced = await c.client
            .request(
              { method: 'tools/call', params: { name: 'trigger-sampling-request', arguments: { prompt: 'x' } } },
              CallToolResultSchema,
            )
            .then(
              (r) => ({ refused: r.isError === true, how: texts(r as Result).join('') }),
              (e: Error) => ({ refused: true, how: e.message }),
            );
          return { s, forced, asked: c.requests.length };
        }),
      ),
    );
    for (const { s, forced, asked } of seen) {
      expect(toolNames(s.tools)).toContain('echo');
      for (const name of CONDITIONAL) expect(toolNames(s.tools)).not.toContain(name);
      expect(forced.refused, forced.how).toBe(true);
      expect(asked).toBe(0);
    }
    expect(seen[1]!.s).toEqual(seen[0]!.s);
    expect(seen[2]!.s).toEqual(seen[0]!.s);
  });

  it('a client with roots, sampling and elicitation sees the same surface directly, through serve and through serve-http, including get-roots-list, trigger-sampling-request and trigger-elicitation-request; these and plain tools give the same results, and the server asks the client the same sampling and elicitation questions', async () => {
    const run = (route: Route) =>
      withRoute(route, EVERYTHING_UPSTREAM, FULL, db('everything-calls'), async (c) => {
        const seen = await surface(c.client);
        await c.client.listTools();
        await upstreamHasRoots(c);
        const results = [
          await call(c, 'echo', { message: 'same either way' }),
          await call(c, 'get-sum', { a: 19, b: 23 }),
          await call(c, 'get-structured-content', { location: 'New York' }),
          await call(c, 'get-roots-list', {}),
          await call(c, 'trigger-sampling-request', { prompt: 'say hello', maxTokens: 20 }),
          await call(c, 'trigger-elicitation-request', {}),
        ];
        return { seen, results, requests: c.requests };
      });
    const [direct, viaStdio, viaHttp] = await Promise.all([run('direct'), run('stdio'), run('http')]);

    expect(direct.seen.serverInfo).toMatchObject({ name: 'mcp-servers/everything' });
    expect(toolNames(direct.seen.tools)).toEqual(expect.arrayContaining(CONDITIONAL));
    expect(viaStdio.seen).toEqual(direct.seen);
    expect(viaHttp.seen).toEqual(direct.seen);

    expect(texts(direct.results[3]!).join('')).toContain(ROOTS[0]!.uri);
    expect(texts(direct.results[4]!).join('')).toContain(
      'sampled <Resource trigger-sampling-request context: say hello>',
    );
    expect(texts(direct.results[5]!).join('')).toContain('- Name: Ada Lovelace');
    for (const edge of [viaStdio, viaHttp]) {
      direct.results.forEach((r, i) => expectSameResult(r, edge.results[i]!));
      // The server's sampling and elicitation requests reach the client exactly as they do directly
      // (roots/list is counted in the next test: the edge asks for roots itself too).
      expect(edge.requests.filter((r) => r.method !== 'roots/list')).toEqual(
        direct.requests.filter((r) => r.method !== 'roots/list'),
      );
    }
  });

  it('the client is asked for its roots by the upstream (relayed) and once more by the edge itself (its guards judge relative paths against them), through serve-http as through serve', async () => {
    const run = (route: Route) =>
      withRoute(route, EVERYTHING_UPSTREAM, FULL, db('everything-roots'), async (c) => {
        await upstreamHasRoots(c);
        // get-roots-list is answered from what the upstream was told, so it also shows the relay worked.
        const listed = await call(c, 'get-roots-list', {});
        return { roots: c.requests.filter((r) => r.method === 'roots/list'), listed: texts(listed).join('') };
      });
    const [direct, viaStdio, viaHttp] = await Promise.all([run('direct'), run('stdio'), run('http')]);
    const ask = { method: 'roots/list', params: {} };
    expect(direct.roots).toEqual([ask]);
    for (const r of [direct, viaStdio, viaHttp]) expect(r.listed).toContain(`URI: ${ROOTS[0]!.uri}`);
    expect(viaStdio.roots).toEqual([ask, ask]);
    expect(viaHttp.roots, "serve-http: the edge's own roots/list never reached the client").toEqual([ask, ask]);
  });

  it('simulate-research-query (taskSupport required, asks for clarification by elicitation) runs as a task through both edges with the same result as directly', async () => {
    const run = (route: Route) =>
      withRoute(route, EVERYTHING_UPSTREAM, FULL, db('everything-task'), async (c) => {
        await c.client.listTools();
        const kinds: string[] = [];
        let result: Result | undefined;
        let taskId: string | undefined;
        for await (const m of c.client.experimental.tasks.callToolStream({
          name: 'simulate-research-query',
          arguments: { topic: 'the loom', ambiguous: true },
        })) {
          kinds.push(m.type);
          if (m.type === 'taskCreated') taskId = m.task.taskId;
          if (m.type === 'result') result = m.result as Result;
          if (m.type === 'error') throw m.error;
        }
        return {
          kinds,
          taskId,
          result: withoutOwnTaskId(result!, taskId),
          elicitations: c.requests.filter((r) => r.method === 'elicitation/create'),
        };
      });
    const [direct, viaStdio, viaHttp] = await Promise.all([run('direct'), run('stdio'), run('http')]);

    expect(direct.kinds[0]).toBe('taskCreated');
    expect(direct.kinds.at(-1)).toBe('result');
    expect(texts(direct.result).join('')).toContain('# Research Report: the loom (historical)');
    expect(direct.elicitations).toHaveLength(1);
    for (const edge of [viaStdio, viaHttp]) {
      expect(edge.kinds[0]).toBe('taskCreated');
      expect(edge.kinds.at(-1)).toBe('result');
      expectSameResult(direct.result, edge.result);
      expect(edge.elicitations.map((r) => r.params.message)).toEqual(direct.elicitations.map((r) => r.params.message));
      expect(edge.elicitations.map((r) => r.params.requestedSchema)).toEqual(
        direct.elicitations.map((r) => r.params.requestedSchema),
      );
    }
  });

  it('simulate-research-query as a plain tools/call: the SDK client refuses it on either route (taskSupport required); sent anyway, the upstream answers it directly with an error result while the edge runs it as an upstream task and returns the report', async () => {
    const run = (route: Route) =>
      withRoute(route, EVERYTHING_UPSTREAM, FULL, db('everything-plain'), async (c) => {
        await c.client.listTools();
        const args = { name: 'simulate-research-query', arguments: { topic: 'the loom', ambiguous: false } };
        const sdkGuard = await c.client.callTool(args).then(
          () => 'called',
          (e: Error) => e.message,
        );
        // Past the SDK's guard: the raw request, as a client that does not read execution.taskSupport would send it.
        const raw = await c.client.request({ method: 'tools/call', params: args }, CallToolResultSchema).then(
          (r) => ({ ok: true as const, r: r as Result }),
          (e: Error) => ({ ok: false as const, message: e.message }),
        );
        return { sdkGuard, raw };
      });
    const [direct, viaStdio] = await Promise.all([run('direct'), run('stdio')]);
    for (const r of [direct, viaStdio]) expect(r.sdkGuard).toContain('requires task-based execution');
    // The SDK's McpServer answers the plain call with an error result (its -32601 as text).
    expect(direct.raw).toEqual({
      ok: true,
      r: {
        content: [
          {
            type: 'text',
            text: "MCP error -32601: Tool simulate-research-query requires task augmentation (taskSupport: 'required')",
          },
        ],
        isError: true,
      },
    });
    expect(viaStdio.raw.ok).toBe(true);
    const report = viaStdio.raw.ok ? viaStdio.raw.r : {};
    expect(texts(report).join('')).toContain('# Research Report: the loom');
    expect(splitReceipt(report).receipt).toMatchObject({ decision: 'allow' });
  });
});

// ───────────────────────────── server-filesystem, configured by MCP roots only ─────────────────────────────

describe('@modelcontextprotocol/server-filesystem configured by MCP roots only', () => {
  const fsDir = join(dir, 'fs');
  const root = join(fsDir, 'root');
  const outside = join(fsDir, 'outside');
  mkdirSync(root, { recursive: true });
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(root, 'notes.txt'), 'inside the root\n');
  writeFileSync(join(outside, 'plans.txt'), 'outside every root\n');
  // No directory on the command line: the server takes its allowed directories from the client's roots.
  const upstream: Upstream = { command: process.execPath, args: [FILESYSTEM] };
  const profile: Profile = {
    capabilities: { roots: { listChanged: true } },
    roots: [{ uri: pathToFileURL(root).href, name: 'compat root' }],
  };

  /** The server asks for roots at initialized; a call can overtake the answer, so wait until it lists the root. */
  const rootTaken = (c: Connected) =>
    until(
      'server-filesystem to allow the root',
      async () =>
        texts(await call(c, 'list_allowed_directories', {}))
          .join('')
          .includes(root),
      40,
    ).catch((e: Error) => {
      throw new Error(
        `${e.message}; roots/list requests this client got: ${c.requests.filter((r) => r.method === 'roots/list').length}`,
      );
    });

  const run = (route: Route) =>
    withRoute(route, upstream, profile, db(`fs-${route}`), async (c) => {
      await rootTaken(c);
      const seen = await surface(c.client);
      const results = {
        allowed: await call(c, 'list_allowed_directories', {}),
        inside: await call(c, 'read_text_file', { path: join(root, 'notes.txt') }),
        listing: await call(c, 'list_directory', { path: root }),
        outside: await call(c, 'read_text_file', { path: join(outside, 'plans.txt') }),
      };
      return { seen, results };
    });

  it('through serve: the roots reach the server, list_allowed_directories and read_text_file give the same results, and a read outside the roots is refused by the upstream (the edge allowed it: receipt decision allow)', async () => {
    const [direct, viaStdio] = await Promise.all([run('direct'), run('stdio')]);
    expect(direct.seen.serverInfo).toMatchObject({ name: 'secure-filesystem-server' });
    expect(viaStdio.seen).toEqual(direct.seen);
    expect(texts(direct.results.inside)).toEqual(['inside the root\n']);
    expect(direct.results.outside).toMatchObject({ isError: true });
    expect(texts(direct.results.outside).join('')).toContain('Access denied - path outside allowed directories');
    for (const key of ['allowed', 'inside', 'listing', 'outside'] as const)
      expectSameResult(direct.results[key], viaStdio.results[key]);
  });

  it("through serve-http the same: the upstream's roots/list is relayed to the HTTP client and the results match", async () => {
    const [direct, viaHttp] = await Promise.all([run('direct'), run('http')]);
    expect(viaHttp.seen).toEqual(direct.seen);
    for (const key of ['allowed', 'inside', 'listing', 'outside'] as const)
      expectSameResult(direct.results[key], viaHttp.results[key]);
  });
});

// ───────────────────────────── the MCP Inspector's CLI ─────────────────────────────

/**
 * Runs the Inspector's CLI launcher (`mcp-inspector-cli --cli <command…> --method …`, what
 * `npx @modelcontextprotocol/inspector --cli` runs) on Node 20 and parses the JSON it prints.
 * cwd is the package's build/ folder: inspector-cli 1.0.3 checks `fs.existsSync('../package.json')`
 * against the cwd but imports it relative to its own module, so run from anywhere else (without a
 * package.json one level up) it fails with "Cannot find module …/@modelcontextprotocol/package.json".
 */
function inspector(args: string[]): Promise<{ code: number | null; json: Result; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [INSPECTOR_CLI, '--cli', ...args], {
      cwd: dirname(INSPECTOR_CLI),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      try {
        resolve({ code, json: JSON.parse(out) as Result, stderr: err });
      } catch {
        reject(new Error(`inspector exited ${code} without JSON on stdout: ${out}\n${err}`));
      }
    });
  });
}

describe('the MCP Inspector CLI (@modelcontextprotocol/inspector-cli) driving chio mcp serve', () => {
  it("with chio's own flags and the upstream command on one line, no wrapper script and no --: tools/list and tools/call print what they print against the server itself, plus an allow receipt", async () => {
    const server = [process.execPath, EVERYTHING, 'stdio'];
    const viaChio = [
      process.execPath,
      CHIO_BIN,
      'mcp',
      'serve',
      '--receipt-db',
      db('inspector'),
      '--server-id',
      'everything',
      ...server,
    ];
    const list = ['--method', 'tools/list'];
    const sum = ['--method', 'tools/call', '--tool-name', 'get-sum', '--tool-arg', 'a=19', 'b=23'];
    const [directList, chioList, directSum, chioSum] = await Promise.all([
      inspector([...server, ...list]),
      inspector([...viaChio, ...list]),
      inspector([...server, ...sum]),
      inspector([...viaChio, ...sum]),
    ]);
    for (const r of [directList, chioList, directSum, chioSum]) expect(r.code, r.stderr).toBe(0);
    expect(toolNames(directList.json.tools as unknown[])).toContain('get-sum');
    expect(chioList.json).toEqual(directList.json);
    expect(directSum.json).toEqual({ content: [{ type: 'text', text: 'The sum of 19 and 23 is 42.' }] });
    expectSameResult(directSum.json, chioSum.json);
  });
});
