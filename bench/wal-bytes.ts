/**
 * What the WAL carries per ledger entry: receipts appended through the real
 * append path — one per transaction (a lone governed call), and 64 per transaction (group commit)
 * — into a ledger whose WAL was just emptied, with automatic checkpoints off so every frame
 * stays. The WAL is then read frame by frame (sqlite.org/fileformat2.html §4.1: a 32-byte header,
 * then 24-byte frame headers each followed by one page) and each written page attributed to the
 * table or index that owns it (the `dbstat` virtual table). Bytes are exact, not timed.
 * Owns: the WAL measurement. Imports the ledger and receipt modules only.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fromHex, hashCanonical, NULL_CONTENT_HASH, signerFromSeed } from '../src/crypto/index.js';
import { appendReceiptSync, EntryInserter, LedgerWriter, openLedger } from '../src/ledger/index.js';
import type { Ledger } from '../src/ledger/index.js';
import { signReceipt } from '../src/receipt/index.js';
import type { Receipt } from '../src/receipt/index.js';

const signer = signerFromSeed(fromHex('4f'.repeat(32)));

function receipt(i: number): Receipt {
  return signReceipt(
    {
      timestamp: 1_790_000_000 + i,
      capability_id: `cap-${(i % 16).toString(16).padStart(8, '0')}`,
      tool_server: 'mcp',
      tool_name: 'echo',
      action: { parameters: { message: `call ${i}` } },
      decision: { verdict: 'allow' },
      receipt_kind: 'mediated_decision',
      boundary_class: 'prevent',
      tool_origin: 'caller_executed',
      redaction_mode: 'none',
      content_hash: hashCanonical({ content: [{ type: 'text', text: `Echo: call ${i}` }] }),
      policy_hash: NULL_CONTENT_HASH,
      metadata: { chio_request_id: `mcp-session-${i % 8}-${i}`, grant_index: 0 },
      trust_level: 'mediated',
    },
    signer,
    { nonce: `wal-${i}` },
  );
}

export interface WalFigure {
  entries: number;
  commits: number;
  bytesPerEntry: number;
  pagesPerCommit: number;
  /** Pages written per entry, by owning table or index, largest first. */
  byOwner: Array<[string, number]>;
}

/** Frames of the WAL file: the page number of each (big-endian u32 at the start of each 24-byte frame header). */
function walPages(path: string): { pageSize: number; pages: number[]; bytes: number } {
  const wal = readFileSync(path);
  if (wal.length < 32) return { pageSize: 0, pages: [], bytes: wal.length };
  const pageSize = wal.readUInt32BE(8);
  const pages: number[] = [];
  for (let off = 32; off + 24 + pageSize <= wal.length; off += 24 + pageSize) pages.push(wal.readUInt32BE(off));
  return { pageSize, pages, bytes: wal.length };
}

async function measure(path: string, entries: number, perCommit: number): Promise<WalFigure> {
  const ledger: Ledger = openLedger(path);
  ledger.db.pragma('wal_autocheckpoint = 0');
  // A ledger with history, so the b-trees have depth; then an empty WAL.
  const inserter = new EntryInserter(ledger);
  for (let i = 0; i < 2000; i++) appendReceiptSync(ledger, { receipt: receipt(i), sessionId: `s${i % 8}` }, inserter);
  ledger.db.pragma('wal_checkpoint(TRUNCATE)');
  const base = 1_000_000;
  if (perCommit === 1) {
    for (let i = 0; i < entries; i++)
      appendReceiptSync(ledger, { receipt: receipt(base + i), sessionId: `s${i % 8}` }, inserter);
  } else {
    const writer = new LedgerWriter(ledger, { maxBatch: perCommit });
    for (let b = 0; b < entries / perCommit; b++) {
      await Promise.all(
        Array.from({ length: perCommit }, (_, k) =>
          writer.append({ receipt: receipt(base + b * perCommit + k), sessionId: `s${k % 8}` }),
        ),
      );
    }
    await writer.close();
  }
  const wal = walPages(`${path}-wal`);
  const owners = new Map(
    (ledger.db.prepare('SELECT pageno, name FROM dbstat').all() as Array<{ pageno: number; name: string }>).map((r) => [
      r.pageno,
      r.name,
    ]),
  );
  const commits = perCommit === 1 ? entries : entries / perCommit;
  const counts = new Map<string, number>();
  for (const p of wal.pages) {
    const name = p === 1 ? 'page 1 (header, schema)' : (owners.get(p) ?? '(freelist/other)');
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  ledger.close();
  return {
    entries,
    commits,
    bytesPerEntry: wal.bytes / entries,
    pagesPerCommit: wal.pages.length / commits,
    byOwner: [...counts.entries()].map(([k, v]): [string, number] => [k, v / entries]).sort((a, b) => b[1] - a[1]),
  };
}

export async function walFigures(dir: string): Promise<{ one: WalFigure; grouped: WalFigure }> {
  return {
    one: await measure(join(dir, 'wal-one.sqlite'), 256, 1),
    grouped: await measure(join(dir, 'wal-64.sqlite'), 1024, 64),
  };
}
