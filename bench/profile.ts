/**
 * `npm run bench -- --profile`: where one governed MCP call's time goes. Runs the same calls as the
 * MCP edge figure (server-everything's `echo` over stdio, one call in flight), direct and through
 * `chio mcp serve` with CHIO_STAGE_PROFILE (src/stage-profile.ts: mean time per stage — parse,
 * authorize, reserve, dispatch, sign, commit, respond) and node's `--cpu-prof` on the edge (the
 * functions and modules with the most self time). Beside them, in the same run: one durable
 * commit (a one-row `BEGIN IMMEDIATE … COMMIT` at synchronous=FULL on the same disk), the floor
 * a governed call cannot go under; and the same CPU work (signing a receipt) timed back to back and
 * after 1 ms idle, as a lone call's steps run. Then what the WAL carries per ledger entry, by table
 * and index (bench/wal-bytes.ts). Nothing here is asserted; it is read.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { sequentialEchoCalls } from './echo-calls.js';
import type { Sequential } from './echo-calls.js';
import { walFigures } from './wal-bytes.js';
import { signerFromSeed } from '../src/crypto/index.js';
import { signReceipt } from '../src/receipt/index.js';
import { draft } from './drafts.js';

const require = createRequire(import.meta.url);
const EVERYTHING = join(
  require.resolve('@modelcontextprotocol/server-everything/package.json'),
  '..',
  'dist',
  'index.js',
);
const CLI = fileURLToPath(new URL('../cli/main.js', import.meta.url));
const NULL_RELAY = fileURLToPath(new URL('./null-relay.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

type Latency = Sequential;

async function calls(args: string[], n: number, env?: Record<string, string>): Promise<Latency> {
  const client = new Client({ name: 'chio-bench', version: '1.0.0' }, { capabilities: {} });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args,
      stderr: 'ignore',
      ...(env === undefined ? {} : { env: { ...(process.env as Record<string, string>), ...env } }),
    }),
  );
  const r = await sequentialEchoCalls(client, n);
  await client.close();
  return r;
}

/**
 * One durable commit's latency (p50, p90, p99): a one-row insert in its own BEGIN IMMEDIATE
 * transaction, WAL, synchronous=FULL; back to back, or idle for `gapMs` before each (as a lone
 * governed call's commits are: this disk syncs faster when a sync follows another at once).
 */
async function durableCommitMs(dir: string, gapMs = 0, n = 300): Promise<{ p50: number; p90: number; p99: number }> {
  const db = new Database(join(dir, `commit-${gapMs}.sqlite`));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
  const one = db.transaction((v: string) => insert.run(v));
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    if (gapMs > 0) await sleep(gapMs);
    const t = process.hrtime.bigint();
    one.immediate('x'.repeat(600));
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  db.close();
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(n - 1, Math.floor(n * q))]!;
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99) };
}

/**
 * The same CPU work (signing a receipt, in this process) timed back to back and after `gapMs` of
 * idling before each: p50 µs. A lone call's edge idles while the upstream and the disk work, so
 * each of its steps runs on a core that has just woken (and on this VM, a vCPU the host has just
 * rescheduled): the stage means below are of steps run that way.
 */
async function signP50Us(gapMs: number, n = 400): Promise<number> {
  const signer = signerFromSeed(new Uint8Array(32).fill(7));
  const drafts = Array.from({ length: 64 }, (_, i) => draft(i));
  for (let i = 0; i < 2000; i++) signReceipt(drafts[i % 64]!, signer, { nonce: `warm ${i}` });
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    // setTimeout(0) waits ~1 ms in Node: back to back yields to the event loop only.
    await (gapMs > 0 ? sleep(gapMs) : new Promise((resolve) => setImmediate(resolve)));
    const t = process.hrtime.bigint();
    signReceipt(drafts[i % 64]!, signer, { nonce: `timed ${i}` });
    times.push(Number(process.hrtime.bigint() - t) / 1000);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(n / 2)]!;
}

interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>;
  samples: number[];
  timeDeltas: number[];
}

