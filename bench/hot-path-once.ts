/**
 * `node dist/bench/hot-path-once.js [iterations]`: what each piece of a governed call's receipt
 * path costs, from the kernel's draft to the prepared ledger row, measured on this thread with no
 * disk (the commit itself is bench/run.ts's business). Each piece runs `iterations` times (default
 * 5000) per round, five rounds, alternating; the median µs per call is printed. Used to find work
 * done twice between draft and ledger row (one parse, one canonicalization, one hash each).
 */
import { generateSeed, hashCanonical, signerFromSeed } from '../src/crypto/index.js';
import { defaultPolicy, normalizePolicy, RedactionKey } from '../src/kernel/index.js';
import { outcomeDraft, reservedFacts } from '../src/kernel/receipts.js';
import type { CallFacts } from '../src/kernel/receipts.js';
import { prepareEntry } from '../src/ledger/index.js';
import { ReceiptDraftSchema, signReceipt } from '../src/receipt/index.js';
import type { Receipt } from '../src/receipt/index.js';

const iterations = Number(process.argv[2] ?? 5000);
const signer = signerFromSeed(generateSeed());
const parameters = {
  path: '/home/dev/project/src/kernel/kernel.ts',
  encoding: 'utf8',
  limits: { max_bytes: 65536, lines: [1, 200] },
};
const output = {
  content: [{ type: 'text', text: 'export function x(): number {\n  return 1;\n}\n'.repeat(40) }],
  isError: false,
};

function facts(redacting: boolean): CallFacts {
  return {
    now: 1_800_000_000,
    capabilityId: 'cap-0123456789',
    serverId: 'fs',
    toolName: 'read_file',
    parameters,
    evidence: [
      { guard_name: 'path_allowlist', verdict: true },
      { guard_name: 'shell', verdict: true },
    ],
    policy: redacting ? normalizePolicy({ redaction: { mode: 'redact_keys', keys: ['encoding'] } }) : defaultPolicy(),
    nonce: 'a6b3c1de-0000-4000-8000-000000000000',
    redactionKey: redacting ? RedactionKey.fromBytes(new Uint8Array(32).fill(7)) : undefined,
    metadata: { chio_request_id: '17' },
  };
}

function time(fn: () => unknown): number {
  const start = performance.now();
  for (let i = 0; i < iterations; i++) fn();
  return ((performance.now() - start) * 1000) / iterations;
}

function run(label: string, f: CallFacts): void {
  const contentHash = hashCanonical(output);
  const draft = outcomeDraft(f, 0, { kind: 'output', output, contentHash });
  const receipt = signReceipt(draft, signer);
  const copy = JSON.parse(JSON.stringify(receipt)) as Receipt;
  const pieces: Record<string, () => unknown> = {
    'reservedFacts (reserve)': () => reservedFacts({ ...f }),
    'output hash (dispatch check)': () => hashCanonical(output),
    'outcomeDraft (content hash carried)': () => outcomeDraft({ ...f }, 0, { kind: 'output', output, contentHash }),
    '  of which draft zod parse in sign': () => ReceiptDraftSchema.safeParse(draft),
    signReceipt: () => signReceipt(draft, signer),
    '  of which raw Ed25519': () => signer.sign('x'.repeat(1200)),
    'prepareEntry (signed here)': () => prepareEntry({ receipt, producer: 'bench' }),
    'prepareEntry (copy: full verify)': () => prepareEntry({ receipt: copy, producer: 'bench' }),
    // As evaluateToolCall does it: one facts object per call, reserved, dispatched, drafted, signed.
    'end to end (facts..prepared row)': () => {
      const call = { ...f };
      reservedFacts(call);
      const d = outcomeDraft(call, 0, { kind: 'output', output, contentHash: hashCanonical(output) });
      prepareEntry({ receipt: signReceipt(d, signer, { nonce: call.nonce }), producer: 'bench' });
    },
  };
  const rounds: Record<string, number[]> = {};
  for (const name of Object.keys(pieces)) time(pieces[name]!); // warm up
  for (let round = 0; round < 5; round++) {
    for (const [name, fn] of Object.entries(pieces)) {
      rounds[name] ??= [];
      rounds[name].push(time(fn));
    }
  }
  console.log(`\n${label} (${iterations} iterations x 5 rounds, median µs per call)`);
  for (const [name, samples] of Object.entries(rounds)) {
    const median = samples.sort((a, b) => a - b)[2]!;
    console.log(`  ${name.padEnd(40)} ${median.toFixed(1).padStart(8)}`);
  }
}

run('redaction none', facts(false));
run('redaction redact_keys (salted hash)', facts(true));
