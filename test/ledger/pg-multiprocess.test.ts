// Producers in separate processes appending to one PostgreSQL ledger at once, through the group-
// commit writer: some SIGKILLed mid-run, the server restarted under load. Every acknowledged
// receipt is in the ledger at the seq it was told, the chain is contiguous, every session's chain
// whole; `chio ledger verify` on PostgreSQL and the independent Python checker (over a copy into
// SQLite) agree.
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { signerFromSeed } from '../../src/crypto/index.js';
import { chio } from '../helpers/cli.js';
import { freshPgDatabase } from '../helpers/postgres.js';
import { tempDir } from '../helpers/tmp.js';

const WORKER = fileURLToPath(new URL('../helpers/pg-append-worker.mjs', import.meta.url));
const KERNEL_KEY = signerFromSeed(new Uint8Array(32).fill(7)).publicKeyHex;

interface Producer {
  child: ChildProcess;
  acks: Map<string, number>;
  fails: string[];
  exited: Promise<number | null>;
}

function producer(url: string, id: number, count: number, inFlight: number): Producer {
  const child = spawn(process.execPath, [WORKER, url, String(id), String(count), String(inFlight)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const acks = new Map<string, number>();
  const fails: string[] = [];
  let buffer = '';
  child.stdout!.on('data', (d) => {
    buffer += d;
    const lines = buffer.split('\n');
    buffer = lines.pop()!;
    for (const line of lines) {
      const [what, a, b] = line.split(' ');
      if (what === 'ack') acks.set(a!, Number(b));
      if (what === 'fail') fails.push(a!);
    }
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  void exited.then((code) => {
    if (code !== 0 && code !== null && stderr !== '') process.stderr.write(stderr);
  });
  return { child, acks, fails, exited };
}

async function ledgerRows(url: string): Promise<Map<string, number>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return new Map(
      (await client.query('SELECT receipt_id, seq::int AS seq FROM ledger_entries')).rows.map((r) => [
        r.receipt_id,
        r.seq,
      ]),
    );
  } finally {
    await client.end();
  }
}

/** `chio ledger verify` on PostgreSQL, then the Python checker over a copy into SQLite: both must pass. */
function bothCheckersPass(url: string, entries: number): void {
  const verify = chio(['ledger', 'verify', '--receipt-db', url, '--json']);
  expect(verify.status, verify.stdout + verify.stderr).toBe(0);
  expect(JSON.parse(verify.stdout)).toMatchObject({ ok: true, entries });
  const copy = join(tempDir(), 'copy.sqlite');
  expect(chio(['ledger', 'copy', '--from', url, '--to', copy]).status).toBe(0);
  const py = spawnSync('python3', ['test/vectors/check_ledger.py', copy, KERNEL_KEY], { encoding: 'utf8' });
  expect(py.stdout, py.stderr).toMatch(new RegExp(`^OK: ${entries} entries, `));
  expect(py.status).toBe(0);
}

describe('many producer processes on one PostgreSQL ledger', () => {
  it('8 producers, 3 SIGKILLed mid-run: every acknowledged receipt at its seq, one contiguous chain, both checkers agree', async () => {
    const { url } = await freshPgDatabase();
    // The victims have more to append than they can finish before their kill: killed mid-run whatever the load.
    const victims = [1, 4, 6];
    const producers = Array.from({ length: 8 }, (_, i) => producer(url, i, victims.includes(i) ? 1_000_000 : 100, 8));
    while (producers.some((p) => p.acks.size < 10)) await new Promise((r) => setTimeout(r, 20));
    for (const victim of victims) {
      producers[victim]!.child.kill('SIGKILL');
      await new Promise((r) => setTimeout(r, 150));
    }
    const codes = await Promise.all(producers.map((p) => p.exited));
    expect(codes).toEqual(producers.map((_, i) => (victims.includes(i) ? null : 0)));
    const rows = await ledgerRows(url);
    for (const p of producers) {
      for (const [id, seq] of p.acks) expect(rows.get(id), id).toBe(seq);
    }
    const survivors = producers.filter((_, i) => !victims.includes(i));
    for (const p of survivors) expect(p.acks.size).toBe(100);
    expect(Math.max(...rows.values())).toBe(rows.size);
    bothCheckersPass(url, rows.size);
  });

  it('the server restarted under load: appends in flight fail (nothing half-written), producers go on after it is back', async () => {
    // A server of this test's own: restarting the run's shared one would disturb other files.
    // @ts-expect-error: a plain .mjs script without type declarations
    const { startCluster } = (await import('../../scripts/postgres-cluster.mjs')) as {
      startCluster: () => Promise<{ url: string; restart(): void; stop(): void }>;
    };
    const cluster = await startCluster();
    try {
      const url = cluster.url;
      const producers = Array.from({ length: 4 }, (_, i) => producer(url, i, 250, 4));
      // Restart once every producer is appending (acknowledged appends), not while they connect.
      while (producers.some((p) => p.acks.size < 20)) await new Promise((r) => setTimeout(r, 20));
      cluster.restart();
      const codes = await Promise.all(producers.map((p) => p.exited));
      expect(codes).toEqual([0, 0, 0, 0]);
      const failures = producers.flatMap((p) => p.fails);
      expect(failures.length).toBeGreaterThan(0);
      expect(new Set(failures)).toEqual(new Set(['CHIO-LEDGER-APPEND-FAILED']));
      const rows = await ledgerRows(url);
      for (const p of producers) {
        for (const [id, seq] of p.acks) expect(rows.get(id), id).toBe(seq);
      }
      // Appends after the restart were acknowledged: the producers reconnected.
      const acked = producers.reduce((n, p) => n + p.acks.size, 0);
      expect(acked + failures.length).toBe(1000);
      expect(rows.size).toBeGreaterThanOrEqual(acked);
      bothCheckersPass(url, rows.size);
    } finally {
      cluster.stop();
    }
  });
});
