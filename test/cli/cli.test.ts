// The chio CLI as a user runs it: real binary, real files; data on stdout, DESIGN §8 errors on stderr, exit codes 0/1/2.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { appendReceiptSync, openLedger } from '../../src/ledger/index.js';
import { verifyReceipt } from '../../src/receipt/index.js';
import { CHIO_BIN, chio, errorCode } from '../helpers/cli.js';
import { makeForeignFiles } from '../helpers/foreign-files.js';
import { mixedReceipt, testSigner } from '../helpers/receipts.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir();
const db = join(dir, 'receipts.sqlite');
const SESSIONS = ['s1', 's2', 's1', null, 's2', 's1', 's1', 's2', null, 's1', 's2', 's1'];
const receipts = SESSIONS.map((_, i) => mixedReceipt(i));
const digest = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');

beforeAll(() => {
  const ledger = openLedger(db);
  SESSIONS.forEach((s, i) => appendReceiptSync(ledger, { receipt: receipts[i]!, sessionId: s }));
  ledger.close();
});

describe('chio keys generate', () => {
  it('writes a 0600 seed file and the public key, and never overwrites either', () => {
    const seed = join(dir, 'k.seed');
    const pub = join(dir, 'k.pub');
    const r = chio(['keys', 'generate', '--out', seed, '--pub-out', pub, '--json']);
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(statSync(seed).mode & 0o777).toBe(0o600);
    expect(readFileSync(seed, 'utf8')).toMatch(/^[0-9a-f]{64}\n$/);
    expect(readFileSync(pub, 'utf8')).toBe(`${out.public_key}\n`);
    const before = digest(seed);
    const again = chio(['keys', 'generate', '--out', seed]);
    expect(again.status).toBe(2);
    expect(errorCode(again.stderr)).toBe('CHIO-CLI-FILE-EXISTS');
    const pubClash = chio(['keys', 'generate', '--out', join(dir, 'other.seed'), '--pub-out', pub]);
    expect(errorCode(pubClash.stderr)).toBe('CHIO-CLI-FILE-EXISTS');
    expect(existsSync(join(dir, 'other.seed'))).toBe(false);
    expect(digest(seed)).toBe(before);
  });
});

describe('chio receipt list', () => {
  const list = (...args: string[]) => chio(['receipt', 'list', '--receipt-db', db, ...args]);
  const ids = (stdout: string) =>
    stdout
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l).id as string);

  it('prints every receipt as a verifiable JSON line in ledger order, with the count on stderr', () => {
    const r = list();
    expect(r.status).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines.map((l) => JSON.parse(l).id)).toEqual(receipts.map((x) => x.id));
    for (const line of lines) expect(verifyReceipt(JSON.parse(line)).ok).toBe(true);
    expect(r.stderr).toBe('next_cursor=none total_count=12\n');
  });

  it('filters by session, outcome, tool and time', () => {
    expect(ids(list('--session-id', 's2').stdout)).toEqual(
      receipts.filter((_, i) => SESSIONS[i] === 's2').map((r) => r.id),
    );
    expect(ids(list('--outcome', 'deny').stdout)).toEqual(
      receipts.filter((r) => r.decision?.verdict === 'deny').map((r) => r.id),
    );
    expect(ids(list('--tool-name', 'write_file').stdout)).toEqual(
      receipts.filter((r) => r.tool_name === 'write_file').map((r) => r.id),
    );
    const t = receipts[4]!.timestamp;
    expect(ids(list('--since', String(t), '--until', String(t + 2)).stdout)).toEqual(
      receipts.slice(4, 7).map((r) => r.id),
    );
    const iso = new Date(receipts[10]!.timestamp * 1000).toISOString();
    expect(ids(list('--since', iso).stdout)).toEqual(receipts.slice(10).map((r) => r.id));
  });

  it('pages with --limit and --cursor through every receipt exactly once', () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
      const r = list('--limit', '5', ...(cursor === undefined ? [] : ['--cursor', cursor]));
      seen.push(...ids(r.stdout));
      cursor = /next_cursor=(\S+)/.exec(r.stderr)![1];
      if (cursor === 'none') break;
    }
    expect(seen).toEqual(receipts.map((r) => r.id));
  });

  it('refuses bad flag values with CHIO-CLI-USAGE', () => {
    for (const args of [
      ['--limit', '0'],
      ['--since', 'yesterday'],
      ['--outcome', 'maybe'],
      ['--cursor', '-3'],
    ]) {
      const r = list(...args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(errorCode(r.stderr)).toBe('CHIO-CLI-USAGE');
    }
  });
});

