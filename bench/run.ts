/**
 * `npm run bench`: throughput figures, each printed beside the physical limit it is bounded by,
 * measured in the same run on the same machine (rule 6: speed is measured here, never asserted
 * in tests). Writes to a temporary directory on the real disk, synchronous=FULL unless stated.
 *
 *   raw limits   node:crypto and noble Ed25519 sign/verify over a real receipt's signed bytes
 *   append       1 producer (one transaction and fsync per receipt); 64 producers through the
 *                group-commit writer: pre-signed (the ledger alone), and signing as a producer
 *                does, on its own thread or on the thread pool
 *   verify       full-chain verification: one thread, thread pool, and without signatures
 *   kernel       decisions per second on the allow and deny paths, and the kernel's own work
 *                (capability check, guards) beside the signing it has to do anyway; the MCP rows'
 *                echo call decided in-process 16 at a time (the bound of the edge at 16 in flight)
 *   mcp edge     tools/call straight to server-everything, through a null relay and through
 *                `chio mcp serve`: one call in flight; 16 in flight as a freshly started edge
 *                serves them and again at the JIT's steady state, with each party's CPU per call
 *                (bench/mcp-edge.ts); `chio mcp serve-http` beside mcp-proxy, fresh and at steady
 *                state (bench/http-bridges.ts)
 *   checkpoints  checkpoints, inclusion proofs at 1,000,000 entries, appends with checkpointing on
 *                and off, evidence bundles (bench/checkpoints.ts, with its own raw limits)
 *   cli start    `chio` commands exec to exit beside `node -e 0` (bench/cli-start.ts)
 *   postgres     1, 4 and 16 producer processes on PostgreSQL beside SQLite, chain verify on each
 *                (bench/postgres.ts, on a throwaway server; beside a bare commit on that server)
 * A goal row is followed by its bound where one can be measured (bench/bounds.ts, bench/ledger-floor.ts): the pieces of
 * that work measured alone in the same run, added up, or the durable commits it must wait for.
 * The machine has 2 cores; thread-pool figures are shown beside the 1-thread limit (the goals
 * are stated against it) and their own pool limit is printed too, so neither reading hides the other.
 * Goals: group-commit append ≥ 70% of raw signing, verify ≥ 80% of raw verify.
 * `npm run bench -- --profile` prints instead where one governed MCP call's time goes (bench/profile.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  canonicalJson,
  fromHex,
  referenceEd25519,
  sha256Hex,
  signerFromSeed,
  toHex,
  verifySignature,
  verifySignatureAsync,
} from '../src/crypto/index.js';
import {
  appendReceiptSync,
  EntryInserter,
  LedgerWriter,
  openLedger,
  verifyChain,
  verifyChainParallel,
} from '../src/ledger/index.js';
import type { ChainVerdict } from '../src/ledger/index.js';
import {
  canonicalMembers,
  idInputText,
  ReceiptDraftSchema,
  signedText,
  signReceipt,
  signReceiptAsync,
} from '../src/receipt/index.js';
import type { Receipt } from '../src/receipt/index.js';
import { verifyCapability } from '../src/capability/index.js';
import { guards, Kernel } from '../src/kernel/index.js';
import { certificateFigures } from './certificates.js';
import { checkpointFigures } from './checkpoints.js';
import { httpBridgeFigures } from './http-bridges.js';
import { mcpEdgeFigures, STEADY_AFTER } from './mcp-edge.js';
import { totalUs } from './process-cpu.js';
import type { CallCpu } from './process-cpu.js';
import { acpEdgeFigures, acpProxyFigures } from './acp.js';
import { profileFigures } from './profile.js';
import { postgresFigures } from './postgres.js';
import { inSeries, loneCommitLatency, syncLatency, withCommits } from './bounds.js';
import { sqliteFloor } from './ledger-floor.js';
import { draft } from './drafts.js';
import { cliStartFigures } from './cli-start.js';

const SEED = fromHex('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60');
const signer = signerFromSeed(SEED);
/** Idle time before each spaced commit: about a dispatch, the time between a lone call's reservation and its receipt. */
const SPACING_MS = 1;

/** Runs `op` repeatedly for about `ms` milliseconds; returns operations per second. */
function rate(ms: number, op: (i: number) => void): number {
  for (let i = 0; i < 50; i++) op(i); // warm-up
  let n = 0;
  const start = process.hrtime.bigint();
  const deadline = start + BigInt(ms) * 1_000_000n;
  let now = start;
  while (now < deadline) {
    for (let k = 0; k < 20; k++) op(n++);
    now = process.hrtime.bigint();
  }
  return n / (Number(now - start) / 1e9);
}

async function timed(op: () => Promise<number> | number): Promise<number> {
  const start = process.hrtime.bigint();
  const count = await op();
  return count / (Number(process.hrtime.bigint() - start) / 1e9);
}

type Row = { name: string; value: number; beside: string; ratio: number | null; note: string };
const rows: Row[] = [];
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
function row(name: string, value: number, beside = '(limit)', limit?: number, note = ''): void {
  rows.push({ name, value, beside, ratio: limit === undefined ? null : value / limit, note });
}

/** Many operations in flight on libuv's thread pool: the 2-core limit for sign/verify. */
async function poolRate(total: number, op: () => Promise<unknown>): Promise<number> {
  return timed(async () => {
    let next = 0;
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        while (next++ < total) await op();
      }),
    );
    return total;
  });
}

