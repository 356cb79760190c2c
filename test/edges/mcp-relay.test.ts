// The requests an upstream MCP server sends its client cross Chio's MCP edge, both ways, on stdio
// (`chio mcp serve`) and Streamable HTTP (`chio mcp serve-http`): the real SDK client on one side,
// a real SDK server (test/helpers/relay-mcp-server.mjs) on the other. Sampling, elicitation (form
// and URL modes; accept, decline, cancel), roots and ping reach the client and its answers reach the
// upstream; capabilities the client did not declare are not declared upstream; a request the
// upstream gives up on is cancelled at the client; sampling and elicitation leave trace_observation
// receipts in the session; a tool the upstream adds while connected is announced, governed and receipted.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson, sha256Hex } from '../../src/crypto/index.js';
import { openLedger, verifyChain } from '../../src/ledger/index.js';
import { MAX_RELAYED_IN_FLIGHT } from '../../src/edges/mcp/client-requests.js';
import { CHIO_BIN } from '../helpers/cli.js';
import { startHttpEdge, type RunningEdge } from '../helpers/http-edge.js';
import { tempDir } from '../helpers/tmp.js';

const RELAY_SERVER = fileURLToPath(new URL('../helpers/relay-mcp-server.mjs', import.meta.url));
const dir = tempDir();
let dbs = 0;

type Kind = 'stdio' | 'http';
interface Harness {
  client: Client;
  db: string;
  /** What the client's handlers were asked, in order. */
  asked: Array<{ method: string; params: Record<string, any>; aborted?: boolean }>;
  close(): Promise<void>;
}

let httpEdge: RunningEdge | undefined;
/** The most flood requests the last connected client held unanswered at once. */
let peakOf = () => 0;
let httpDb = '';

/** An SDK client with `capabilities` and answering handlers, connected through the edge of `kind`. */
async function connect(
  kind: Kind,
  capabilities: ClientCapabilities,
  answers: { elicit?: Record<string, unknown> } = {},
): Promise<Harness> {
  const asked: Harness['asked'] = [];
  let outstanding = 0;
  /** When the first flood request arrived (the client holds answers from then on, up to 10 s). */
  let floodStarted: number | undefined;
  peakOf = () => peak;
  let peak = 0;
  const client = new Client({ name: 'relay-test', version: '1.0.0' }, { capabilities });
  if (capabilities.sampling !== undefined) {
    client.setRequestHandler(CreateMessageRequestSchema, async (req, extra) => {
      const entry = { method: req.method, params: req.params as Record<string, any>, aborted: false };
      asked.push(entry);
      const prompt = (req.params.messages[0]?.content as { text?: string } | undefined)?.text ?? '';
      if (prompt === 'flood') {
        // Hold every answer until the edge's cap is reached: the client never sees more than that at once.
        outstanding++;
        peak = Math.max(peak, outstanding);
        floodStarted ??= Date.now();
        await new Promise<void>((resolve) => {
          const check = setInterval(() => {
            if (peak >= MAX_RELAYED_IN_FLIGHT || Date.now() - floodStarted! > 10_000) resolve(clearInterval(check));
          }, 10);
        });
        outstanding--;
        return { role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'm' };
      }
      if (prompt === 'never answered') {
        // Answer only when told the server gave up: the edge must relay its cancellation.
        await new Promise<void>((resolve) => extra.signal.addEventListener('abort', () => resolve(), { once: true }));
        entry.aborted = true;
        return { role: 'assistant', content: { type: 'text', text: 'too late' }, model: 'm' };
      }
      // Progress on the server's request, with its token: the edge passes it upstream.
      const token = req.params._meta?.progressToken;
      if (token !== undefined)
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token, progress: 1, total: 2, message: 'thinking' },
        });
      return {
        role: 'assistant',
        content: { type: 'text', text: `sampled: ${prompt}` },
        model: 'test-model',
        stopReason: 'endTurn',
      };
    });
  }
  if (capabilities.elicitation !== undefined) {
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push({ method: req.method, params: req.params as Record<string, any> });
      return (answers.elicit ?? { action: 'accept', content: { name: 'Ada' } }) as never;
    });
  }
  if (capabilities.roots !== undefined) {
    client.setRequestHandler(ListRootsRequestSchema, async (req) => {
      asked.push({ method: req.method, params: (req.params ?? {}) as Record<string, any> });
      return { roots: [{ uri: pathToFileURL(dir).href, name: 'work' }] };
    });
  }
  let db: string;
  if (kind === 'stdio') {
    db = join(dir, `relay-${++dbs}.sqlite`);
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CHIO_BIN, 'mcp', 'serve', '--receipt-db', db, '--server-id', 'relay', process.execPath, RELAY_SERVER],
        stderr: 'pipe',
      }),
    );
  } else {
    db = httpDb;
    await client.connect(new StreamableHTTPClientTransport(httpEdge!.url));
  }
  return { client, db, asked, close: () => client.close() };
}

