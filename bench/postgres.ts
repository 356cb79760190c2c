/**
 * PostgreSQL figures for `npm run bench` (DESIGN §11): appends per second from 1, 4 and 16
 * producer processes into one PostgreSQL ledger beside the same into one SQLite file, and chain
 * verification and certificate generation on each, all in one run on a throwaway server (scripts/postgres-cluster.mjs,
 * fsync on, synchronous_commit on). The limit printed beside the PostgreSQL appends is the same
 * server's rate of bare one-row INSERT + COMMIT on one connection: what a commit costs there.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { openLedger, verifyChain } from '../src/ledger/index.js';
import { copyLedger, openPgLedger, verifyChainPg } from '../src/ledger/pg/index.js';
import { generateCertificateOn } from '../src/projections/certificate/index.js';
import { fromHex, signerFromSeed } from '../src/crypto/index.js';

const PRODUCER = fileURLToPath(new URL('./pg-producer.js', import.meta.url));

export interface PgFigure {
  name: string;
  value: number;
  beside: string;
  limit?: number;
  note?: string;
}

/** Starts `n` producer processes, lets them sign, then times their appends from "go" to the last "done". */
async function producers(kind: 'sqlite' | 'postgres', location: string, n: number, total: number): Promise<number> {
  const per = Math.ceil(total / n);
  const children = Array.from({ length: n }, (_, i) =>
    spawn(process.execPath, [PRODUCER, kind, location, String(i), String(per)], { stdio: ['pipe', 'pipe', 'inherit'] }),
  );
  const lines = children.map((c) => {
    let buffer = '';
    const waiters: Array<[string, () => void]> = [];
    c.stdout!.on('data', (d) => {
      buffer += d;
      for (const [word, resolve] of waiters) if (buffer.includes(`${word}\n`)) resolve();
    });
    return (word: string) =>
      new Promise<void>((resolve, reject) => {
        if (buffer.includes(`${word}\n`)) resolve();
        else waiters.push([word, resolve]);
        c.once('exit', (code) => (code === 0 ? undefined : reject(new Error(`producer exited ${code}`))));
      });
  });
  try {
    await Promise.all(lines.map((wait) => wait('ready')));
  } catch (e) {
    for (const c of children) c.kill();
    throw e;
  }
  const start = process.hrtime.bigint();
  for (const c of children) c.stdin!.write('go\n');
  try {
    await Promise.all(lines.map((wait) => wait('done')));
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    return (per * n) / seconds;
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill();
  }
}

async function bareCommits(url: string, ms = 1500): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('CREATE TABLE bench_commit (i int)');
  let n = 0;
  const end = Date.now() + ms;
  while (Date.now() < end) {
    await client.query('BEGIN');
    await client.query('INSERT INTO bench_commit VALUES ($1)', [n]);
    await client.query('COMMIT');
    n += 1;
  }
  await client.query('DROP TABLE bench_commit');
  await client.end();
  return n / (ms / 1000);
}

export async function postgresFigures(nodeVerify: number): Promise<PgFigure[]> {
  // @ts-expect-error: a plain .mjs script without type declarations
  const { startCluster } = (await import('../../scripts/postgres-cluster.mjs')) as {
    startCluster: () => Promise<{ url: string; stop(): void }>;
  };
  const cluster = await startCluster();
  const dir = mkdtempSync(join(tmpdir(), 'chio-bench-pg-'));
  const out: PgFigure[] = [];
  try {
    const admin = new pg.Client({ connectionString: cluster.url });
    await admin.connect();
    const database = async (name: string) => {
      await admin.query(`CREATE DATABASE ${name}`);
      const u = new URL(cluster.url);
      u.pathname = `/${name}`;
      return u.href;
    };
    const bare = await bareCommits(await database('bare'));
    out.push({ name: 'PostgreSQL: bare INSERT + COMMIT, 1 connection', value: bare, beside: '(limit)' });
    const total = 4000;
    for (const n of [1, 4, 16]) {
      const file = join(dir, `p${n}.sqlite`);
      openLedger(file).close(); // created before the producers race to open it
      const url = await database(`p${n}`);
      await (await openPgLedger(url)).close();
      const lite = await producers('sqlite', file, n, total);
      const post = await producers('postgres', url, n, total);
      out.push({
        name: `append, ${n} producer process${n === 1 ? '' : 'es'}, SQLite (one file)`,
        value: lite,
        beside: '(limit)',
        note: 'group commit per process, 16 in flight each',
      });
      out.push({
        name: `append, ${n} producer process${n === 1 ? '' : 'es'}, PostgreSQL`,
        value: post,
        beside: 'PG commit',
        limit: bare,
        note: `${(post / lite).toFixed(2)} of SQLite; one append lock per transaction`,
      });
    }
    // Chain verification over the same 10,000 entries on each.
    const file = join(dir, 'verify.sqlite');
    const url = await database('verify');
    openLedger(file).close();
    await producers('sqlite', file, 4, 10_000);
    await copyLedger(file, url);
    const lite = openLedger(file, { readonly: true });
    let start = process.hrtime.bigint();
    const a = verifyChain(lite);
    const liteRate = (a.ok ? a.entries : 0) / (Number(process.hrtime.bigint() - start) / 1e9);
    lite.close();
    const ledger = await openPgLedger(url, { readonly: true });
    start = process.hrtime.bigint();
    const b = await verifyChainPg(ledger);
    const pgRate = (b.ok ? b.entries : 0) / (Number(process.hrtime.bigint() - start) / 1e9);
    out.push({
      name: 'chain verify, SQLite, 1 thread (10,000 entries)',
      value: liteRate,
      beside: 'node verify',
      limit: nodeVerify,
    });
    out.push({
      name: 'chain verify, PostgreSQL, 1 thread (same entries)',
      value: pgRate,
      beside: 'node verify',
      limit: nodeVerify,
      note: `${(pgRate / liteRate).toFixed(2)} of SQLite`,
    });
    // A certificate over one producer's session (every 4th of its receipts: 625 of the 10,000),
    // re-verifying each receipt's signature: receipts certified per second on each store.
    const signer = { role: 'authority' as const, key: signerFromSeed(fromHex('ab'.repeat(32))) };
    const certify = async (store: Parameters<typeof generateCertificateOn>[0]) => {
      const t = process.hrtime.bigint();
      const cert = await generateCertificateOn(store, { sessionId: 'p0-0', signer });
      return cert.body.receipt_count / (Number(process.hrtime.bigint() - t) / 1e9);
    };
    const liteStore = openLedger(file, { readonly: true });
    const liteCert = await certify(liteStore);
    liteStore.close();
    const pgCert = await certify(ledger);
    await ledger.close();
    out.push({
      name: 'certificate, SQLite (a 625-receipt session of 10,000), receipts/s',
      value: liteCert,
      beside: 'node verify',
      limit: nodeVerify,
    });
    out.push({
      name: 'certificate, PostgreSQL (same session), receipts/s',
      value: pgCert,
      beside: 'node verify',
      limit: nodeVerify,
      note: `${(pgCert / liteCert).toFixed(2)} of SQLite`,
    });
    await admin.end();
  } finally {
    cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}
