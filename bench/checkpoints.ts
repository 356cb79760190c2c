/**
 * Checkpoint, proof and evidence-bundle figures for `npm run bench` (DESIGN §10), each beside a
 * raw limit measured in the same run (rule 6: speed is measured here, never asserted in tests):
 *   raw limits   Ed25519 sign/verify (the product's signer) and SHA-256 of 33- and 65-byte inputs
 *                (node:crypto, as the Merkle code hashes 0x00‖32 bytes and 0x01‖64 bytes)
 *   tree         createCheckpoint and one inclusion proof (build, and verify) at 100,000 and
 *                1,000,000 entries. The entries are synthetic linked rows written straight into
 *                ledger_entries after one real receipt (as test/ledger/tree.test.ts does); the tree,
 *                checkpoint and proof code is the product's (rebuildMerkleSubtrees, TreeAppender,
 *                LedgerTree, createCheckpoint, proveInclusion, verifyInclusion).
 *   appends      group commit (64 producers, pre-signed) with the kernel's Checkpointer every 1000
 *                entries vs none, wired as Kernel wires it: its own connection, appended(seq) after
 *                each committed append
 *   evidence     exportEvidence and verifyEvidenceBundle of a 10,000-receipt session of real receipts
 * Returns rows for bench/run.ts's table; `node dist/bench/checkpoints.js` prints them alone.
 * Writes only to its own temporary directory, removed at the end. Imports no edges or cli.
 */
import { hash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  checkpointText,
  fromHex,
  hashCanonical,
  merkleLeafHash,
  sha256Hex,
  signCheckpoint,
  signerFromSeed,
  toHex,
  verifyInclusion,
  verifySignature,
} from '../src/crypto/index.js';
import {
  appendReceiptSync,
  createCheckpoint,
  LedgerTree,
  LedgerWriter,
  listCheckpoints,
  openLedger,
  rebuildMerkleSubtrees,
  TreeAppender,
} from '../src/ledger/index.js';
import type { Ledger } from '../src/ledger/index.js';
import { Checkpointer } from '../src/kernel/index.js';
import { generateCertificate } from '../src/projections/certificate/index.js';
import { proveInclusion } from '../src/projections/checkpoints/index.js';
import { exportEvidence, verifyEvidenceBundle } from '../src/projections/evidence/index.js';
import { canonicalMembers, signedText, signReceipt } from '../src/receipt/index.js';
import type { Receipt } from '../src/receipt/index.js';
import { draft } from './drafts.js';

export interface BenchRow {
  name: string;
  value: number;
  beside: string;
  limit?: number | undefined;
  note: string;
}

const signer = signerFromSeed(fromHex('41'.repeat(32)));
const POLICY = hashCanonical({ bench: 'checkpoints' });
const PROOF_GOAL_US = 1000; // the product's goal: an inclusion proof in under 1 ms at 1,000,000 entries

/** Runs `op` for about `ms` milliseconds after a warm-up; operations per second. */
function rate(ms: number, op: (i: number) => unknown): number {
  for (let i = 0; i < 20; i++) op(i);
  let n = 0;
  const start = performance.now();
  while (performance.now() - start < ms) for (let k = 0; k < 10; k++) op(n++);
  return n / ((performance.now() - start) / 1000);
}

function seconds<T>(op: () => T): { value: T; s: number } {
  const start = performance.now();
  const value = op();
  return { value, s: (performance.now() - start) / 1000 };
}

const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

interface Limits {
  sign: number;
  verify: number;
  shaUs: number;
}

/** Synthetic entries after one real receipt: linked rows copied from seq 1, subtrees by the product. */
class SyntheticLedger {
  readonly path: string;
  readonly setup: Ledger; // synchronous=NORMAL: building is setup, not what is measured
  private readonly insert: ReturnType<Ledger['db']['prepare']>;
  private readonly first: Record<string, unknown>;
  private prev: string;
  head = 1;

  constructor(dir: string) {
    this.path = join(dir, 'tree.sqlite');
    const real = openLedger(this.path);
    appendReceiptSync(real, { receipt: signReceipt(draft(0, POLICY), signer, { nonce: 'tree-0' }), sessionId: 'real' });
    real.close();
    this.setup = openLedger(this.path, { synchronous: 'NORMAL', create: false });
    // Setup speed only: a statement journal on disk (the links trigger can abort each insert) cost
    // ~16 small writes a row, and the default page cache thrashes on a million rows.
    this.setup.db.pragma('temp_store = MEMORY');
    this.setup.db.pragma('cache_size = -262144');
    this.first = this.setup.db.prepare('SELECT * FROM ledger_entries WHERE seq = 1').get() as Record<string, unknown>;
    this.prev = this.first.entry_hash as string;
    const cols = Object.keys(this.first);
    this.insert = this.setup.db.prepare(
      `INSERT INTO ledger_entries (${cols.join(', ')}) VALUES (${cols.map((c) => `@${c}`).join(', ')})`,
    );
  }