describe('chio receipt show', () => {
  it('shows a receipt by id or unique prefix with its place in the chain', () => {
    const target = receipts[5]!;
    const r = chio(['receipt', 'show', target.id, '--receipt-db', db, '--json']);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      seq: 6,
      session_id: 's1',
      session_prev_seq: 3,
      valid: true,
      receipt: { id: target.id },
    });
    const human = chio(['receipt', 'show', target.id.slice(0, 12), '--receipt-db', db]);
    expect(human.stdout).toMatch(/seq\s+6 \(session s1, previous in session: 3\)/);
    expect(human.stdout).toMatch(/signature\s+valid/);
  });

  it('an unknown id is CHIO-CLI-RECEIPT-NOT-FOUND, exit 2', () => {
    const r = chio(['receipt', 'show', 'deadbeefdeadbeef', '--receipt-db', db]);
    expect(r.status).toBe(2);
    expect(errorCode(r.stderr)).toBe('CHIO-CLI-RECEIPT-NOT-FOUND');
  });
});

describe('chio receipt verify', () => {
  const file = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };

  it('a valid receipt file verifies (exit 0); stdin and JSON Lines work too', () => {
    expect(chio(['receipt', 'verify', file('one.json', JSON.stringify(receipts[0], null, 2))]).stdout).toBe(
      `OK: receipt ${receipts[0]!.id} (kernel_key ${testSigner.publicKeyHex})\n`,
    );
    const lines = receipts
      .slice(0, 3)
      .map((r) => JSON.stringify(r))
      .join('\n');
    const r = chio(['receipt', 'verify', '-', '--json'], { input: lines });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, verified: 3, failed: 0 });
  });

  it('a tampered receipt fails (exit 1) naming the check', () => {
    const tampered = { ...receipts[1], tool_name: 'rm_rf' };
    const r = chio(['receipt', 'verify', file('bad.json', JSON.stringify(tampered))]);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/^FAIL: receipt [0-9a-f]{64}: id: /);
    const badSig = { ...receipts[2], signature: receipts[3]!.signature };
    expect(chio(['receipt', 'verify', file('badsig.json', JSON.stringify(badSig))]).stdout).toMatch(/: signature: /);
  });

  it('--trusted-kernel-pubkey rejects a receipt from another key', () => {
    const pub = file(
      'other.pub',
      `${'79b5562e8fe654f94078b112e8a98ba7901f853ae695bed7e0e3910bad049664'.replace('79', '7a')}\n`,
    );
    const r = chio(['receipt', 'verify', file('ok.json', JSON.stringify(receipts[0])), '--trusted-kernel-pubkey', pub]);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/kernel_key: /);
  });

  it('input that is not JSON is CHIO-CLI-BAD-JSON (exit 2); a missing file is CHIO-CLI-IO', () => {
    const r = chio(['receipt', 'verify', file('junk.json', '{"not json')]);
    expect(r.status).toBe(2);
    expect(errorCode(r.stderr)).toBe('CHIO-CLI-BAD-JSON');
    expect(errorCode(chio(['receipt', 'verify', join(dir, 'missing.json')]).stderr)).toBe('CHIO-CLI-IO');
  });
});

describe('chio sql', () => {
  it('runs read-only queries over the auditor views', () => {
    const r = chio([
      'sql',
      "select seq, verdict, guard from receipts where verdict = 'deny' order by seq",
      '--receipt-db',
      db,
      '--json',
    ]);
    expect(r.status, r.stderr).toBe(0);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows).toEqual(
      receipts.flatMap((x, i) =>
        x.decision?.verdict === 'deny' ? [{ seq: i + 1, verdict: 'deny', guard: 'forbidden-path' }] : [],
      ),
    );
    const ev = chio(['sql', 'select count(*) as n from receipt_evidence', '--receipt-db', db, '--json']);
    expect(JSON.parse(ev.stdout).n).toBe(receipts.reduce((a, x) => a + (x.evidence?.length ?? 0), 0));
    const sessions = chio([
      'sql',
      'select session_id, entries from session_summary order by session_id',
      '--receipt-db',
      db,
    ]);
    expect(sessions.stdout).toBe('session_id\tentries\ns1\t6\ns2\t4\n');
  });

  it('refuses every write, and the file is unchanged', () => {
    const before = digest(db);
    for (const q of [
      'delete from ledger_entries',
      "insert into ledger_sessions values ('x',1,1,1,1,1,'x')",
      'drop trigger ledger_entries_no_update',
      'pragma user_version = 99',
      "attach database '/tmp/x.sqlite' as x",
      'vacuum',
    ]) {
      const r = chio(['sql', q, '--receipt-db', db]);
      expect(r.status, q).toBe(2);
      expect(errorCode(r.stderr), q).toBe('CHIO-CLI-SQL-WRITE');
    }
    expect(digest(db)).toBe(before);
  });

  it('a bad query is CHIO-CLI-SQL-ERROR', () => {
    for (const q of ['selec 1', 'select * from nowhere', 'select 1; select 2']) {
      const r = chio(['sql', q, '--receipt-db', db]);
      expect(r.status, q).toBe(2);
      expect(errorCode(r.stderr), q).toBe('CHIO-CLI-SQL-ERROR');
    }
  });
});

