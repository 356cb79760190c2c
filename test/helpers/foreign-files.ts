/** Files that are not Chio ledgers, for the refusal tests (library and CLI). */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { appendReceiptSync, LEDGER_SCHEMA_VERSION, openLedger } from '../../src/ledger/index.js';
import { mixedReceipt } from './receipts.js';

export function makeForeignFiles(where: string): Record<string, { path: string; code: string }> {
  const text = join(where, 'notes.txt');
  writeFileSync(text, 'this is not a database\n'.repeat(20));
  const unrelated = join(where, 'unrelated.sqlite');
  const u = new Database(unrelated);
  u.exec("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO customers (name) VALUES ('ada')");
  u.close();
  const newer = join(where, 'newer.sqlite');
  const l = openLedger(newer);
  appendReceiptSync(l, { receipt: mixedReceipt(1) });
  l.db.pragma(`user_version = ${LEDGER_SCHEMA_VERSION + 1}`);
  l.db.pragma('wal_checkpoint(TRUNCATE)');
  l.db.pragma('journal_mode = DELETE'); // a clean single file, so "unchanged" covers all of it
  l.close();
  const garbage = join(where, 'garbage.sqlite');
  writeFileSync(garbage, Buffer.concat([Buffer.from('SQLite format 3\u0000'), Buffer.alloc(4080, 0xab)]));
  return {
    text: { path: text, code: 'CHIO-LEDGER-NOT-SQLITE' },
    unrelated: { path: unrelated, code: 'CHIO-LEDGER-FOREIGN-DATABASE' },
    newer: { path: newer, code: 'CHIO-LEDGER-SCHEMA-TOO-NEW' },
    garbage: { path: garbage, code: 'CHIO-LEDGER-CORRUPT' },
  };
}