  private row(): string {
    const seq = ++this.head;
    const entryHash = sha256Hex(`${seq}:${this.prev}`);
    // A unique receipt_id in seq order (the UNIQUE index filled at its end; random ids only slow the
    // build, and no figure here looks a receipt up by id). The body stays seq 1's, so the table has
    // a real ledger's size.
    this.insert.run({
      ...this.first,
      seq,
      receipt_id: seq.toString(16).padStart(64, '0'),
      session_id: null,
      session_prev_seq: null,
      prev_hash: this.prev,
      entry_hash: entryHash,
    });
    this.prev = entryHash;
    return entryHash;
  }

  /** Bulk: rows in transactions of 100,000 (bounded WAL), then rebuildMerkleSubtrees. */
  growTo(size: number): { insertS: number; treeS: number } {
    const insertS = seconds(() => {
      while (this.head < size) {
        const end = Math.min(size, this.head + 100_000);
        this.setup.db
          .transaction(() => {
            while (this.head < end) this.row();
          })
          .immediate();
      }
    }).s;
    const treeS = seconds(() => this.setup.db.transaction(() => rebuildMerkleSubtrees(this.setup.db)).immediate()).s;
    return { insertS, treeS };
  }

  /** One more row, its subtrees stored by the append path's TreeAppender. */
  appendOne(): void {
    const appender = new TreeAppender(this.setup.db);
    this.setup.db
      .transaction(() => {
        const entryHash = this.row();
        appender.appended(this.head, entryHash);
      })
      .immediate();
  }
}

