/**
 * `node dist/bench/insert-cost.js [rounds]`: where the CPU of a group-commit append goes, per entry.
 * Not part of `npm run bench`; a tool for working on the append path.
 *
 *   commitOps    batches of 64 pre-signed, prepared receipts through `commitOps` (the ledger's own
 *                transaction, synchronous=FULL and synchronous=OFF, the latter leaving only CPU)
 *   pieces       the statements of one append written out here (exists, head, session head, entry
 *                hash, insert with the link trigger, Merkle subtrees, session upsert, grant count),
 *                each timed on its own, in batches of 64 at synchronous=OFF: once reading every head
 *                back for each entry, once carrying them through the batch as src/ledger/append.ts
 *                does now; plus the insert on a copy without the link trigger, to price the trigger.
 *                (The timer itself adds well under a microsecond per piece.)
 *   commitOps and pieces have a synchronous=FULL/OFF split: at OFF the commit waits for no fsync.
 *   group        the bench row "group commit, 64 producers, pre-signed receipts" (bench/run.ts)
 *                beside the raw Ed25519 signing rate of the same run
 *
 * Each part runs `rounds` times (default 3); the lowest and highest figures are printed;
 * `node dist/bench/insert-cost.js 3 group` runs only the bench row (for `node --cpu-prof`). The same
 * compiled file can be copied into another build's dist/bench/ to compare two builds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canonicalMembers, signedText, signReceipt } from '../src/receipt/index.js';
import type { Receipt } from '../src/receipt/index.js';
import { fromHex, signerFromSeed } from '../src/crypto/index.js';
import {
  commitOps,
  EntryInserter,
  entryHash,
  GENESIS_PREV_HASH,
  LedgerWriter,
  openLedger,
  prepareEntry,
  TreeAppender,
} from '../src/ledger/index.js';
import type { Ledger, PreparedEntry, WriteOp } from '../src/ledger/index.js';
import { draft } from './drafts.js';

const signer = signerFromSeed(fromHex('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60'));
const BATCH = 64;
const PRODUCERS = 64;
const PER_PRODUCER = 400;

const now = () => process.hrtime.bigint();
const us = (ns: bigint, n: number) => Number(ns) / 1000 / n;

function sessionOf(k: number): string {
  return `session-${Math.floor(k / PER_PRODUCER)}`;
}

/** CPU µs (user + system, every thread of the process) since `from`, per entry. */
const cpuUs = (from: NodeJS.CpuUsage, n: number) => {
  const d = process.cpuUsage(from);
  return (d.user + d.system) / n;
};

/**
 * Wall and CPU µs per entry of `commitOps` over `entries`, in batches of 64, after a warm-up of
 * 1,024 entries. CPU time leaves out the wait for fsync and is less disturbed by other work on the machine.
 */
function commitOpsCost(
  dir: string,
  name: string,
  entries: PreparedEntry[],
  synchronous: 'FULL' | 'OFF',
): { wall: number; cpu: number } {
  const ledger = openLedger(join(dir, name), { synchronous });
  const inserter = new EntryInserter(ledger);
  const ops: WriteOp[] = entries.map((entry) => ({ kind: 'append', entry }));
  const warm = 1024;
  for (let i = 0; i < warm; i += BATCH) commitOps(ledger, inserter, ops.slice(i, i + BATCH));
  const start = now();
  const cpu = process.cpuUsage();
  for (let i = warm; i < ops.length; i += BATCH) commitOps(ledger, inserter, ops.slice(i, i + BATCH));
  const cost = { cpu: cpuUs(cpu, ops.length - warm), wall: us(now() - start, ops.length - warm) };
  ledger.close();
  return cost;
}

/** The batch cache of the Merkle appender, typed loosely so this file also runs in a build without it. */
type RecentSubtreesLike = Parameters<TreeAppender['appended']>[2];
type TreeAppenderLike = TreeAppender & { recentSubtrees?: () => RecentSubtreesLike };

const PIECES = ['exists', 'head', 'sessionHead', 'entryHash', 'insert', 'tree', 'upsertSession', 'countGrant'] as const;
type Piece = (typeof PIECES)[number];

/**
 * The append of src/ledger/append.ts before the batch carried its heads, each statement timed.
 * The SQL texts are written out here rather than imported (append.ts names them INSERT_ENTRY_SQL
 * and UPSERT_SESSION_SQL): this file's compiled copy is also run against older builds' dist/ to
 * compare them, and those builds do not export the names.
 */