/** Self time by function and by file, from a .cpuprofile (sampled: shares, not exact times). */
function hotSpots(
  profile: CpuProfile,
  top = 15,
): { functions: Array<[string, number]>; files: Array<[string, number]>; totalMs: number } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const fn = new Map<string, number>();
  const file = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    total += us;
    const f = byId.get(id)!;
    const where =
      f.url === '' ? '(native)' : f.url.startsWith('file://') ? relative(ROOT, fileURLToPath(f.url)) : f.url;
    const name = `${f.functionName || '(anonymous)'}  ${where}${f.url === '' ? '' : `:${f.lineNumber + 1}`}`;
    fn.set(name, (fn.get(name) ?? 0) + us);
    const module =
      f.url === ''
        ? f.functionName || '(native)'
        : where.replace(/^node_modules\/((?:@[^/]+\/)?[^/]+).*$/, 'node_modules/$1');
    file.set(module, (file.get(module) ?? 0) + us);
  });
  const sorted = (m: Map<string, number>) => [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);
  return { functions: sorted(fn), files: sorted(file), totalMs: total / 1000 };
}

export async function profileFigures(n = 1000): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'chio-bench-profile-'));
  try {
    const direct = await calls([EVERYTHING, 'stdio'], n);
    const relayed = await calls([NULL_RELAY, process.execPath, EVERYTHING, 'stdio'], n);
    const stages = join(dir, 'stages.json');
    const cpuDir = join(dir, 'cpu');
    // Stage stamps cost two hrtime reads per boundary; the CPU profiler slows everything, so it runs apart.
    const plain = await calls(
      [CLI, 'mcp', 'serve', '--receipt-db', join(dir, 'plain.sqlite'), '--', process.execPath, EVERYTHING, 'stdio'],
      n,
      { CHIO_STAGE_PROFILE: stages },
    );
    const governed = await calls(
      [
        '--cpu-prof',
        `--cpu-prof-dir=${cpuDir}`,
        CLI,
        'mcp',
        'serve',
        '--receipt-db',
        join(dir, 'edge.sqlite'),
        '--',
        process.execPath,
        EVERYTHING,
        'stdio',
      ],
      n,
    );
    const oneFsync = await calls(
      [
        CLI,
        'mcp',
        'serve',
        '--reservation-sync',
        'normal',
        '--receipt-db',
        join(dir, 'normal.sqlite'),
        '--',
        process.execPath,
        EVERYTHING,
        'stdio',
      ],
      n,
    );
    const commit = await durableCommitMs(dir);
    const spacedCommit = await durableCommitMs(dir, 1);

    console.log(`\nOne governed MCP tools/call (server-everything echo over stdio, one in flight, ${n} calls)`);
    console.log(
      `  direct            p50 ${direct.p50ms.toFixed(3)} ms  p99 ${direct.p99ms.toFixed(3)} ms  ${direct.perSecond.toFixed(0)}/s`,
    );
    console.log(
      `  null relay        p50 ${relayed.p50ms.toFixed(3)} ms  p99 ${relayed.p99ms.toFixed(3)} ms  ${relayed.perSecond.toFixed(0)}/s  (${(relayed.perSecond / direct.perSecond).toFixed(2)} of direct: a process that only copies bytes, the floor of any wrapping edge)`,
    );
    console.log(
      `  governed          p50 ${plain.p50ms.toFixed(3)} ms  p99 ${plain.p99ms.toFixed(3)} ms  ${plain.perSecond.toFixed(0)}/s  (${(plain.perSecond / direct.perSecond).toFixed(2)} of direct)`,
    );
    console.log(
      `  governed, --reservation-sync normal (one fsync per call)  p50 ${oneFsync.p50ms.toFixed(3)} ms  p99 ${oneFsync.p99ms.toFixed(3)} ms  ${oneFsync.perSecond.toFixed(0)}/s  (${(oneFsync.perSecond / direct.perSecond).toFixed(2)} of direct)`,
    );
    console.log(
      `  one durable commit p50 ${commit.p50.toFixed(3)} ms, p90 ${commit.p90.toFixed(3)} ms, p99 ${commit.p99.toFixed(3)} ms (same disk, synchronous=FULL)`,
    );
    console.log(
      `  one durable commit, 1 ms idle before each (as a lone call's): p50 ${spacedCommit.p50.toFixed(3)} ms, p90 ${spacedCommit.p90.toFixed(3)} ms, p99 ${spacedCommit.p99.toFixed(3)} ms`,
    );
    console.log(
      `  goal: governed p50 ≤ direct p50 + one commit + 0.3 ms = ${(direct.p50ms + commit.p50 + 0.3).toFixed(3)} ms; now ${(plain.p50ms - direct.p50ms - commit.p50).toFixed(3)} ms over direct + commit`,
    );
    console.log(
      `  the same with a spaced commit: ${(direct.p50ms + spacedCommit.p50 + 0.3).toFixed(3)} ms; with the two spaced commits a call makes: ${(direct.p50ms + 2 * spacedCommit.p50 + 0.3).toFixed(3)} ms`,
    );
    // With the default reservation sync a lone call makes two durable commits (the reservation before
    // the tool runs, the receipt after): the floor under that guarantee counts both.
    console.log(
      `  floor of a wrapping edge: null relay p50 + one commit = ${(relayed.p50ms + commit.p50).toFixed(3)} ms (two commits: ${(relayed.p50ms + 2 * commit.p50).toFixed(3)} ms)`,
    );
    console.log(
      `  floor with the reservation fsynced too: direct p50 + two commits + 0.3 ms = ${(direct.p50ms + 2 * commit.p50 + 0.3).toFixed(3)} ms; --reservation-sync normal is held to the one-commit goal`,
    );
    console.log(`  (under the CPU profiler: p50 ${governed.p50ms.toFixed(3)} ms)`);

    const s = JSON.parse(readFileSync(stages, 'utf8')) as {
      stages: Array<{ stage: string; ns: number; count: number }>;
    };
    const sum = s.stages.reduce((a, x) => a + (x.count === 0 ? 0 : x.ns / x.count), 0);
    console.log('\n  stage      mean per call   share   (calls counted)');
    for (const x of s.stages) {
      const mean = x.count === 0 ? 0 : x.ns / x.count / 1000;
      console.log(
        `  ${x.stage.padEnd(10)} ${mean.toFixed(1).padStart(10)} µs   ${(((mean * 1000) / sum) * 100).toFixed(1).padStart(5)} %   (${x.count})`,
      );
    }
    console.log(
      `  ${'total'.padEnd(10)} ${(sum / 1000).toFixed(1).padStart(10)} µs   (edge side, from the line read to the line written; dispatch includes the upstream round trip)`,
    );

    const [warm, afterIdle] = [await signP50Us(0), await signP50Us(1)];
    console.log(
      `  the same CPU work in this process, signing a receipt: p50 ${warm.toFixed(1)} µs back to back, ${afterIdle.toFixed(1)} µs after 1 ms idle (${(afterIdle / warm).toFixed(1)}×): a lone call's steps run on cores that have just woken`,
    );

    const file = readdirSync(cpuDir).find((f) => f.endsWith('.cpuprofile'));
    if (file !== undefined) {
      const h = hotSpots(JSON.parse(readFileSync(join(cpuDir, file), 'utf8')) as CpuProfile);
      console.log(`\n  edge CPU profile: ${h.totalMs.toFixed(0)} ms sampled; self time by module`);
      for (const [name, us] of h.files)
        console.log(`  ${((us / 1000 / h.totalMs) * 100).toFixed(1).padStart(5)} %  ${name}`);
      console.log('\n  self time by function');
      for (const [name, us] of h.functions)
        console.log(`  ${((us / 1000 / h.totalMs) * 100).toFixed(1).padStart(5)} %  ${name}`);
    }
    const wal = await walFigures(dir);
    for (const [label, w] of [
      ['one entry per commit', wal.one],
      ['64 entries per commit', wal.grouped],
    ] as const) {
      console.log(
        `\n  WAL per ledger entry, ${label}: ${w.bytesPerEntry.toFixed(0)} bytes, ${w.pagesPerCommit.toFixed(1)} pages per commit; pages per entry by owner:`,
      );
      for (const [name, pages] of w.byOwner) console.log(`  ${pages.toFixed(3).padStart(8)}  ${name}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