describe('files that are not ledgers, through the CLI', () => {
  const files = makeForeignFiles(dir);
  for (const [name, { path, code }] of Object.entries(files)) {
    it(`${name}: every reading command exits 2 with ${code} and leaves the file unchanged`, () => {
      const before = digest(path);
      for (const args of [
        ['ledger', 'verify'],
        ['ledger', 'stats'],
        ['receipt', 'list'],
        ['sql', 'select 1'],
        ['ledger', 'rebuild-projections'],
      ]) {
        const r = chio([...args, '--receipt-db', path]);
        expect(r.status, args.join(' ')).toBe(2);
        expect(errorCode(r.stderr), args.join(' ')).toBe(code);
        expect(r.stdout).toBe('');
      }
      expect(digest(path)).toBe(before);
    });
  }

  it('a missing ledger is CHIO-LEDGER-NOT-FOUND and no file is created', () => {
    const missing = join(dir, 'nope.sqlite');
    const r = chio(['ledger', 'verify', '--receipt-db', missing]);
    expect(r.status).toBe(2);
    expect(errorCode(r.stderr)).toBe('CHIO-LEDGER-NOT-FOUND');
    expect(existsSync(missing)).toBe(false);
  });
});

describe('a ledger in use', () => {
  it('verifies from another process while a producer holds it open with un-checkpointed WAL', () => {
    const path = join(dir, 'live.sqlite');
    const ledger = openLedger(path);
    ledger.db.pragma('wal_autocheckpoint = 0');
    receipts.slice(0, 3).forEach((r, i) => appendReceiptSync(ledger, { receipt: r, sessionId: i === 1 ? 'x' : null }));
    const r = chio(['ledger', 'verify', '--receipt-db', path]);
    ledger.close();
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^OK: 3 entries verified, 1 session, signatures checked/);
  });
});

describe('usage', () => {
  it('unknown commands and flags are CHIO-CLI-USAGE, exit 2', () => {
    for (const args of [
      ['frobnicate'],
      ['ledger', 'explode'],
      ['ledger', 'verify', '--bogus'],
      [],
      ['keys', 'generate'],
    ]) {
      const r = chio(args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(errorCode(r.stderr), args.join(' ')).toBe('CHIO-CLI-USAGE');
    }
  });

  it('--version prints the package version, alone and beside a command', () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(chio(['--version'])).toEqual({ status: 0, stdout: `${version}\n`, stderr: '' });
    expect(chio(['ledger', '--version'])).toEqual({ status: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('ledger stats reports counts and the head', () => {
    const r = chio(['ledger', 'stats', '--receipt-db', db, '--json']);
    expect(JSON.parse(r.stdout)).toMatchObject({
      entries: 12,
      sessions: 2,
      head: { seq: 12 },
      kernelKeys: { [testSigner.publicKeyHex]: 12 },
    });
  });
});

describe('a reader that closes the pipe early (`chio … | head -1`, `2>&1 | head -1`)', () => {
  /** Runs chio with its stdout (and stderr, with `both`) a pipe whose read end is closed before chio writes a byte. */
  const closedReader = (args: string[], both = false) =>
    new Promise<{ status: number | null; stderr: string }>((done) => {
      const child = spawn(process.execPath, [CHIO_BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.destroy();
      if (both) child.stderr.destroy();
      let stderr = '';
      if (!both) child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
      child.on('close', (status) => done({ status, stderr }));
    });

  it('ends the command quietly with its own exit code: 0 for a listing, 1 for a failed verification', async () => {
    const listing = await closedReader(['receipt', 'list', '--receipt-db', db]);
    expect(listing).toEqual({ status: 0, stderr: 'next_cursor=none total_count=12\n' });
    const tampered = join(dir, 'pipe-bad.json');
    writeFileSync(tampered, JSON.stringify({ ...receipts[1], tool_name: 'rm_rf' }));
    expect(await closedReader(['receipt', 'verify', tampered])).toEqual({ status: 1, stderr: '' });
    expect(await closedReader(['ledger', 'verify', '--receipt-db', db])).toEqual({ status: 0, stderr: '' });
  });

  it('with stderr closed too, the exit code is still the verdict: 0 for a listing, 2 for a missing ledger', async () => {
    expect((await closedReader(['receipt', 'list', '--receipt-db', db], true)).status).toBe(0);
    expect((await closedReader(['sql', 'SELECT 1 AS one', '--receipt-db', db], true)).status).toBe(0);
    const missing = join(dir, 'no-such-ledger.sqlite');
    expect((await closedReader(['ledger', 'verify', '--receipt-db', missing], true)).status).toBe(2);
    expect(existsSync(missing)).toBe(false);
  });
});
