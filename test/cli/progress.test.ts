// `chio ledger verify` draws a progress bar on stderr when it runs long on a TTY, and never into a pipe.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { LedgerWriter, openLedger } from '../../src/ledger/index.js';
import { CHIO_BIN, chio } from '../helpers/cli.js';
import { mixedReceipt } from '../helpers/receipts.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir();
const db = join(dir, 'big.sqlite');
const ENTRIES = 12_000;

beforeAll(async () => {
  const ledger = openLedger(db, { synchronous: 'NORMAL' });
  const writer = new LedgerWriter(ledger, { maxBatch: 4000 });
  await Promise.all(
    Array.from({ length: ENTRIES }, (_, i) =>
      writer.append({ receipt: mixedReceipt(i, undefined, `big-${i}`), sessionId: `s${i % 10}` }),
    ),
  );
  ledger.close();
});

describe('progress bar', () => {
  it('appears on a TTY (util-linux `script` provides one) and is cleared at the end', () => {
    const r = spawnSync(
      'script',
      ['-qec', `${process.execPath} ${CHIO_BIN} ledger verify --receipt-db ${db}`, '/dev/null'],
      { encoding: 'utf8' },
    );
    expect(r.status, r.stdout).toBe(0);
    expect(r.stdout).toMatch(/verifying \[#*\.*\] +\d+% \d+\/12000 \(\d+\/s\)/);
    expect(r.stdout).toContain('\u001b[2K'); // line cleared before the result
    expect(r.stdout).toMatch(/OK: 12000 entries verified/);
  });

  it('is absent when stderr is not a TTY', () => {
    const r = chio(['ledger', 'verify', '--receipt-db', db]);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^OK: 12000 entries verified, 10 sessions/);
  });
});
