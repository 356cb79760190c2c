// Several MCP sessions governed at once by one `chio mcp serve-http` (one kernel, one writer: the
// reservations and receipts of different sessions share commits): each session's receipts are in
// the order its calls were made, linked to one another through session_prev_seq, at the seq each
// call's answer named, and the chain verifies. Real SDK clients, the real server-everything per session.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { openLedger } from '../../src/ledger/index.js';
import { childProcesses } from '../helpers/children.js';
import { chio, CHIO_BIN } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const require = createRequire(import.meta.url);
const EVERYTHING = join(
  require.resolve('@modelcontextprotocol/server-everything/package.json'),
  '..',
  'dist',
  'index.js',
);
const children = childProcesses();

const SESSIONS = 4;
const CALLS = 20;

describe('sessions governed together keep their own order', () => {
  it(`${SESSIONS} HTTP sessions making ${CALLS} calls each at the same time: every session's receipts in call order, linked, at the seq each answer named; verify passes`, async () => {
    const dir = tempDir();
    const db = join(dir, 'sessions.sqlite');
    const seed = join(dir, 'kernel.seed');
    const pub = join(dir, 'kernel.pub');
    expect(chio(['keys', 'generate', '--out', seed, '--pub-out', pub]).status).toBe(0);
    const edge = await children.start(
      [
        CHIO_BIN,
        'mcp',
        'serve-http',
        '--listen',
        '127.0.0.1:0',
        '--receipt-db',
        db,
        '--kernel-seed-file',
        seed,
        '--server-id',
        'everything',
        '--',
        process.execPath,
        EVERYTHING,
        'stdio',
      ],
      /MCP over Streamable HTTP at (\S+)/,
    );
    const url = new URL(edge.match[1]!);

    const clients = await Promise.all(
      Array.from({ length: SESSIONS }, async () => {
        const client = new Client({ name: 'chio-test', version: '1.0.0' }, { capabilities: {} });
        await client.connect(new StreamableHTTPClientTransport(url));
        return client;
      }),
    );
    // Each session calls in sequence; the sessions run side by side.
    const answered = await Promise.all(
      clients.map(async (client, s) => {
        const seqs: number[] = [];
        for (let n = 0; n < CALLS; n++) {
          const r = await client.callTool({ name: 'echo', arguments: { message: `s${s}-${n}` } });
          expect(r.content).toEqual([{ type: 'text', text: `Echo: s${s}-${n}` }]);
          seqs.push(((r._meta as Record<string, any>)['chio/receipt'] as { seq: number }).seq);
        }
        return seqs;
      }),
    );
    await Promise.all(clients.map((c) => c.close()));

    const ledger = openLedger(db, { readonly: true });
    try {
      const rows = ledger.db
        .prepare(
          "SELECT seq, session_id, session_prev_seq, body FROM ledger_entries WHERE kind = 'receipt' ORDER BY seq",
        )
        .all() as Array<{ seq: number; session_id: string; session_prev_seq: number | null; body: string }>;
      expect(rows).toHaveLength(SESSIONS * CALLS);
      const sessions = new Map<string, typeof rows>();
      for (const r of rows) sessions.set(r.session_id, [...(sessions.get(r.session_id) ?? []), r]);
      expect(sessions.size).toBe(SESSIONS);
      for (const mine of sessions.values()) {
        const messages = mine.map((r) => JSON.parse(r.body).action.parameters.message as string);
        const s = Number(/^s(\d+)-0$/.exec(messages[0]!)?.[1]);
        expect(messages).toEqual(Array.from({ length: CALLS }, (_, n) => `s${s}-${n}`));
        expect(mine.map((r) => r.seq)).toEqual(answered[s]);
        expect(mine.map((r) => r.session_prev_seq)).toEqual([null, ...mine.slice(0, -1).map((r) => r.seq)]);
      }
      // The sessions' calls really were interleaved in the ledger, not one session after another.
      const firstSessionSeqs = [...sessions.values()].map((m) => [m[0]!.seq, m.at(-1)!.seq]);
      expect(
        firstSessionSeqs.filter(([a, b]) =>
          firstSessionSeqs.some(([c, d]) => (c! > a! && c! < b!) || (d! > a! && d! < b!)),
        ).length,
      ).toBeGreaterThan(0);
    } finally {
      ledger.close();
    }
    const v = chio(['ledger', 'verify', '--receipt-db', db, '--trusted-kernel-pubkey', pub]);
    expect(v.status, v.stdout + v.stderr).toBe(0);
    expect(v.stdout).toMatch(new RegExp(`^OK: ${SESSIONS * CALLS} entries verified, ${SESSIONS} sessions`));
  }, 60_000);
});
