/**
 * `npm run bench`: throughput figures, each printed beside the physical limit it is bounded by,
 * measured in the same run on the same machine (rule 6: speed is measured here, never asserted
 * in tests). Writes to a temporary directory on the real disk, synchronous=FULL unless stated.
 *
 *   raw limits   node:crypto and noble Ed25519 sign/verify over a real receipt's signed bytes
 *   append       1 producer (one transaction and fsync per receipt); 64 producers through the
 *                group-commit writer — both include signing, as a producer does
 *   verify       full-chain verification with and without signatures
 * Goals from issue 2: group-commit append ≥ 70% of raw signing, verify ≥ 80% of raw verify.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  fromHex,
  hashCanonical,
  NULL_CONTENT_HASH,
  referenceEd25519,
  signerFromSeed,
  toHex,
  verifySignature,
} from '../src/crypto/index.js';
import { appendReceiptSync, EntryInserter, LedgerWriter, openLedger, verifyChain } from '../src/ledger/index.js';
import { signedText, canonicalMembers, signReceipt } from '../src/receipt/index.js';
import type { ReceiptDraft } from '../src/receipt/index.js';

const SEED = fromHex('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60');
const signer = signerFromSeed(SEED);
const POLICY = hashCanonical({ bench: true });

function draft(i: number): ReceiptDraft {
  const deny = i % 4 === 3;
  return {
    timestamp: 1_790_000_000 + i,
    capability_id: 'cap-0190f0c2-8d5b-7cc0-9e3a-5b1f2a8d9c41',
    tool_server: 'filesystem',
    tool_name: deny ? 'write_file' : 'read_text_file',
    action: { parameters: { path: `/home/dev/project/src/module-${i % 97}.ts`, encoding: 'utf-8' } },
    decision: deny ? { verdict: 'deny', reason: 'path matches a forbidden pattern: **/.env', guard: 'forbidden-path' } : { verdict: 'allow' },
    receipt_kind: 'mediated_decision',
    boundary_class: 'prevent',
    tool_origin: 'caller_executed',
    redaction_mode: 'none',
    content_hash: deny ? NULL_CONTENT_HASH : hashCanonical({ text: `contents ${i}` }),
    policy_hash: POLICY,
    evidence: [
      { guard_name: 'forbidden-path', verdict: !deny },
      { guard_name: 'path-allowlist', verdict: true },
      { guard_name: 'secret-leak', verdict: true },
    ],
    metadata: { request_id: `req-${i}` },
    trust_level: 'mediated',
  };
}

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

const rows: Array<[string, number, string, number | null, string]> = [];
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'chio-bench-'));
  const sample = signReceipt(draft(1), signer, { nonce: 'sample' });
  const message = new TextEncoder().encode(signedText(canonicalMembers(sample)));
  const sig = toHex(signer.sign(message));
  const sigBytes = fromHex(sig);
  const pub = fromHex(signer.publicKeyHex);
  console.log(`chio bench — node ${process.version}, ${message.length}-byte signed receipt body, temp dir ${dir}`);

  const nodeSign = rate(1500, () => signer.sign(message));
  const nodeVerify = rate(1500, () => verifySignature(signer.publicKeyHex, message, sig));
  const nobleSign = rate(1000, () => referenceEd25519.sign(SEED, message));
  const nobleVerify = rate(1000, () => referenceEd25519.verify(pub, message, sigBytes));
  rows.push(['raw Ed25519 sign, node:crypto KeyObject', nodeSign, '(limit)', null, '']);
  rows.push(['raw Ed25519 verify, node:crypto KeyObject', nodeVerify, '(limit)', null, '']);
  rows.push(['raw Ed25519 sign, @noble/ed25519', nobleSign, 'node sign', nobleSign / nodeSign, '']);
  rows.push(['raw Ed25519 verify, @noble/ed25519', nobleVerify, 'node verify', nobleVerify / nodeVerify, '']);
  rows.push(['sign a receipt (JCS + id + Ed25519)', rate(1500, (i) => signReceipt(draft(i), signer, { nonce: `s${i}` })), 'node sign', null, '']);
  rows.at(-1)![3] = rows.at(-1)![1] / nodeSign;

  // 1 producer: sign, then one BEGIN IMMEDIATE … COMMIT (one fsync) per receipt.
  {
    const ledger = openLedger(join(dir, 'single.sqlite'));
    const inserter = new EntryInserter(ledger);
    const n = 2000;
    const r = await timed(() => {
      for (let i = 0; i < n; i++) appendReceiptSync(ledger, { receipt: signReceipt(draft(i), signer, { nonce: `one-${i}` }), sessionId: `s${i % 8}` }, inserter);
      return n;
    });
    rows.push(['append, 1 producer, 1 txn/receipt, FULL', r, 'node sign', r / nodeSign, '']);
    ledger.close();
  }

  // 64 producers, group commit, synchronous=FULL.
  const groupDb = join(dir, 'group.sqlite');
  {
    const ledger = openLedger(groupDb);
    const writer = new LedgerWriter(ledger);
    const perProducer = 400;
    const r = await timed(async () => {
      await Promise.all(
        Array.from({ length: 64 }, async (_, p) => {
          for (let i = 0; i < perProducer; i++) {
            const k = p * perProducer + i;
            await writer.append({ receipt: signReceipt(draft(k), signer, { nonce: `g-${k}` }), sessionId: `session-${p}` });
          }
        }),
      );
      return 64 * perProducer;
    });
    rows.push(['append, 64 producers, group commit, FULL', r, 'node sign', r / nodeSign, 'goal ≥ 0.70']);
    rows.push([`  (commits ${writer.stats.commits}, largest batch ${writer.stats.largestBatch})`, writer.stats.appended / writer.stats.commits, 'receipts/commit', null, '']);
    ledger.close();
  }

  // Full-chain verification of the group ledger (25,600 entries).
  {
    const ledger = openLedger(groupDb, { readonly: true });
    let entries = 0;
    const withSig = await timed(() => {
      const v = verifyChain(ledger);
      if (!v.ok) throw new Error(`bench ledger failed verification: ${v.check}`);
      entries = v.entries;
      return v.entries;
    });
    rows.push([`verify chain, signatures (${entries} entries)`, withSig, 'node verify', withSig / nodeVerify, 'goal ≥ 0.80']);
    const noSig = await timed(() => {
      const v = verifyChain(ledger, { signatures: false });
      return v.ok ? v.entries : 0;
    });
    rows.push(['verify chain, --no-signatures', noSig, 'node verify', noSig / nodeVerify, '']);
    ledger.close();
  }

  rmSync(dir, { recursive: true, force: true });
  const w = Math.max(...rows.map((r) => r[0].length));
  console.log(`\n${'figure'.padEnd(w)}  ${'per second'.padStart(10)}  ${'beside'.padEnd(15)}  ratio`);
  for (const [name, value, limit, ratio, goal] of rows) {
    console.log(`${name.padEnd(w)}  ${fmt(value).padStart(10)}  ${limit.padEnd(15)}  ${ratio === null ? '' : ratio.toFixed(2)} ${goal}`.trimEnd());
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