/** Checkpoints and one inclusion proof at the ledger's current size `n`. */
function treeFigures(t: SyntheticLedger, n: number, lim: Limits, full: boolean): BenchRow[] {
  const rows: BenchRow[] = [];
  const at = `at ${fmt(n)}`;
  const mean = (s: number[]) => s.reduce((a, b) => a + b, 0) / s.length;
  const checkpoints = (sync: 'FULL' | 'NORMAL', count: number): number => {
    const ledger = openLedger(t.path, { synchronous: sync, create: false });
    const times: number[] = [];
    for (let k = 0; k < count; k++) {
      t.appendOne(); // a checkpoint must cover more entries than the latest one
      const { value, s } = seconds(() => createCheckpoint(ledger, signer));
      if (!value.created) throw new Error('bench: checkpoint not created');
      times.push(s);
    }
    ledger.close();
    return 1 / mean(times);
  };
  const cpFull = checkpoints('FULL', 30);
  rows.push({
    name: `checkpoint ${at} (createCheckpoint, FULL commit)`,
    value: cpFull,
    beside: 'node sign',
    limit: lim.sign,
    note: `${fmt(1000 / cpFull, 2)} ms each: consistency root + root + 1 signature + 1 row + fsync`,
  });
  const cpNormal = checkpoints('NORMAL', 100);
  rows.push({
    name: `  … synchronous=NORMAL (no fsync per commit)`,
    value: cpNormal,
    beside: 'node sign',
    limit: lim.sign,
    note: `${fmt(1e6 / cpNormal)} µs each: the same work, WAL written but not fsynced`,
  });

  const ledger = openLedger(t.path, { readonly: true });
  const tree = new LedgerTree(ledger.db);
  const root = tree.root(n);
  const rootReads = tree.reads;
  if (full) {
    const r = rate(500, () => tree.root(n));
    rows.push({
      name: `  tree root ${at} (LedgerTree.root)`,
      value: r,
      beside: `${rootReads} SHA-256`,
      limit: 1e6 / (rootReads * lim.shaUs),
      note: `${fmt(1e6 / r, 1)} µs, ${rootReads} row reads`,
    });
    const origin = `chio-ledger/${'ab'.repeat(16)}`;
    rows.push({
      name: '  checkpoint note signing (signCheckpoint)',
      value: rate(500, () => signCheckpoint({ origin, treeSize: n, rootHash: root }, signer)),
      beside: 'node sign',
      limit: lim.sign,
      note: 'C2SP note text, key hash, 1 Ed25519 signature',
    });
  }

  // Pseudo-random leaves (a fixed LCG, so every run asks for the same ones): 200 warm up, 2,000 timed.
  let x = 12345;
  const pick = () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return (x % n) + 1;
  };
  const warm = Array.from({ length: 200 }, pick);
  const seqs = Array.from({ length: 2000 }, pick);
  const prove = (list: number[]) => list.map((seq) => proveInclusion(ledger, { seq }, { treeSize: n, tree }));
  const decode = (proofs: ReturnType<typeof prove>) =>
    proofs.map((p) => ({ leaf: fromHex(p.entry_hash), index: p.leaf_index, hashes: p.hashes.map(fromHex) }));
  const verifyAll = (cases: ReturnType<typeof decode>) =>
    cases.every((c) => verifyInclusion(merkleLeafHash(c.leaf), c.index, n, c.hashes, root));
  if (!verifyAll(decode(prove(warm)))) throw new Error('bench: an inclusion proof did not verify');
  for (const seq of warm) tree.inclusion(seq - 1, n);

  // Each of a proof's reads is one point lookup; the same lookup alone is the proof's other limit.
  const lookup = ledger.db.prepare('SELECT hash FROM merkle_subtrees WHERE level = ? AND idx = ?');
  const pairs = seqs.map((seq, i) => {
    const level = 1 + (i % 10);
    return [level, Math.min(Math.floor((seq - 1) / 2 ** level), Math.floor(n / 2 ** level) - 1)] as const;
  });
  if (pairs.some(([level, idx]) => lookup.get(level, idx) === undefined))
    throw new Error('bench: a stored subtree is missing');
  const readUs = 1e6 / rate(300, (i) => lookup.get(...pairs[i % pairs.length]!));
  rows.push({
    name: `  raw row read ${at} (merkle_subtrees point lookup)`,
    value: 1e6 / readUs,
    beside: '(limit)',
    note: `${fmt(readUs, 1)} µs, better-sqlite3 prepared statement`,
  });

  tree.reads = 0;
  const built = seconds(() => prove(seqs));
  const reads = tree.reads / seqs.length;
  const proofUs = (built.s * 1e6) / seqs.length;
  const shaNote = (count: number) => `${fmt(count, 1)} SHA-256 = ${fmt(count * lim.shaUs, 1)} µs`;
  const goal = n === 1_000_000 ? `; goal < 1 ms: ${proofUs < PROOF_GOAL_US ? 'met' : 'NOT met'}` : '';
  rows.push({
    name: `inclusion proof ${at} (proveInclusion)`,
    value: 1e6 / proofUs,
    beside: 'reads×SHA',
    limit: 1e6 / (reads * lim.shaUs),
    note: `${fmt(proofUs, 1)} µs: ${fmt(reads, 1)} row reads (× ${fmt(readUs, 1)} µs = ${fmt(reads * readUs, 1)} µs); ${shaNote(reads)}${goal}`,
  });
  const raw = seconds(() => seqs.map((seq) => tree.inclusion(seq - 1, n)));
  rows.push({
    name: `  … hashes only (LedgerTree.inclusion)`,
    value: seqs.length / raw.s,
    beside: 'reads×SHA',
    limit: 1e6 / (reads * lim.shaUs),
    note: `${fmt((raw.s * 1e6) / seqs.length, 1)} µs`,
  });
  const cases = decode(built.value);
  const shas = 1 + mean(cases.map((c) => c.hashes.length));
  const verified = seconds(() => verifyAll(cases));
  if (!verified.value) throw new Error('bench: an inclusion proof did not verify');
  rows.push({
    name: `  verify it (verifyInclusion)`,
    value: cases.length / verified.s,
    beside: 'path×SHA',
    limit: 1e6 / (shas * lim.shaUs),
    note: `${fmt((verified.s * 1e6) / cases.length, 1)} µs; ${shaNote(shas)}`,
  });
  ledger.close();
  return rows;
}

