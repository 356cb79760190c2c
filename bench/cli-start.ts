/**
 * How long a `chio` command takes from exec to exit, beside `node -e 0` (the limit: Node starting
 * and stopping with nothing to load) measured in the same run. Each command is run as a child
 * process, one after another, the first runs of each discarded; the p50 is printed.
 * Every test that runs the CLI pays this per call, and so does every script an auditor writes.
 * Owns: these figures. Imports the bench's row type, the ledger and receipt signing only.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fromHex, signerFromSeed } from '../src/crypto/index.js';
import { appendReceiptSync, EntryInserter, openLedger } from '../src/ledger/index.js';
import { signReceipt } from '../src/receipt/index.js';
import type { BenchRow } from './checkpoints.js';
import { draft } from './drafts.js';

const CHIO = fileURLToPath(new URL('../cli/main.js', import.meta.url));
const RUNS = 15;
const WARM_UP = 3;

/** p50 wall time of running `node <args>` to completion, in ms; throws if it fails. */
function p50Run(args: string[]): number {
  const ms: number[] = [];
  for (let i = 0; i < WARM_UP + RUNS; i++) {
    const start = process.hrtime.bigint();
    const r = spawnSync(process.execPath, args, { encoding: 'utf8' });
    const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
    if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    if (i >= WARM_UP) ms.push(elapsed);
  }
  ms.sort((a, b) => a - b);
  return ms[Math.floor(ms.length / 2)]!;
}

export function cliStartFigures(): BenchRow[] {
  const dir = mkdtempSync(join(tmpdir(), 'chio-bench-cli-'));
  try {
    const db = join(dir, 'ledger.sqlite');
    const signer = signerFromSeed(fromHex('42'.repeat(32)));
    const ledger = openLedger(db);
    const inserter = new EntryInserter(ledger);
    for (let i = 0; i < 100; i++)
      appendReceiptSync(
        ledger,
        { receipt: signReceipt(draft(i), signer, { nonce: `cli-${i}` }), sessionId: 's' },
        inserter,
      );
    ledger.close();
    const pub = join(dir, 'kernel.pub');
    writeFileSync(pub, `${signer.publicKeyHex}\n`);

    const node = p50Run(['-e', '0']);
    const figures: [string, string[]][] = [
      ['chio --version', ['--version']],
      [
        'chio ledger verify (100 entries, pinned key)',
        ['--receipt-db', db, 'ledger', 'verify', '--trusted-kernel-pubkey', pub],
      ],
      ['chio receipt list (100 entries)', ['--receipt-db', db, 'receipt', 'list']],
      ['chio mcp serve --help (loads the MCP edge)', ['mcp', 'serve', '--help']],
    ];
    const rows: BenchRow[] = [
      { name: 'node -e 0, start to exit', value: 1000 / node, beside: '(limit)', note: `p50 ${node.toFixed(0)} ms` },
    ];
    for (const [name, args] of figures) {
      const p50 = p50Run([CHIO, ...args]);
      rows.push({
        name,
        value: 1000 / p50,
        beside: 'node -e 0',
        limit: 1000 / node,
        note: `p50 ${p50.toFixed(0)} ms, start to exit`,
      });
    }
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