function piecesCost(ledger: Ledger, entries: PreparedEntry[], carried: boolean): Record<Piece | 'txn', number> {
  const db = ledger.db;
  const exists = db.prepare('SELECT 1 AS one FROM ledger_entries WHERE receipt_id = ?');
  const head = db.prepare('SELECT seq, entry_hash FROM ledger_entries ORDER BY seq DESC LIMIT 1');
  const sessionHead = db.prepare('SELECT max(seq) AS seq FROM ledger_entries WHERE session_id = ?');
  const insert = db.prepare(
    `INSERT INTO ledger_entries (seq, kind, receipt_id, session_id, session_prev_seq, prev_hash, entry_hash, body,
       timestamp, capability_id, tool_server, tool_name, verdict, receipt_kind, trust_level, kernel_key, tenant_id, producer)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const upsertSession = db.prepare(
    `INSERT INTO ledger_sessions (session_id, first_seq, last_seq, entry_count, first_timestamp, last_timestamp, head_entry_hash)
     VALUES (@sessionId, @seq, @seq, 1, @timestamp, @timestamp, @entryHash)
     ON CONFLICT (session_id) DO UPDATE SET
       last_seq = excluded.last_seq,
       entry_count = entry_count + 1,
       first_timestamp = min(first_timestamp, excluded.first_timestamp),
       last_timestamp = max(last_timestamp, excluded.last_timestamp),
       head_entry_hash = excluded.head_entry_hash`,
  );
  const countGrant = db.prepare(
    `INSERT INTO grant_usage (capability_id, grant_index, kernel_key, invocations) VALUES (?, ?, ?, 1)
     ON CONFLICT (capability_id, grant_index, kernel_key) DO UPDATE SET invocations = invocations + 1`,
  );
  const tree = new TreeAppender(db);
  const t: Record<Piece | 'txn', bigint> = {
    exists: 0n,
    head: 0n,
    sessionHead: 0n,
    entryHash: 0n,
    insert: 0n,
    tree: 0n,
    upsertSession: 0n,
    countGrant: 0n,
    txn: 0n,
  };
  const one = (entry: PreparedEntry, timing: boolean): void => {
    let a = now();
    let b: bigint;
    const mark = (p: Piece) => {
      b = now();
      if (timing) t[p] += b - a;
      a = b;
    };
    exists.get(entry.receiptId);
    mark('exists');
    const h = carried && last !== undefined ? last : (head.get() as { seq: number; entry_hash: string } | undefined);
    mark('head');
    const seq = (h?.seq ?? 0) + 1;
    const prevHash = h?.entry_hash ?? GENESIS_PREV_HASH;
    const sid = entry.sessionId;
    const s =
      sid === null
        ? null
        : carried && sessions.has(sid)
          ? sessions.get(sid)!
          : (sessionHead.get(sid) as { seq: number | null }).seq;
    mark('sessionHead');
    const hash = entryHash({
      seq,
      prevHash,
      receiptSha256: entry.receiptSha256,
      sessionId: entry.sessionId,
      sessionPrevSeq: s,
    });
    mark('entryHash');
    const c = entry.columns;
    insert.run(
      seq,
      entry.kind,
      entry.receiptId,
      entry.sessionId,
      s,
      prevHash,
      hash,
      entry.body,
      c.timestamp,
      c.capabilityId,
      c.toolServer,
      c.toolName,
      c.verdict,
      c.receiptKind,
      c.trustLevel,
      c.kernelKey,
      c.tenantId,
      entry.producer,
    );
    mark('insert');
    tree.appended(seq, hash, recent);
    mark('tree');
    if (entry.sessionId !== null)
      upsertSession.run({ sessionId: entry.sessionId, seq, timestamp: c.timestamp, entryHash: hash });
    mark('upsertSession');
    for (const g of entry.grants) countGrant.run(g.capabilityId, g.grantIndex, c.kernelKey);
    mark('countGrant');
    last = { seq, entry_hash: hash };
    if (sid !== null) sessions.set(sid, seq);
  };
  // `carried`: as a batch appends now (src/ledger/append.ts AppendBatch), when this build has it.
  let last: { seq: number; entry_hash: string } | undefined;
  let recent: RecentSubtreesLike | undefined;
  const sessions = new Map<string, number>();
  const fresh = () => {
    last = undefined;
    sessions.clear();
    recent = carried ? (tree as TreeAppenderLike).recentSubtrees?.() : undefined;
  };
  const warm = 1024;
  for (let i = 0; i < warm; i += BATCH)
    db.transaction(() => {
      fresh();
      for (const e of entries.slice(i, i + BATCH)) one(e, false);
    }).immediate();
  for (let i = warm; i < entries.length; i += BATCH) {
    const start = now();
    db.transaction(() => {
      fresh();
      for (const e of entries.slice(i, i + BATCH)) one(e, true);
    }).immediate();
    t.txn += now() - start;
  }
  const n = entries.length - warm;
  const out = {} as Record<Piece | 'txn', number>;
  for (const k of Object.keys(t) as Array<Piece | 'txn'>) out[k] = us(t[k], n);
  return out;
}

/** 64 producers, each awaiting its append of a pre-signed receipt, through one writer (bench/run.ts). */
async function groupRate(path: string, presigned: Receipt[]): Promise<{ rate: number; cpu: number }> {
  const ledger = openLedger(path);
  const writer = new LedgerWriter(ledger);
  const start = now();
  const cpu = process.cpuUsage();
  await Promise.all(
    Array.from({ length: PRODUCERS }, async (_, p) => {
      for (let i = 0; i < PER_PRODUCER; i++) {
        await writer.append({ receipt: presigned[p * PER_PRODUCER + i]!, sessionId: `session-${p}` });
      }
    }),
  );
  const r = {
    rate: (PRODUCERS * PER_PRODUCER) / (Number(now() - start) / 1e9),
    cpu: cpuUs(cpu, PRODUCERS * PER_PRODUCER),
  };
  await writer.close();
  ledger.close();
  return r;
}

function signRate(message: Uint8Array, ms: number): number {
  for (let i = 0; i < 50; i++) signer.sign(message);
  let n = 0;
  const start = now();
  const deadline = start + BigInt(ms) * 1_000_000n;
  let t = start;
  while (t < deadline) {
    for (let k = 0; k < 20; k++, n++) signer.sign(message);
    t = now();
  }
  return n / (Number(t - start) / 1e9);
}

const span = (xs: number[], digits = 1) => `${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}`;

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 3);
  const dir = mkdtempSync(join(tmpdir(), 'chio-insert-cost-'));
  try {
    const total = PRODUCERS * PER_PRODUCER;
    const presigned = Array.from({ length: total }, (_, k) => signReceipt(draft(k), signer, { nonce: `p-${k}` }));
    if (process.argv[3] === 'group') {
      // Only the bench row, for `node --cpu-prof`.
      const rates: number[] = [];
      for (let r = 0; r < rounds; r++) rates.push((await groupRate(join(dir, `group-${r}.sqlite`), presigned)).rate);
      console.log(`group commit, 64 producers, pre-signed  ${span(rates, 0)} /s`);
      return;
    }
    const message = new TextEncoder().encode(signedText(canonicalMembers(presigned[0]!)));
    const start = now();
    const entries = presigned.map((receipt, k) => prepareEntry({ receipt, sessionId: sessionOf(k) }));
    const prepare = us(now() - start, total);
    const full: Array<{ wall: number; cpu: number }> = [];
    const off: Array<{ wall: number; cpu: number }> = [];
    const pieces: Record<string, number[]> = {};
    const carried: Record<string, number[]> = {};
    const noTrigger: number[] = [];
    const group: Array<{ rate: number; cpu: number }> = [];
    const sign: number[] = [];
    for (let r = 0; r < rounds; r++) {
      full.push(commitOpsCost(dir, `full-${r}.sqlite`, entries, 'FULL'));
      off.push(commitOpsCost(dir, `off-${r}.sqlite`, entries, 'OFF'));
      const l1 = openLedger(join(dir, `pieces-${r}.sqlite`), { synchronous: 'OFF' });
      for (const [k, v] of Object.entries(piecesCost(l1, entries, false))) pieces[k] = [...(pieces[k] ?? []), v];
      l1.close();
      const l3 = openLedger(join(dir, `carried-${r}.sqlite`), { synchronous: 'OFF' });
      for (const [k, v] of Object.entries(piecesCost(l3, entries, true))) carried[k] = [...(carried[k] ?? []), v];
      l3.close();
      // The same insert on a copy without the link trigger (measurement only; the ledger keeps it).
      const l2 = openLedger(join(dir, `notrigger-${r}.sqlite`), { synchronous: 'OFF' });
      l2.db.exec('DROP TRIGGER ledger_entries_links');
      noTrigger.push(piecesCost(l2, entries, false).insert);
      l2.close();
      group.push(await groupRate(join(dir, `group-${r}.sqlite`), presigned));
      sign.push(signRate(message, 1000));
    }
    console.log(`insert-cost: ${total} pre-signed receipts, batches of ${BATCH}, ${rounds} rounds (min–max)`);
    console.log(`prepareEntry (outside the transaction)  ${prepare.toFixed(1)} µs/entry (once)`);
    for (const [name, xs] of [
      ['FULL', full],
      ['OFF ', off],
    ] as const)
      console.log(
        `commitOps, synchronous=${name}            ${span(xs.map((x) => x.wall))} µs/entry wall, ${span(xs.map((x) => x.cpu))} µs/entry CPU`,
      );
    console.log(
      'pieces, synchronous=OFF, µs/entry: every head read back | heads and subtrees carried through the batch',
    );
    for (const [k, v] of Object.entries(pieces))
      console.log(`  ${k.padEnd(14)} ${span(v, 2).padEnd(12)} | ${span(carried[k] ?? [], 2)}`);
    console.log(`  insert without the link trigger ${span(noTrigger, 2)}`);
    console.log(
      `group commit, 64 producers, pre-signed  ${span(
        group.map((g) => g.rate),
        0,
      )} /s, ${span(group.map((g) => g.cpu))} µs/entry CPU`,
    );
    console.log(`raw Ed25519 sign, node:crypto           ${span(sign, 0)} /s`);
    console.log(
      `ratio per round                         ${group.map((g, i) => (g.rate / sign[i]!).toFixed(2)).join(' ')}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