/** 64 producers append `receipts` through group commit; a Checkpointer every `every` entries, or none. */
async function appendRound(
  path: string,
  receipts: readonly Receipt[],
  every: number | false,
): Promise<{ rate: number; made: number; perCommit: number }> {
  const receiptLedger = openLedger(path);
  const ledger = openLedger(path, { create: false });
  const writer = new LedgerWriter(receiptLedger);
  const checkpointer =
    every === false ? undefined : new Checkpointer(ledger, signer, { everyEntries: every }, (m) => console.error(m));
  const start = performance.now();
  await Promise.all(
    Array.from({ length: 64 }, async (_, p) => {
      for (let k = p; k < receipts.length; k += 64) {
        const entry = await writer.append({ receipt: receipts[k]!, sessionId: `session-${p}` });
        checkpointer?.appended(entry.seq); // as Kernel.afterAppend does
      }
    }),
  );
  const r = receipts.length / ((performance.now() - start) / 1000);
  const made = listCheckpoints(ledger).length;
  const perCommit = writer.stats.appended / writer.stats.commits;
  await writer.flush();
  await checkpointer?.close();
  await writer.close();
  receiptLedger.close();
  ledger.close();
  return { rate: r, made, perCommit };
}

async function appendFigures(dir: string, receipts: readonly Receipt[], lim: Limits): Promise<BenchRow[]> {
  const off: Array<Awaited<ReturnType<typeof appendRound>>> = [];
  const on: typeof off = [];
  await appendRound(join(dir, 'append-warm-up.sqlite'), receipts.slice(0, 3200), false); // the first round ran ~20 % slow
  // Alternated, first one then the other first, so neither a slow minute of the VM nor the order favours one.
  for (const order of [
    ['off', 'on'],
    ['on', 'off'],
  ] as const) {
    for (const which of order) {
      const r = await appendRound(
        join(dir, `append-${which}-${off.length + on.length}.sqlite`),
        receipts,
        which === 'on' ? 1000 : false,
      );
      (which === 'on' ? on : off).push(r);
    }
  }
  const hm = (rs: typeof off) => rs.length / rs.reduce((a, b) => a + 1 / b.rate, 0); // total appends / total time
  const detail = (rs: typeof off) =>
    `rounds ${rs.map((r) => `${fmt(r.rate)}/s`).join(', ')}; ${fmt(rs.reduce((a, r) => a + r.perCommit, 0) / rs.length)}/commit`;
  const total = receipts.length * off.length;
  return [
    {
      name: `group commit, 64 producers, no checkpoints (${fmt(total)})`,
      value: hm(off),
      beside: 'node sign',
      limit: lim.sign,
      note: detail(off),
    },
    {
      name: `  … Checkpointer every 1000 entries (${fmt(total)})`,
      value: hm(on),
      beside: 'no ckpt',
      limit: hm(off),
      note: `${detail(on)}; ${on.reduce((a, r) => a + r.made, 0)} checkpoints signed`,
    },
  ];
}

async function evidenceFigures(dir: string, receipts: readonly Receipt[], lim: Limits): Promise<BenchRow[]> {
  const ledger = openLedger(join(dir, 'evidence.sqlite'), { synchronous: 'NORMAL' }); // setup; export only reads
  const writer = new LedgerWriter(ledger, { maxBatch: 5000 });
  await Promise.all(receipts.map((receipt) => writer.append({ receipt, sessionId: 'evidence' })));
  await writer.close();
  createCheckpoint(ledger, signer);
  const certificate = generateCertificate(ledger, {
    sessionId: 'evidence',
    signer: { role: 'kernel', key: signer },
    trustedKernelKeys: new Set([signer.publicKeyHex]),
  });
  const exported = seconds(() => exportEvidence(ledger, { sessionId: 'evidence', certificate }));
  ledger.close();
  const json = seconds(() => JSON.stringify(exported.value));
  const parsed = seconds(() => JSON.parse(json.value) as unknown);
  const verdict = seconds(() =>
    verifyEvidenceBundle(parsed.value, { trustedKernelKeys: new Set([signer.publicKeyHex]) }),
  );
  if (!verdict.value.ok) throw new Error(`bench: the evidence bundle did not verify: ${verdict.value.reason}`);
  const n = exported.value.entries.length;
  const mb = Buffer.byteLength(json.value) / 1e6;
  const rawVerifyS = n / lim.verify;
  return [
    {
      name: `evidence export, ${fmt(n)}-receipt session (exportEvidence)`,
      value: n / exported.s,
      beside: 'node verify',
      limit: lim.verify,
      note: `${fmt(exported.s, 2)} s: entries + ${fmt(n)} inclusion proofs`,
    },
    {
      name: '  bundle JSON round trip (stringify + parse)',
      value: n / (json.s + parsed.s),
      beside: 'node verify',
      limit: lim.verify,
      note: `${fmt(json.s + parsed.s, 2)} s (${fmt(json.s, 2)} + ${fmt(parsed.s, 2)}); ${fmt(mb, 1)} MB`,
    },
    {
      name: '  verify the parsed bundle (verifyEvidenceBundle)',
      value: n / verdict.s,
      beside: 'node verify',
      limit: lim.verify,
      note: `${fmt(verdict.s, 2)} s; raw verify × ${fmt(n)} = ${fmt(rawVerifyS, 2)} s`,
    },
  ];
}