/** 64 producers, each signing then awaiting its append, through one group-commit writer. */
async function groupAppend(
  path: string,
  perProducer: number,
  sign: (k: number) => Receipt | Promise<Receipt>,
  onThread = false,
  walBackfill = true,
): Promise<{ rate: number; writer: LedgerWriter }> {
  const ledger = onThread ? null : openLedger(path);
  const writer =
    ledger === null ? await LedgerWriter.onThread(path, { walBackfill }) : new LedgerWriter(ledger, { walBackfill });
  const rate = await timed(async () => {
    await Promise.all(
      Array.from({ length: 64 }, async (_, p) => {
        for (let i = 0; i < perProducer; i++) {
          const k = p * perProducer + i;
          await writer.append({ receipt: await sign(k), sessionId: `session-${p}` });
        }
      }),
    );
    return 64 * perProducer;
  });
  await writer.close();
  ledger?.close();
  return { rate, writer };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'chio-bench-'));
  const sample = signReceipt(draft(1), signer, { nonce: 'sample' });
  const message = new TextEncoder().encode(signedText(canonicalMembers(sample)));
  const sig = toHex(signer.sign(message));
  const sigBytes = fromHex(sig);
  const pub = fromHex(signer.publicKeyHex);
  console.log(
    `chio bench — node ${process.version}, ${cpus().length} cores, ${message.length}-byte signed receipt, ${dir}`,
  );

  const nodeSign = rate(1500, () => signer.sign(message));
  const nodeVerify = rate(1500, () => verifySignature(signer.publicKeyHex, message, sig));
  const poolSign = await poolRate(20_000, () => signer.signAsync(message));
  const poolVerify = await poolRate(10_000, () => verifySignatureAsync(signer.publicKeyHex, message, sig));
  row('raw Ed25519 sign, node:crypto, 1 thread', nodeSign);
  row('raw Ed25519 verify, node:crypto, 1 thread', nodeVerify);
  row('raw Ed25519 sign, node:crypto, thread pool', poolSign, 'node sign', nodeSign, 'every core');
  row('raw Ed25519 verify, node:crypto, thread pool', poolVerify, 'node verify', nodeVerify, 'every core');
  row(
    'raw Ed25519 sign, @noble/ed25519 (reference)',
    rate(1000, () => referenceEd25519.sign(SEED, message)),
    'node sign',
    nodeSign,
  );
  row(
    'raw Ed25519 verify, @noble/ed25519 (reference)',
    rate(1000, () => referenceEd25519.verify(pub, message, sigBytes)),
    'node verify',
    nodeVerify,
  );
  // Drafts built beforehand (a draft's own content hash is not part of signing it).
  const drafts = Array.from({ length: 1024 }, (_, i) => draft(i));
  const signOne = rate(1500, (i) => signReceipt(drafts[i % 1024]!, signer, { nonce: `s${i}` }));
  row('sign a receipt (zod + JCS + id + Ed25519)', signOne, 'node sign', nodeSign, 'goal ≥ 0.8');
  {
    // What signing a receipt cannot skip besides the signature: the draft is validated (a boundary:
    // drafts come from producers) and canonicalized (RFC 8785) once each, and two SHA-256 digests
    // are taken (DESIGN §4 parameter_hash = H(parameters), §5 id = sha256 of the id input), here
    // of the sample receipt's own texts. Their sum, each timed alone, is a first bound of the row
    // above; the same steps done together in one loop, the second (lower, unless the VM's speed
    // changed between the raw signing rate and this row).
    const parse = rate(1000, (i) => ReceiptDraftSchema.parse(drafts[i % 1024]));
    const jcs = rate(1000, (i) => canonicalJson(drafts[i % 1024]));
    const parametersText = canonicalJson(sample.action.parameters);
    const idInput = idInputText(canonicalMembers(sample));
    const digests = rate(1000, () => sha256Hex(parametersText) + sha256Hex(idInput));
    row('  zod parse of the draft alone', parse, 'node sign', nodeSign);
    row('  JCS of the draft alone', jcs, 'node sign', nodeSign);
    row('  the two SHA-256 digests alone (parameter_hash, id)', digests, 'node sign', nodeSign);
    row(
      '  bound: Ed25519 + parse + JCS + the two digests, nothing else',
      inSeries(nodeSign, parse, jcs, digests),
      'node sign',
      nodeSign,
      'each step timed alone',
    );
    // The same steps one receipt after another, as signing must do them: each then runs beside
    // the others (their code and data evicting each other's from the caches, their garbage
    // collected together), which no step timed alone pays. Generous still: the parameters' text
    // is canonicalized beforehand, and nothing but these steps is done.
    const parametersTexts = drafts.map((d) => canonicalJson(d.action.parameters));
    const together = rate(1500, (i) => {
      const text = canonicalJson(ReceiptDraftSchema.parse(drafts[i % 1024]));
      signer.sign(`${text}${sha256Hex(parametersTexts[i % 1024]!)}${sha256Hex(text)}`);
    });
    row('  bound: the same steps in one loop', together, 'node sign', nodeSign, 'the most signing a receipt can reach');
  }

  // 1 producer: sign, then one BEGIN IMMEDIATE … COMMIT (one fsync) per receipt.
  let oneCommitEach = 0;
  {
    const ledger = openLedger(join(dir, 'single.sqlite'));
    const inserter = new EntryInserter(ledger);
    const n = 2000;
    const r = await timed(() => {
      for (let i = 0; i < n; i++)
        appendReceiptSync(
          ledger,
          { receipt: signReceipt(draft(i), signer, { nonce: `one-${i}` }), sessionId: `s${i % 8}` },
          inserter,
        );
      return n;
    });
    row('append, 1 producer, 1 txn + fsync per receipt', r, 'node sign', nodeSign);
    oneCommitEach = r;
    ledger.close();
  }
  // What one durable commit costs here, each timed alone: the unit of the latency goals below.
  // Back to back, then spaced as one governed call in flight spaces its two commits (a dispatch
  // apart, ~1 ms here): this disk syncs two to three times faster when a sync follows another at once,
  // so the spaced figure is the one the bounds of calls made one at a time use.
  const loneReceipts = (tag: string) =>
    Array.from({ length: 550 }, (_, i) => signReceipt(draft(i), signer, { nonce: `${tag}-${i}` }));
  const lone = await loneCommitLatency(join(dir, 'lone.sqlite'), loneReceipts('lone'));
  const spaced = await loneCommitLatency(join(dir, 'spaced.sqlite'), loneReceipts('spaced'), SPACING_MS);
  // A governed call alone waits for two durable commits (its reservation before the tool runs,
  // its receipt before the answer), each a lone commit spaced by the work between them: it takes
  // at least the ungoverned round trip's p50 plus two spaced lone commits.
  const twoCommitBound = (label: string, limit: { perSecond: number; p50ms: number }, beside: string, goal = '') => {
    const bound = withCommits(1000 / limit.p50ms, 2, spaced.p50ms);
    row(label, bound, beside, limit.perSecond, `p50 ${(1000 / bound).toFixed(2)} ms${goal}`);
  };
  // The MCP latency goal: the direct call plus one durable commit plus 0.3 ms.
  const mcpLatencyGoal = (directP50: number) =>
    `; goal p50 ≤ ${(directP50 + lone.p50ms + 0.3).toFixed(2)} ms (direct + one back-to-back commit + 0.3), ${(directP50 + spaced.p50ms + 0.3).toFixed(2)} ms with a spaced one`;
  const syncNow = await syncLatency(join(dir, 'sync.bin'), 500);
  const syncSpaced = await syncLatency(join(dir, 'sync-spaced.bin'), 500, SPACING_MS);
  const p = (l: { p50ms: number; p90ms: number }) => `p50 ${l.p50ms.toFixed(2)} ms, p90 ${l.p90ms.toFixed(2)} ms`;
  row(
    'the disk: one 4 KiB page written and fdatasynced, back to back, p50',
    1000 / syncNow.p50ms,
    '(limit)',
    undefined,
    p(syncNow),
  );
  row(
    `  … ${SPACING_MS} ms idle before each, p50`,
    1000 / syncSpaced.p50ms,
    'back to back',
    1000 / syncNow.p50ms,
    p(syncSpaced),
  );
  row('a lone durable commit (one receipt, FULL), back to back, p50', 1000 / lone.p50ms, '(limit)', undefined, p(lone));
  row(
    `  … ${SPACING_MS} ms idle before each (as a lone governed call's), p50`,
    1000 / spaced.p50ms,
    'back to back',
    1000 / lone.p50ms,
    p(spaced),
  );

  const perProducer = 400;
  let ledgerAlone = 0;
  /** Kernel decisions on the MCP rows' echo call, in-process, 16 in flight (the kernel section). */
  let kernelEcho16 = 0;
  /** CPU µs per decision of those (every thread of this process: signing on the pool, WAL backfill). */
  let kernelEcho16CpuUs = 0;
  /** CPU µs per entry of SQLite alone writing the ledger's rows, 64 a commit (the ledger section). */
  let sqliteEntryCpuUs = 0;
  // The ledger alone: receipts signed beforehand, 64 producers appending through group commit.
  {
    const presigned = Array.from({ length: 64 * perProducer }, (_, k) =>
      signReceipt(draft(k), signer, { nonce: `p-${k}` }),
    );
    // With the WAL backfill thread (the default) and with SQLite's checkpoints left inside COMMIT,
    // two rounds each in alternating order (the first writer of a process runs on colder code).
    const backfilled: number[] = [];
    const inCommit: number[] = [];
    let perCommit = 0;
    for (const [round, order] of [
      [0, [true, false]],
      [1, [false, true]],
    ] as const) {
      for (const walBackfill of order) {
        const path = join(dir, `presigned-${round}-${walBackfill ? 'thread' : 'commit'}.sqlite`);
        const g = await groupAppend(path, perProducer, (k) => presigned[k]!, false, walBackfill);
        (walBackfill ? backfilled : inCommit).push(g.rate);
        if (walBackfill) perCommit = g.writer.stats.appended / g.writer.stats.commits;
      }
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    ledgerAlone = mean(backfilled);
    row(
      'group commit, 64 producers, pre-signed receipts',
      mean(backfilled),
      'node sign',
      nodeSign,
      `ledger only; ${fmt(perCommit)}/commit; rounds ${backfilled.map(fmt).join(', ')}/s; goal ≥ 1.0`,
    );
    // The same rows written again by SQLite alone: what any writer of them can reach here.
    const floor = await sqliteFloor(join(dir, 'presigned-0-thread.sqlite'), join(dir, 'presigned-floor.sqlite'));
    sqliteEntryCpuUs = floor.cpuUsPerEntry;
    row(
      '  bound: SQLite alone writing the same rows, 64 a commit',
      floor.rate,
      'node sign',
      nodeSign,
      `entries (link trigger, indexes), subtrees, sessions; ${floor.cpuUsPerEntry.toFixed(0)} µs CPU an entry; the row above is ${(ledgerAlone / floor.rate).toFixed(2)} of it`,
    );
    row(
      '    … into a bare table (no link trigger, no index but receipt_id)',
      (await sqliteFloor(join(dir, 'presigned-0-thread.sqlite'), join(dir, 'presigned-bare.sqlite'), true)).rate,
      'node sign',
      nodeSign,
      'the most a leaner schema could give',
    );
    row(
      '  … WAL checkpoints inside COMMIT (no backfill thread)',
      mean(inCommit),
      'node sign',
      nodeSign,
      `rounds ${inCommit.map(fmt).join(', ')}/s; the backfill thread: ${(mean(backfilled) / mean(inCommit)).toFixed(2)}× this`,
    );
    const t = await groupAppend(join(dir, 'presigned-thread.sqlite'), perProducer, (k) => presigned[k]!, true);
    row(
      '  … committed on the writer thread',
      t.rate,
      'node sign',
      nodeSign,
      `ledger only; ${fmt(t.writer.stats.appended / t.writer.stats.commits)}/commit`,
    );
  }
  const { rate: syncRate } = await groupAppend(join(dir, 'group-sync.sqlite'), perProducer, (k) =>
    signReceipt(draft(k), signer, { nonce: `g-${k}` }),
  );
  row('group commit, 64 producers, signReceipt', syncRate, 'node sign', nodeSign, 'goal ≥ 0.70');
  row(
    '  bound: sign a receipt, then the ledger alone, one thread',
    inSeries(signOne, ledgerAlone),
    'node sign',
    nodeSign,
    'the two rows above, one after the other',
  );
  const { rate: asyncRate } = await groupAppend(join(dir, 'group-async.sqlite'), perProducer, (k) =>
    signReceiptAsync(draft(k), signer, { nonce: `a-${k}` }),
  );
  row(
    'group commit, 64 producers, signReceiptAsync',
    asyncRate,
    'node sign',
    nodeSign,
    'goal ≥ 0.70 (signing on the pool)',
  );
  // With the signature on the pool, this thread still validates, canonicalizes and hashes each
  // receipt: signing a receipt minus the raw signature, then the ledger alone.
  const signOneButEd25519 = 1 / (1 / signOne - 1 / nodeSign);
  row(
    '  bound: signing minus Ed25519, then the ledger alone',
    inSeries(signOneButEd25519, ledgerAlone),
    'node sign',
    nodeSign,
    'the Ed25519 step on the other core, for free',
  );
  const { rate: threadRate } = await groupAppend(
    join(dir, 'group-thread-sync.sqlite'),
    perProducer,
    (k) => signReceipt(draft(k), signer, { nonce: `ts-${k}` }),
    true,
  );
  row('group commit on the writer thread, signReceipt', threadRate, 'node sign', nodeSign, 'goal ≥ 0.70');
  const groupDb = join(dir, 'group-thread-async.sqlite');
  const { rate: bothRate } = await groupAppend(
    groupDb,
    perProducer,
    (k) => signReceiptAsync(draft(k), signer, { nonce: `ta-${k}` }),
    true,
  );
  row(
    'group commit on the writer thread, signReceiptAsync',
    bothRate,
    'node sign',
    nodeSign,
    'goal ≥ 0.70 (commit and signing off the main thread)',
  );

  // Full-chain verification of the last group ledger (25,600 entries).
  {
    const ledger = openLedger(groupDb, { readonly: true });
    const run = async (f: () => ChainVerdict | Promise<ChainVerdict>) =>
      timed(async () => {
        const v = await f();
        if (!v.ok) throw new Error(`bench ledger failed verification: ${v.check}`);
        return v.entries;
      });
    row(
      'verify chain, signatures, 1 thread (verifyChain)',
      await run(() => verifyChain(ledger)),
      'node verify',
      nodeVerify,
      'goal ≥ 0.80',
    );
    row(
      'verify chain, signatures, pool (chio ledger verify)',
      await run(() => verifyChainParallel(ledger)),
      'node verify',
      nodeVerify,
      'goal ≥ 0.80',
    );
    row(
      'verify chain, --no-signatures',
      await run(() => verifyChain(ledger, { signatures: false })),
      'node verify',
      nodeVerify,
    );
    ledger.close();
  }

  // Kernel decisions: capability verification, revocation lookup, all guards, reservation,
  // dispatch to an in-process tool, signing and group-committed append — per call, 64 in flight.
  {
    const kernel = Kernel.open({ ledgerPath: join(dir, 'kernel.sqlite'), seed: SEED });
    kernel.registerToolServer({
      manifest: {
        schema: 'chio.manifest.v1',
        server_id: 'fs',
        name: 'bench',
        version: '1',
        tools: [{ name: 'read_file', description: '', input_schema: {}, has_side_effects: false }],
      },
      async invoke(_tool, args) {
        return { text: `contents of ${(args as { path: string }).path}` };
      },
    });
    // The MCP rows' call (server-everything's echo) as an in-process tool: what the kernel's own
    // work allows a governed MCP edge at the same concurrency.
    kernel.registerToolServer({
      manifest: {
        schema: 'chio.manifest.v1',
        server_id: 'everything',
        name: 'bench',
        version: '1',
        tools: [{ name: 'echo', description: '', input_schema: {}, has_side_effects: false }],
      },
      async invoke(_tool, args) {
        return { content: [{ type: 'text', text: `Echo: ${(args as { message: string }).message}` }] };
      },
    });
    const agent = signerFromSeed(fromHex('22'.repeat(32)));
    const capability = kernel.issueCapability({ subject: agent.publicKeyHex, ttlSeconds: 86_400 });
    const decide = (serverId: string, toolName: string, args: Record<string, unknown>, total: number, inFlight = 64) =>
      timed(async () => {
        let next = 0;
        await Promise.all(
          Array.from({ length: inFlight }, async () => {
            while (next++ < total)
              await kernel.evaluateToolCall({
                capability,
                caller: agent.publicKeyHex,
                serverId,
                toolName,
                arguments: args,
              });
          }),
        );
        return total;
      });
    const allow = await decide('fs', 'read_file', { path: '/home/dev/project/src/index.ts' }, 6400);
    const deny = await decide('fs', 'read_file', { path: '/home/dev/project/.env' }, 6400);
    {
      const cpu = process.cpuUsage();
      kernelEcho16 = await decide('everything', 'echo', { message: 'hello' }, 4000, 16);
      const spent = process.cpuUsage(cpu);
      kernelEcho16CpuUs = (spent.user + spent.system) / 4000;
    }
    row('kernel decisions, allow path (all guards, dispatch, receipt)', allow, 'node sign', nodeSign, 'goal ≥ 0.5');
    row('kernel decisions, deny path (forbidden-path, receipt)', deny, 'node sign', nodeSign);
    const decisionOnly = rate(1500, () =>
      verifyCapability(capability, {
        target: {
          serverId: 'fs',
          toolName: 'read_file',
          operation: 'invoke',
          arguments: { path: '/home/dev/project/src/x.ts' },
        },
        caller: agent.publicKeyHex,
        trustedIssuers: new Set([kernel.publicKeyHex]),
      }),
    );
    row('  capability verification alone (signature cached)', decisionOnly, 'node verify', nodeVerify);
    const pipeline = guards.buildGuards(kernel.policy.policy.guards);
    const guardsOnly = rate(1500, () =>
      guards.runGuards(pipeline, {
        serverId: 'fs',
        toolName: 'read_file',
        arguments: { path: '/home/dev/project/src/x.ts' },
      }),
    );
    row(
      '  guard pipeline alone (default guards)',
      guardsOnly,
      'node sign',
      nodeSign,
      'kernel work beside one signature',
    );
    row(
      '  bound: the pieces above, signing minus Ed25519, the ledger alone',
      inSeries(decisionOnly, guardsOnly, signOneButEd25519, ledgerAlone),
      'node sign',
      nodeSign,
      'no reservation, dispatch or promise counted; goal ≥ 0.5',
    );
    // A shell command: parsed by mvdan/sh, every word judged as a path (the parse is not memoised
    // across distinct texts, so each call gets its own text).
    const shellOnly = rate(1500, (i) =>
      guards.runGuards(
        pipeline,
        {
          serverId: 'sh',
          toolName: 'bash',
          arguments: { command: `git status && npm test -- --grep case${i} | tee build/log.txt` },
        },
        { pathBases: ['/home/dev/project'] },
      ),
    );
    row(
      '  guard pipeline alone, a shell command (parse + judge)',
      shellOnly,
      'node sign',
      nodeSign,
      'kernel work beside one signature',
    );
    await kernel.close();
  }

  // The MCP edge: one client, one call in flight, through chio vs straight to the upstream.
  {
    const { direct, relayed, governed } = await mcpEdgeFigures();
    row(
      'MCP tools/call direct to server-everything (stdio)',
      direct.perSecond,
      '(limit)',
      undefined,
      `p50 ${direct.p50ms.toFixed(2)} ms, p99 ${direct.p99ms.toFixed(2)} ms`,
    );
    row(
      '  … through a null relay (copies bytes, judges nothing)',
      relayed.perSecond,
      'direct',
      direct.perSecond,
      `p50 ${relayed.p50ms.toFixed(2)} ms: the floor of any wrapping edge`,
    );
    row(
      'MCP tools/call through chio mcp serve (governed)',
      governed.perSecond,
      'direct',
      direct.perSecond,
      `p50 ${governed.p50ms.toFixed(2)} ms, p99 ${governed.p99ms.toFixed(2)} ms`,
    );
    // The goal allows one durable commit beside the direct call; a governed call makes two.
    twoCommitBound(
      '  bound: direct p50 + two spaced lone durable commits',
      direct,
      'direct',
      mcpLatencyGoal(direct.p50ms),
    );
    row('MCP tools/call direct, 16 in flight', direct.sixteenInFlight, '(limit)');
    row(
      '  … through a null relay, 16 in flight',
      relayed.sixteenInFlight,
      'direct',
      direct.sixteenInFlight,
      'the floor of any wrapping edge',
    );
    row(
      'MCP tools/call through chio mcp serve, 16 in flight',
      governed.sixteenInFlight,
      'direct',
      direct.sixteenInFlight,
      'goal ≥ 0.5',
    );
    // A governed edge makes the kernel's decisions at the same concurrency, and relays as the null
    // relay does: it can reach neither rate (the kernel's was measured with both cores to itself).
    row(
      '  bound: the kernel alone on the same call, in-process, 16 in flight',
      Math.min(kernelEcho16, relayed.sixteenInFlight),
      'direct',
      direct.sixteenInFlight,
      `kernel ${fmt(kernelEcho16)}/s, null relay ${fmt(relayed.sixteenInFlight)}/s: the lower; goal ≥ 0.5`,
    );
    // Where the CPU of a call goes with 16 in flight, every core busy: the client (this process),
    // the edge (or the relay) and the upstream, per call. A governed edge must do the null relay's
    // work and the kernel's (its CPU per decision in-process, above): with the client and the
    // upstream beside them, that CPU over every core bounds the calls per second.
    const cpuNote = (c: CallCpu, middle = 'edge') =>
      `CPU µs per call: client ${c.clientUs.toFixed(0)}, ${middle} ${c.edgeUs.toFixed(0)}${middle === 'edge' ? `, upstream ${c.upstreamUs.toFixed(0)}` : ''}; total ${totalUs(c).toFixed(0)}`;
    const cores = cpus().length;
    row(
      '  CPU of a direct call, 16 in flight',
      (cores * 1e6) / totalUs(direct.sixteenCpu),
      'direct',
      direct.sixteenInFlight,
      `${cpuNote(direct.sixteenCpu, 'server')} (every core busy: calls/s)`,
    );
    row(
      '  CPU of a relayed call, 16 in flight',
      (cores * 1e6) / totalUs(relayed.sixteenCpu),
      'direct',
      direct.sixteenInFlight,
      cpuNote(relayed.sixteenCpu),
    );
    row(
      '  CPU of a governed call, 16 in flight',
      (cores * 1e6) / totalUs(governed.sixteenCpu),
      'direct',
      direct.sixteenInFlight,
      cpuNote(governed.sixteenCpu),
    );
    row(
      "  bound: every core on the relayed call plus the kernel's CPU per decision",
      (cores * 1e6) / (totalUs(relayed.sixteenCpu) + kernelEcho16CpuUs),
      'direct',
      direct.sixteenInFlight,
      `kernel ${kernelEcho16CpuUs.toFixed(0)} µs per decision in-process (16 in flight); the governed edge spends ${(governed.sixteenCpu.edgeUs - relayed.sixteenCpu.edgeUs - kernelEcho16CpuUs).toFixed(0)} µs more`,
    );
    // The same routes at the JIT's steady state (mcp-edge.ts): every process of a route has served
    // STEADY_AFTER calls. One in flight, the bound is the one above with the direct call's steady
    // p50. At 16 in flight, whatever an edge does, a governed call adds to the relayed one at
    // least one Ed25519 signature and the SQLite writes of one receipt's rows: with the relayed
    // call's CPU (client, relay, upstream), that CPU over every core bounds the calls per second.
    // Generous: the reservation's rows and the kernel's own checks are left out, and the rows are
    // counted as written 64 a commit.
    row(
      `MCP tools/call direct, one in flight, steady state (after ${fmt(STEADY_AFTER)} calls)`,
      direct.steady.sequential.perSecond,
      '(limit)',
      undefined,
      `p50 ${direct.steady.sequential.p50ms.toFixed(2)} ms, p99 ${direct.steady.sequential.p99ms.toFixed(2)} ms`,
    );
    row(
      'MCP tools/call through chio mcp serve, one in flight, steady state',
      governed.steady.sequential.perSecond,
      'direct',
      direct.steady.sequential.perSecond,
      `p50 ${governed.steady.sequential.p50ms.toFixed(2)} ms, p99 ${governed.steady.sequential.p99ms.toFixed(2)} ms`,
    );
    twoCommitBound(
      '  bound: direct p50 + two spaced lone durable commits, steady state',
      direct.steady.sequential,
      'direct',
      mcpLatencyGoal(direct.steady.sequential.p50ms),
    );
    row(
      `MCP tools/call direct, 16 in flight, steady state`,
      direct.steady.perSecond,
      '(limit)',
      undefined,
      cpuNote(direct.steady.cpu, 'server'),
    );
    row(
      '  … through a null relay, steady state',
      relayed.steady.perSecond,
      'direct',
      direct.steady.perSecond,
      cpuNote(relayed.steady.cpu),
    );
    row(
      'MCP tools/call through chio mcp serve, 16 in flight, steady state',
      governed.steady.perSecond,
      'direct',
      direct.steady.perSecond,
      `${cpuNote(governed.steady.cpu)}; goal ≥ 0.5`,
    );
    const signUs = 1e6 / nodeSign;
    row(
      '  bound: every core on the relayed call + one raw signature + SQLite alone writing its entry',
      (cores * 1e6) / (totalUs(relayed.steady.cpu) + signUs + sqliteEntryCpuUs),
      'direct',
      direct.steady.perSecond,
      `${totalUs(relayed.steady.cpu).toFixed(0)} + ${signUs.toFixed(0)} + ${sqliteEntryCpuUs.toFixed(0)} µs; the governed edge spends ${(governed.steady.cpu.edgeUs - relayed.steady.cpu.edgeUs).toFixed(0)} µs more than the relay`,
    );
    const bridges = await httpBridgeFigures();
    row(
      'MCP over Streamable HTTP via mcp-proxy (ungoverned bridge)',
      bridges.mcpProxy.sequential.perSecond,
      '(limit)',
      undefined,
      `p50 ${bridges.mcpProxy.sequential.p50ms.toFixed(2)} ms`,
    );
    row(
      '… via chio mcp serve-http (governed)',
      bridges.chio.sequential.perSecond,
      'mcp-proxy',
      bridges.mcpProxy.sequential.perSecond,
      `p50 ${bridges.chio.sequential.p50ms.toFixed(2)} ms; goal ≥ 1.0, p50 no worse`,
    );
    row('MCP over HTTP via mcp-proxy, 16 in flight', bridges.mcpProxy.concurrent, '(limit)');
    row(
      '… via chio mcp serve-http, 16 in flight',
      bridges.chio.concurrent,
      'mcp-proxy',
      bridges.mcpProxy.concurrent,
      'goal ≥ 1.0',
    );
    row(
      `MCP over HTTP via mcp-proxy, steady state (after ${fmt(STEADY_AFTER)} calls)`,
      bridges.mcpProxy.steady.sequential.perSecond,
      '(limit)',
      undefined,
      `p50 ${bridges.mcpProxy.steady.sequential.p50ms.toFixed(2)} ms`,
    );
    row(
      '… via chio mcp serve-http, steady state',
      bridges.chio.steady.sequential.perSecond,
      'mcp-proxy',
      bridges.mcpProxy.steady.sequential.perSecond,
      `p50 ${bridges.chio.steady.sequential.p50ms.toFixed(2)} ms; goal ≥ 1.0, p50 no worse`,
    );
    const bridgeCpu = (c: CallCpu) =>
      `CPU µs per call: client ${c.clientUs.toFixed(0)}, bridge ${c.edgeUs.toFixed(0)}, upstream ${c.upstreamUs.toFixed(0)}; total ${totalUs(c).toFixed(0)}`;
    row(
      'MCP over HTTP via mcp-proxy, 16 in flight, steady state',
      bridges.mcpProxy.steady.concurrent,
      '(limit)',
      undefined,
      bridgeCpu(bridges.mcpProxy.steady.cpu),
    );
    row(
      '… via chio mcp serve-http, 16 in flight, steady state',
      bridges.chio.steady.concurrent,
      'mcp-proxy',
      bridges.mcpProxy.steady.concurrent,
      `${bridgeCpu(bridges.chio.steady.cpu)}; goal ≥ 1.0`,
    );
    // Not a bound of physics, as the null relay is for stdio: mcp-proxy's own rate, had each of its
    // calls also cost the least a receipt costs (one signature, SQLite writing its entry), the
    // rate scaled by the CPU per call (every core busy). A governed bridge that relayed at
    // mcp-proxy's cost would reach this; the goal asks for a bridge whose HTTP handling is cheaper
    // than mcp-proxy's by at least governance's cost (chio answers a quick call with one JSON
    // object where mcp-proxy opens an SSE stream: src/edges/mcp/held-answers.ts).
    const proxyCpu = totalUs(bridges.mcpProxy.steady.cpu);
    row(
      '  if chio relayed at mcp-proxy’s CPU + one raw signature + SQLite alone writing its entry',
      (bridges.mcpProxy.steady.concurrent * proxyCpu) / (proxyCpu + signUs + sqliteEntryCpuUs),
      'mcp-proxy',
      bridges.mcpProxy.steady.concurrent,
      `mcp-proxy's rate × ${proxyCpu.toFixed(0)} / (${proxyCpu.toFixed(0)} + ${signUs.toFixed(0)} + ${sqliteEntryCpuUs.toFixed(0)}) µs; chio's bridge spends ${(bridges.chio.steady.cpu.edgeUs - bridges.mcpProxy.steady.cpu.edgeUs).toFixed(0)} µs more than mcp-proxy's`,
    );
  }

  // The ACP edge and proxy: one call (or one prompt turn) in flight.
  {
    const edge = await acpEdgeFigures();
    const latency = (s: { p50ms: number; p99ms: number }) =>
      `p50 ${s.p50ms.toFixed(2)} ms, p99 ${s.p99ms.toFixed(2)} ms`;
    row(
      'ACP session/list_capabilities round trips (wire, no kernel)',
      edge.wire.perSecond,
      '(limit)',
      undefined,
      latency(edge.wire),
    );
    row(
      'ACP tool/invoke through the edge (governed, receipt)',
      edge.invoke.perSecond,
      'wire',
      edge.wire.perSecond,
      `goal ≥ 0.5; ${latency(edge.invoke)}`,
    );
    twoCommitBound('  bound: the wire p50 + two spaced lone durable commits', edge.wire, 'wire');
    row(
      `ACP session/list_capabilities, steady state (after ${fmt(STEADY_AFTER)} of each)`,
      edge.steady.wire.perSecond,
      '(limit)',
      undefined,
      latency(edge.steady.wire),
    );
    row(
      'ACP tool/invoke through the edge, steady state',
      edge.steady.invoke.perSecond,
      'wire',
      edge.steady.wire.perSecond,
      `goal ≥ 0.5; ${latency(edge.steady.invoke)}`,
    );
    twoCommitBound('  bound: the wire p50 + two spaced lone durable commits, steady state', edge.steady.wire, 'wire');
    const p = await acpProxyFigures();
    row('ACP fs reads agent → editor, direct', p.readsDirect.fresh, '(limit)');
    row('ACP fs reads through chio acp proxy (FsGuard)', p.readsProxied.fresh, 'direct', p.readsDirect.fresh);
    row('ACP tool_call updates, direct', p.updatesDirect.fresh, '(limit)');
    row(
      'ACP tool_call updates through the proxy (receipt each)',
      p.updatesProxied.fresh,
      'direct',
      p.updatesDirect.fresh,
      'goal ≥ 0.5',
    );
    row(
      '  same, beside 1 producer, 1 txn + fsync per receipt',
      p.updatesProxied.fresh,
      '1 commit',
      oneCommitEach,
      'above 1: updates judged while earlier receipts commit share their fsyncs (each still forwarded after its own)',
    );
    const steady = `steady state (after ${fmt(STEADY_AFTER)} messages)`;
    row(`ACP fs reads agent → editor, direct, ${steady}`, p.readsDirect.steady, '(limit)');
    row('ACP fs reads through chio acp proxy, steady state', p.readsProxied.steady, 'direct', p.readsDirect.steady);
    row(`ACP tool_call updates, direct, ${steady}`, p.updatesDirect.steady, '(limit)');
    row(
      'ACP tool_call updates through the proxy, steady state',
      p.updatesProxied.steady,
      'direct',
      p.updatesDirect.steady,
      `goal ≥ 0.5; every update a new tool call: ${fmt(p.updatesSent)} sent, ${fmt(p.updatesLedgerEntries)} ledger entries`,
    );
    // The direct turn's CPU (the client here, the agent its child) on every core, plus what the
    // proxy cannot skip per update: one raw signature and SQLite alone writing the entry.
    const d = p.updatesDirect.steadyCpu;
    const x = p.updatesProxied.steadyCpu;
    const directUs = d.clientUs + d.childUs;
    const updateSignUs = 1e6 / nodeSign;
    row(
      '  bound: every core on the direct turn + one raw signature + SQLite alone writing its entry',
      (cpus().length * 1e6) / (directUs + updateSignUs + sqliteEntryCpuUs),
      'direct',
      p.updatesDirect.steady,
      `${directUs.toFixed(0)} + ${updateSignUs.toFixed(0)} + ${sqliteEntryCpuUs.toFixed(0)} µs; through the proxy CPU µs per update: client ${x.clientUs.toFixed(0)}, proxy ${x.childUs.toFixed(0)}, agent ${x.grandchildrenUs.toFixed(0)}`,
    );
  }

  // Compliance certificates over a 10,000-receipt session among 90,000 others.
  {
    const c = await certificateFigures();
    row(
      `cert generate (${c.receipts} of 100,000 receipts)`,
      c.generate,
      'node verify',
      nodeVerify,
      'receipts per second, one thread',
    );
    row(
      'cert verify --full (same session)',
      c.verifyFull,
      'node verify',
      nodeVerify,
      'receipts per second, one thread',
    );
  }

  // Checkpoints, inclusion proofs and evidence bundles, each beside limits measured in that module.
  for (const r of await checkpointFigures()) row(r.name, r.value, r.beside, r.limit, r.note);

  // The command line: exec to exit, beside Node starting with nothing to load (bench/cli-start.ts).
  for (const r of cliStartFigures()) row(r.name, r.value, r.beside, r.limit, r.note);

  // The ledger on PostgreSQL beside SQLite: producer processes, and verification (bench/postgres.ts).
  for (const r of await postgresFigures(nodeVerify)) row(r.name, r.value, r.beside, r.limit, r.note ?? '');

  rmSync(dir, { recursive: true, force: true });
  const w = Math.max(...rows.map((r) => r.name.length));
  console.log(`\n${'figure'.padEnd(w)}  ${'per second'.padStart(10)}  ${'beside'.padEnd(11)}  ratio`);
  for (const r of rows) {
    console.log(
      `${r.name.padEnd(w)}  ${fmt(r.value).padStart(10)}  ${r.beside.padEnd(11)}  ${r.ratio === null ? '     ' : r.ratio.toFixed(2).padStart(5)}  ${r.note}`.trimEnd(),
    );
  }
}

/** `npm run bench -- --postgres`: only the PostgreSQL figures (and the raw verify rate beside them). */
async function postgresOnly(): Promise<void> {
  const sample = signReceipt(draft(1), signer, { nonce: 'sample' });
  const message = new TextEncoder().encode(signedText(canonicalMembers(sample)));
  const sig = toHex(signer.sign(message));
  const nodeVerify = rate(1000, () => verifySignature(signer.publicKeyHex, message, sig));
  row('raw Ed25519 verify, node:crypto, 1 thread', nodeVerify);
  for (const r of await postgresFigures(nodeVerify)) row(r.name, r.value, r.beside, r.limit, r.note ?? '');
  const w = Math.max(...rows.map((r) => r.name.length));
  for (const r of rows)
    console.log(
      `${r.name.padEnd(w)}  ${fmt(r.value).padStart(10)}  ${r.beside.padEnd(11)}  ${r.ratio === null ? '     ' : r.ratio.toFixed(2).padStart(5)}  ${r.note}`.trimEnd(),
    );
}

(process.argv.includes('--profile')
  ? profileFigures()
  : process.argv.includes('--postgres')
    ? postgresOnly()
    : main()
).catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
