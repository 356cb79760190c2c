/**
 * The ACP proxy's ledger read back from disk (a separate read-only connection), an independent
 * content hash (node:crypto over sorted-key compact JSON, not the product's canonicalizer), and
 * a kernel seed/public key pair on disk.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { fromHex, signerFromSeed } from '../../src/crypto/index.js';

export interface LedgerReceipt {
  seq: number;
  session_id: string | null;
  receipt: any;
}

export function ledgerReceipts(db: string): LedgerReceipt[] {
  const conn = new Database(db, { readonly: true, fileMustExist: true });
  try {
    const rows = conn.prepare('SELECT seq, session_id, body FROM ledger_entries ORDER BY seq').all() as Array<{
      seq: number;
      session_id: string | null;
      body: string;
    }>;
    return rows.map((r) => ({ seq: r.seq, session_id: r.session_id, receipt: JSON.parse(r.body) }));
  } finally {
    conn.close();
  }
}

/** SHA-256 hex of a flat object of strings as sorted-key compact JSON (what JCS gives for it). */
export function sortedJsonHash(value: Record<string, string>): string {
  const sorted = Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, value[k]]),
  );
  return createHash('sha256').update(JSON.stringify(sorted), 'utf8').digest('hex');
}

/** A kernel seed file (and its public key file) in `dir`. */
export function kernelKeyFiles(dir: string, byte = 'a7'): { seedFile: string; pubFile: string; publicKeyHex: string } {
  const hex = byte.repeat(32);
  const seedFile = join(dir, `kernel-${byte}.seed`);
  const pubFile = join(dir, `kernel-${byte}.pub`);
  const publicKeyHex = signerFromSeed(fromHex(hex)).publicKeyHex;
  writeFileSync(seedFile, `${hex}\n`);
  writeFileSync(pubFile, `${publicKeyHex}\n`);
  return { seedFile, pubFile, publicKeyHex };
}