export async function checkpointFigures(progress: (m: string) => void = (m) => console.log(m)): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'chio-bench-ckpt-'));
  const started = performance.now();
  try {
    const note = new TextEncoder().encode(
      checkpointText({
        origin: `chio-ledger/${'ab'.repeat(16)}`,
        treeSize: 1_000_000,
        rootHash: new Uint8Array(32).fill(7),
      }),
    );
    const sample = signReceipt(draft(1, POLICY), signer, { nonce: 'sample' });
    const message = new TextEncoder().encode(signedText(canonicalMembers(sample)));
    const sig = toHex(signer.sign(message));
    const in33 = new Uint8Array(33);
    const in65 = new Uint8Array(65).fill(1);
    const sha33 = rate(700, () => hash('sha256', in33, 'buffer'));
    const sha65 = rate(700, () => hash('sha256', in65, 'buffer'));
    const lim: Limits = {
      sign: rate(1000, () => signer.sign(note)),
      verify: rate(1000, () => verifySignature(signer.publicKeyHex, message, sig)),
      shaUs: (1e6 / sha33 + 1e6 / sha65) / 2,
    };
    const rows: BenchRow[] = [
      {
        name: `raw Ed25519 sign, product signer (${note.length}-byte note)`,
        value: lim.sign,
        beside: '(limit)',
        note: '',
      },
      {
        name: `raw Ed25519 verify, node:crypto (${message.length}-byte receipt)`,
        value: lim.verify,
        beside: '(limit)',
        note: '',
      },
      {
        name: 'raw SHA-256, 33 bytes (0x00‖leaf), node:crypto',
        value: sha33,
        beside: '(limit)',
        note: `${fmt(1e6 / sha33, 2)} µs`,
      },
      {
        name: 'raw SHA-256, 65 bytes (0x01‖left‖right), node:crypto',
        value: sha65,
        beside: '(limit)',
        note: `${fmt(1e6 / sha65, 2)} µs; mean ${fmt(lim.shaUs, 2)} µs is "×SHA"`,
      },
    ];

    const t = new SyntheticLedger(dir);
    const small = t.growTo(100_000);
    progress(
      `checkpoints: 100,000 synthetic entries in ${fmt(small.insertS + small.treeS, 1)} s (rows ${fmt(small.insertS, 1)} s, rebuildMerkleSubtrees ${fmt(small.treeS, 1)} s)`,
    );
    rows.push(...treeFigures(t, t.head, lim, false));
    const big = t.growTo(1_000_000);
    progress(
      `checkpoints: grown to 1,000,000 synthetic entries in ${fmt(big.insertS + big.treeS, 1)} s (rows ${fmt(big.insertS, 1)} s, rebuildMerkleSubtrees over all ${fmt(big.treeS, 1)} s)`,
    );
    rows.push({
      name: 'synthetic ledger build to 1,000,000 (setup, NORMAL)',
      value: 1_000_000 / (small.insertS + small.treeS + big.insertS + big.treeS),
      beside: '',
      note: `${fmt(small.insertS + small.treeS + big.insertS + big.treeS, 1)} s; synthetic rows, the product's tree code`,
    });
    rows.push(...treeFigures(t, t.head, lim, true));
    t.setup.close();

    const receipts = Array.from({ length: 10_000 }, (_, i) =>
      signReceipt(draft(i, POLICY), signer, { nonce: `ck-${i}` }),
    );
    rows.push(...(await appendFigures(dir, receipts, lim)));
    rows.push(...(await evidenceFigures(dir, receipts, lim)));
    progress(`checkpoints: module took ${fmt((performance.now() - started) / 1000, 1)} s`);
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rows = await checkpointFigures();
  const w = Math.max(...rows.map((r) => r.name.length));
  for (const r of rows) {
    const ratio = r.limit === undefined ? '     ' : (r.value / r.limit).toFixed(2).padStart(5);
    console.log(
      `${r.name.padEnd(w)}  ${fmt(r.value).padStart(10)}  ${r.beside.padEnd(11)}  ${ratio}  ${r.note}`.trimEnd(),
    );
  }
}