/** The JSON a relay-server tool answers with (first text content). */
async function call(
  h: Harness,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ value: any; isError: boolean; receipt: { id: string; decision: string } }> {
  const r = await h.client.callTool({ name, arguments: args });
  const text = (r.content as Array<{ type: string; text: string }>)[0]?.text ?? 'null';
  let value: unknown = text;
  try {
    value = JSON.parse(text);
  } catch {
    // a plain-text result (cat-file)
  }
  return { value, isError: r.isError === true, receipt: (r._meta as Record<string, any>)['chio/receipt'] };
}

interface Row {
  seq: number;
  session_id: string;
  tool_name: string;
  verdict: string | null;
  receipt_kind: string;
  body: string;
}
function rows(db: string): Row[] {
  const ledger = openLedger(db, { readonly: true });
  try {
    expect(verifyChain(ledger)).toMatchObject({ ok: true });
    return ledger.db
      .prepare('SELECT seq, session_id, tool_name, verdict, receipt_kind, body FROM ledger_entries ORDER BY seq')
      .all() as Row[];
  } finally {
    ledger.close();
  }
}
const receipt = (row: Row) => JSON.parse(row.body).receipt ?? JSON.parse(row.body);

const ALL: ClientCapabilities = { sampling: {}, elicitation: { form: {}, url: {} }, roots: { listChanged: true } };

beforeAll(async () => {
  httpDb = join(dir, 'relay-http.sqlite');
  httpEdge = await startHttpEdge([
    '--receipt-db',
    httpDb,
    '--server-id',
    'relay',
    '--',
    process.execPath,
    RELAY_SERVER,
  ]);
});
afterAll(() => httpEdge?.stop());

