// A kernel on PostgreSQL whose server restarts under load (pg_ctl restart -m immediate on a server of this test's own):
// calls caught by it fail closed with a ledger error code (never the driver's bare error), the kernel reconnects and goes on, and in the end
// every call whose tool ran has exactly one receipt, no call without a dispatch has one, nothing is left pending and
// the chain verifies.
import { describe, expect, it } from 'vitest';
import { fromHex, signerFromSeed } from '../../src/crypto/index.js';
import { ChioError } from '../../src/errors.js';
import { Kernel } from '../../src/kernel/index.js';
import { closeAnyLedger, openAnyLedger, verifyAnyChain } from '../../src/ledger/pg/index.js';
import { ledgerRows } from '../helpers/any-ledger.js';
import { CountingToolServer } from '../helpers/tool-server.js';

const agent = signerFromSeed(fromHex('55'.repeat(32)));

describe('a kernel on PostgreSQL when the server restarts under load', () => {
  it('fails the calls it catches closed, reconnects, and leaves exactly one receipt per dispatched call', async () => {
    // @ts-expect-error: a plain .mjs script without type declarations
    const { startCluster } = (await import('../../scripts/postgres-cluster.mjs')) as {
      startCluster: () => Promise<{ url: string; restart(): void; stop(): void }>;
    };
    const cluster = await startCluster();
    try {
      const kernel = await Kernel.connect({
        ledgerPath: cluster.url,
        seed: fromHex('44'.repeat(32)),
        checkpoints: false,
      });
      const server = new CountingToolServer();
      kernel.registerToolServer(server);
      const cap = kernel.issueCapability({ subject: agent.publicKeyHex });
      const acked = new Map<string, number>();
      const failed = new Map<string, string>();
      let next = 0;
      let restarted = false;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (next < 600) {
            const id = `c-${next++}`;
            if (!restarted && acked.size >= 60) {
              restarted = true;
              cluster.restart();
            }
            try {
              const r = await kernel.evaluateToolCall({
                capability: cap,
                caller: agent.publicKeyHex,
                serverId: 'fs',
                toolName: 'hello_tool',
                arguments: { name: id },
                requestId: id,
                sessionId: 'load',
              });
              expect(r.ok).toBe(true);
              acked.set(id, r.entry.seq);
            } catch (e) {
              failed.set(id, e instanceof ChioError ? e.code : String(e));
            }
          }
        }),
      );
      expect(restarted).toBe(true);
      expect(failed.size).toBeGreaterThan(0);
      // A lost reservation or receipt commit is APPEND-FAILED; a lost budget or revocation read, UNREACHABLE.
      for (const code of failed.values())
        expect(['CHIO-LEDGER-APPEND-FAILED', 'CHIO-LEDGER-UNREACHABLE']).toContain(code);
      // Calls after the restart were answered: the kernel reconnected.
      expect(Math.max(...[...acked.keys()].map((k) => Number(k.slice(2))))).toBeGreaterThan(
        Math.max(...[...failed.keys()].map((k) => Number(k.slice(2)))),
      );
      // Closing settles what this process still owes (calls whose receipt append was lost).
      await kernel.close();

      const rows = await ledgerRows<{ seq: number; body: string; verdict: string }>(
        cluster.url,
        'SELECT seq, body, verdict FROM ledger_entries ORDER BY seq',
      );
      const byRequest = new Map<string, Array<{ seq: number; verdict: string }>>();
      for (const r of rows) {
        const id = (JSON.parse(r.body) as { metadata: { chio_request_id: string } }).metadata.chio_request_id;
        byRequest.set(id, [...(byRequest.get(id) ?? []), { seq: r.seq, verdict: r.verdict }]);
      }
      for (const [id, seq] of acked) expect(byRequest.get(id), id).toEqual([{ seq, verdict: 'allow' }]);
      const dispatched = new Set(server.calls.map((c) => (c.args as { name: string }).name));
      for (const id of dispatched) expect(byRequest.get(id)?.length, `${id} ran: one receipt`).toBe(1);
      for (const id of byRequest.keys()) expect(dispatched.has(id), `${id} has a receipt: it ran`).toBe(true);
      expect(acked.size + failed.size).toBe(600);
      expect(await ledgerRows(cluster.url, 'SELECT count(*) AS n FROM pending_calls')).toEqual([{ n: 0 }]);
      const ledger = await openAnyLedger(cluster.url, { readonly: true });
      try {
        expect(await verifyAnyChain(ledger)).toMatchObject({ ok: true, entries: rows.length });
      } finally {
        await closeAnyLedger(ledger);
      }
    } finally {
      cluster.stop();
    }
  });
});
