// Files that are not Chio ledgers are refused with a clear error and left byte-for-byte unchanged.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendReceiptSync, openLedger } from '../../src/ledger/index.js';
import { makeForeignFiles } from '../helpers/foreign-files.js';
import { mixedReceipt } from '../helpers/receipts.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir();
const digest = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');

describe('foreign files', () => {
  const files = makeForeignFiles(dir);
  for (const [name, { path, code }] of Object.entries(files)) {
    for (const readonly of [false, true]) {
      it(`${name} file: ${readonly ? 'reader' : 'writer'} refuses with ${code} and the file is unchanged`, () => {
        const before = digest(path);
        expect(() => openLedger(path, { readonly })).toThrowError(expect.objectContaining({ code }));
        expect(digest(path)).toBe(before);
      });
    }
  }

  it('a zero-byte file is initialised by a writer (nothing to lose) but refused by a reader', () => {
    const path = join(dir, 'empty.sqlite');
    writeFileSync(path, '');
    expect(() => openLedger(path, { readonly: true })).toThrowError(
      expect.objectContaining({ code: 'CHIO-LEDGER-FOREIGN-DATABASE' }),
    );
    const l = openLedger(path);
    expect(appendReceiptSync(l, { receipt: mixedReceipt(1) }).seq).toBe(1);
    l.close();
  });
});