describe('server-to-client requests across chio mcp serve-http reach only the session that caused them', () => {
  it("two clients asking at the same time: each gets only its own upstream's sampling request, and each observation is in its own session", async () => {
    const a = await connect('http', ALL);
    const b = await connect('http', ALL);
    try {
      const [ra, rb] = await Promise.all([
        call(a, 'ask-llm', { prompt: 'from A' }),
        call(b, 'ask-llm', { prompt: 'from B' }),
      ]);
      expect(ra.value.content.text).toBe('sampled: from A');
      expect(rb.value.content.text).toBe('sampled: from B');
      const prompts = (h: Harness) =>
        h.asked.filter((x) => x.method === 'sampling/createMessage').map((x) => x.params.messages[0].content.text);
      expect(prompts(a)).toEqual(['from A']);
      expect(prompts(b)).toEqual(['from B']);
      const ledger = rows(httpDb);
      const sessionOf = (receiptId: string) => ledger.find((x) => receipt(x).id === receiptId)!.session_id;
      const observedIn = (session: string) =>
        ledger
          .filter((x) => x.session_id === session && x.tool_name === 'sampling/createMessage')
          .map((x) => receipt(x).action.parameters.messages[0].content.text);
      expect(observedIn(sessionOf(ra.receipt.id))).toEqual(['from A']);
      expect(observedIn(sessionOf(rb.receipt.id))).toEqual(['from B']);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

for (const kind of ['stdio', 'http'] as const) {
  describe(`server-to-client requests across chio mcp ${kind === 'stdio' ? 'serve' : 'serve-http'}`, () => {
    it('the upstream sees exactly the capabilities the client declared: all three, only roots, or none', async () => {
      for (const caps of [ALL, { roots: {} }, {}] as ClientCapabilities[]) {
        const h = await connect(kind, caps);
        try {
          const seen = (await call(h, 'client-caps')).value ?? {};
          expect(Object.keys(seen).sort()).toEqual(Object.keys(caps).sort());
          if (caps.sampling === undefined) {
            // Not declared, so never asked: the upstream's SDK refuses to send it at all.
            const r = await call(h, 'ask-llm', { prompt: 'hello' });
            expect(r.isError).toBe(true);
            // The edge's upstream client, declared without sampling, answers the upstream's request itself: method not found.
            expect(r.value).toMatchObject({ error: { code: -32601 } });
          }
          expect(h.asked.filter((a) => a.method === 'sampling/createMessage')).toEqual([]);
        } finally {
          await h.close();
        }
      }
    });

    it("sampling: the client gets the upstream's request as sent, the upstream gets the client's progress and answer, and an observation receipt of both is in the session before the tool's own receipt", async () => {
      const h = await connect(kind, ALL);
      try {
        const r = await call(h, 'ask-llm', { prompt: 'What is 6 x 7?' });
        expect(r.isError).toBe(false);
        expect(r.value).toMatchObject({
          role: 'assistant',
          model: 'test-model',
          content: { type: 'text', text: 'sampled: What is 6 x 7?' },
        });
        // The client's progress notification on the relayed request reached the upstream.
        expect(r.value.progress).toEqual([{ progress: 1, total: 2, message: 'thinking' }]);
        const asked = h.asked.filter((a) => a.method === 'sampling/createMessage');
        expect(asked).toHaveLength(1);
        expect(asked[0]!.params).toMatchObject({
          maxTokens: 50,
          messages: [{ role: 'user', content: { type: 'text', text: 'What is 6 x 7?' } }],
        });

        const ledger = rows(h.db);
        const call_ = ledger.find((x) => receipt(x).id === r.receipt.id)!;
        const observed = ledger.filter(
          (x) => x.session_id === call_.session_id && x.tool_name === 'sampling/createMessage',
        );
        expect(observed).toHaveLength(1);
        expect(observed[0]).toMatchObject({ receipt_kind: 'trace_observation', verdict: null });
        expect(observed[0]!.seq).toBeLessThan(call_.seq);
        const obs = receipt(observed[0]!);
        expect(obs).toMatchObject({
          tool_server: 'relay',
          boundary_class: 'detect_only',
          trust_level: 'verified',
          metadata: { mcp_relay: { direction: 'server_to_client', outcome: 'answered' } },
        });
        expect(obs.action.parameters.messages[0].content.text).toBe('What is 6 x 7?');
        expect(obs.action.parameter_hash).toMatch(/^[0-9a-f]{64}$/);
      } finally {
        await h.close();
      }
    });

    it('sampling params over 64 KiB (the upstream chooses their size) are recorded by the size and sha256 of their canonical text, and the exchange still completes', async () => {
      const h = await connect(kind, ALL);
      try {
        const prompt = 'p'.repeat(100 * 1024);
        const r = await call(h, 'ask-llm', { prompt });
        expect(r.value.content.text).toBe(`sampled: ${prompt}`);
        const observed = rows(h.db)
          .filter((x) => x.tool_name === 'sampling/createMessage')
          .map(receipt)
          .find((x) => x.action.parameters.chio_oversized !== undefined);
        const relayed = h.asked.find((a) => a.params.messages?.[0]?.content?.text === prompt)!.params;
        const text = canonicalJson(relayed);
        expect(observed.action.parameters).toEqual({
          chio_oversized: { bytes: Buffer.byteLength(text), sha256: sha256Hex(text) },
        });
      } finally {
        await h.close();
      }
    });

    for (const [action, answer] of [
      ['accept', { action: 'accept', content: { name: 'Ada' } }],
      ['decline', { action: 'decline' }],
      ['cancel', { action: 'cancel' }],
    ] as const) {
      it(`elicitation (form) answered with ${action}: the upstream gets that answer, and it is observed`, async () => {
        const h = await connect(kind, ALL, { elicit: answer });
        try {
          const r = await call(h, 'ask-user');
          expect(r.value).toEqual(answer);
          expect(h.asked.find((a) => a.method === 'elicitation/create')?.params).toMatchObject({
            mode: 'form',
            message: 'Your name?',
            requestedSchema: { properties: { name: { type: 'string', default: 'anon' } } },
          });
          const observed = rows(h.db)
            .filter((x) => x.tool_name === 'elicitation/create')
            .map(receipt)
            .filter((x) => x.metadata.mcp_relay.outcome === 'answered');
          expect(observed.length).toBeGreaterThanOrEqual(1);
        } finally {
          await h.close();
        }
      });
    }

    it('elicitation in URL mode reaches the client with its url and elicitationId', async () => {
      const h = await connect(kind, ALL, { elicit: { action: 'accept' } });
      try {
        expect((await call(h, 'open-url')).value).toEqual({ action: 'accept' });
        expect(h.asked.find((a) => a.method === 'elicitation/create')?.params).toMatchObject({
          mode: 'url',
          url: 'https://example.com/sign-in',
          elicitationId: 'el-1',
        });
      } finally {
        await h.close();
      }
    });

    it('roots/list and ping from the upstream are answered by the client', async () => {
      const h = await connect(kind, ALL);
      try {
        expect((await call(h, 'list-roots')).value).toEqual({
          roots: [{ uri: pathToFileURL(dir).href, name: 'work' }],
        });
        expect((await call(h, 'ping-client')).value).toEqual({});
      } finally {
        await h.close();
      }
    });

    it('a sampling request the upstream gives up on is cancelled at the client, and its observation says cancelled', async () => {
      const h = await connect(kind, ALL);
      try {
        const r = await call(h, 'slow-ask', { ms: 300 });
        expect(r.isError).toBe(true);
        expect(JSON.stringify(r.value)).toMatch(/timed out/i);
        await expect
          .poll(() => h.asked.find((a) => a.params.messages?.[0]?.content?.text === 'never answered')?.aborted)
          .toBe(true);
        const observed = rows(h.db)
          .filter((x) => x.tool_name === 'sampling/createMessage')
          .map(receipt);
        expect(observed.some((x) => x.metadata.mcp_relay.outcome === 'cancelled')).toBe(true);
      } finally {
        await h.close();
      }
    });

    it(`an upstream flooding the client with ${MAX_RELAYED_IN_FLIGHT + 36} sampling requests at once: the client never holds more than ${MAX_RELAYED_IN_FLIGHT}, the rest are refused with an error, the session goes on`, async () => {
      const h = await connect(kind, ALL);
      try {
        const r = await call(h, 'flood', { n: MAX_RELAYED_IN_FLIGHT + 36 });
        expect(peakOf()).toBe(MAX_RELAYED_IN_FLIGHT);
        expect(r.value.answered + r.value.refused.length).toBe(MAX_RELAYED_IN_FLIGHT + 36);
        expect(r.value.refused.length).toBeGreaterThan(0);
        expect(r.value.refused[0]).toMatch(/too many requests to the client in flight/);
        expect((await call(h, 'ping-client')).value).toEqual({});
      } finally {
        await h.close();
      }
    });

    it('a tool the upstream adds while connected: the client is told, sees it, and calls to it are governed (a secret path denied, never read) and receipted', async () => {
      const h = await connect(kind, ALL);
      try {
        const changed = new Promise<void>((resolve) =>
          h.client.setNotificationHandler(ToolListChangedNotificationSchema, async () => resolve()),
        );
        expect((await h.client.listTools()).tools.map((t) => t.name)).not.toContain('cat-file');
        await call(h, 'add-tool');
        await changed;
        expect((await h.client.listTools()).tools.map((t) => t.name)).toContain('cat-file');

        const work = join(dir, `cat-${kind}`);
        mkdirSync(work, { recursive: true });
        writeFileSync(join(work, 'notes.txt'), 'plain notes');
        writeFileSync(join(work, '.env'), 'API_KEY=do-not-leak');
        const ok = await call(h, 'cat-file', { path: join(work, 'notes.txt') });
        expect(ok).toMatchObject({ value: 'plain notes', isError: false, receipt: { decision: 'allow' } });
        const denied = await call(h, 'cat-file', { path: join(work, '.env') });
        expect(denied.isError).toBe(true);
        expect(denied.receipt.decision).toBe('deny');
        expect(JSON.stringify(denied.value)).not.toContain('do-not-leak');
      } finally {
        await h.close();
      }
    });
  });
}
