// Files the user names, through the built CLI: output files are never overwritten without --force
// (and never an input, even with it); input files read whole are regular files under a size cap.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { fromHex, signerFromSeed } from '../../src/crypto/index.js';
import { appendReceiptSync, openLedger } from '../../src/ledger/index.js';
import { CHIO_BIN, errorCode } from '../helpers/cli.js';
import type { CliResult } from '../helpers/cli.js';
import { mixedReceipt, testSigner } from '../helpers/receipts.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir();
const db = join(dir, 'receipts.sqlite');
const kernelPub = join(dir, 'kernel.pub');
const authority = join(dir, 'authority.seed');
const authorityPub = join(dir, 'authority.pub');
const digest = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');

/** The built CLI, killed if it has not finished in 60 s: a read that never ends fails the test instead of hanging it. */
function chio(args: string[]): CliResult {
  const r = spawnSync(process.execPath, [CHIO_BIN, ...args], {
    encoding: 'utf8',
    cwd: dir,
    timeout: 60_000,
    env: { ...process.env, FORCE_COLOR: '0' },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function expectRefused(r: CliResult, code: string): void {
  expect(r.status, r.stderr).toBe(2);
  expect(errorCode(r.stderr), r.stderr).toBe(code);
  expect(r.stdout).toBe('');
}

beforeAll(() => {
  const ledger = openLedger(db);
  for (let i = 0; i < 6; i++) appendReceiptSync(ledger, { receipt: mixedReceipt(i), sessionId: 's1' });
  ledger.close();
  writeFileSync(kernelPub, `${testSigner.publicKeyHex}\n`);
  writeFileSync(authority, `${'cd'.repeat(32)}\n`);
  writeFileSync(authorityPub, `${signerFromSeed(fromHex('cd'.repeat(32))).publicKeyHex}\n`);
});

const generate = (output: string, ...extra: string[]) =>
  chio([
    'cert',
    'generate',
    '--session-id',
    's1',
    '--receipt-db',
    db,
    '--authority-seed-file',
    authority,
    '--trusted-kernel-pubkey',
    kernelPub,
    '--output',
    output,
    ...extra,
  ]);
const certVerify = (cert: string) =>
  chio([
    'cert',
    'verify',
    '--certificate',
    cert,
    '--trusted-kernel-pubkey',
    kernelPub,
    '--trusted-authority-pubkey',
    authorityPub,
  ]);

describe('cert generate --output', () => {
  it('writes a new file, which verifies', () => {
    const out = join(dir, 'new.json');
    const r = generate(out);
    expect(r.status, r.stderr).toBe(0);
    expect(certVerify(out).stdout).toMatch(/^PASS: certificate for session s1 verified/);
  });

  it('an existing file is refused with CHIO-CLI-FILE-EXISTS (exit 2) and left byte-for-byte unchanged; --force replaces it', () => {
    const out = join(dir, 'existing.txt');
    writeFileSync(out, 'my notes, not a certificate\n');
    const before = digest(out);
    expectRefused(generate(out), 'CHIO-CLI-FILE-EXISTS');
    expect(digest(out)).toBe(before);
    const forced = generate(out, '--force');
    expect(forced.status, forced.stderr).toBe(0);
    expect(certVerify(out).status).toBe(0);
    expect(readdirSync(dir).filter((f) => f.includes('.chio-'))).toEqual([]); // no temporary file left behind
  });

  it('is refused before anything is generated: an existing output and an empty session report the existing output', () => {
    const out = join(dir, 'first.txt');
    writeFileSync(out, 'x');
    const r = chio([
      'cert',
      'generate',
      '--session-id',
      'no-such-session',
      '--receipt-db',
      db,
      '--authority-seed-file',
      authority,
      '--output',
      out,
    ]);
    expectRefused(r, 'CHIO-CLI-FILE-EXISTS');
  });

  it('the receipt database itself, its -wal name, the seed and key files it reads: refused even with --force, all unchanged', () => {
    // Readers leave SQLite's -wal and -shm beside the file; whatever is there must stay as it is.
    const state = () =>
      [db, `${db}-wal`, `${db}-shm`, authority, kernelPub].map((p) => (existsSync(p) ? digest(p) : 'absent'));
    const before = state();
    for (const target of [
      db,
      `${db}-wal`,
      `${db}-shm`,
      `${db}-journal`,
      authority,
      kernelPub,
      join(dir, '.', 'receipts.sqlite'),
    ]) {
      for (const force of [[], ['--force']]) {
        const r = generate(target, ...force);
        expectRefused(r, 'CHIO-CLI-FILE-EXISTS');
      }
    }
    expect(state()).toEqual(before);
    expect(existsSync(`${db}-journal`)).toBe(false);
    expect(chio(['ledger', 'verify', '--receipt-db', db]).status).toBe(0);
  });

  it('a symlink to the receipt database is refused even with --force', () => {
    const link = join(dir, 'ledger-link.json');
    symlinkSync(db, link);
    const before = digest(db);
    expectRefused(generate(link, '--force'), 'CHIO-CLI-FILE-EXISTS');
    expect(digest(db)).toBe(before);
    expect(readlinkSync(link)).toBe(db);
  });

  it('a directory is refused (CHIO-CLI-IO) with or without --force, and nothing is written into it', () => {
    const sub = join(dir, 'certs');
    mkdirSync(sub);
    for (const force of [[], ['--force']]) expectRefused(generate(sub, ...force), 'CHIO-CLI-IO');
    expect(readdirSync(sub)).toEqual([]);
  });

  it('a planted symlink, dangling or not, is refused without --force and never written through; --force replaces the link itself', () => {
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'precious\n');
    const link = join(dir, 'planted.json');
    symlinkSync(victim, link);
    expectRefused(generate(link), 'CHIO-CLI-FILE-EXISTS');
    const dangling = join(dir, 'dangling.json');
    const nowhere = join(dir, 'would-be-created.txt');
    symlinkSync(nowhere, dangling);
    expectRefused(generate(dangling), 'CHIO-CLI-FILE-EXISTS');
    expect(existsSync(nowhere)).toBe(false);
    const forced = generate(link, '--force');
    expect(forced.status, forced.stderr).toBe(0);
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(lstatSync(link).isSymbolicLink()).toBe(false);
    expect(certVerify(link).status).toBe(0);
  });
});

describe('input files are regular files under a cap', () => {
  const fifo = join(dir, 'pipe');
  beforeAll(() => {
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
  });

  it('cert verify --certificate /dev/zero, a FIFO with no writer, a directory: CHIO-CLI-INPUT-NOT-FILE (exit 2), no hang', () => {
    for (const path of ['/dev/zero', fifo, dir]) expectRefused(certVerify(path), 'CHIO-CLI-INPUT-NOT-FILE');
    expect(certVerify('/dev/zero').stderr).toMatch(
      /^error\[CHIO-CLI-INPUT-NOT-FILE\]: certificate file \/dev\/zero is a character device/,
    );
  });

  it('cert verify: a certificate padded to exactly 1 MiB is read; one byte more is CHIO-CLI-INPUT-TOO-LARGE', () => {
    const good = join(dir, 'padded-source.json');
    expect(generate(good).status).toBe(0);
    const text = readFileSync(good, 'utf8');
    const atCap = join(dir, 'at-cap.json');
    writeFileSync(atCap, text + ' '.repeat(1024 * 1024 - Buffer.byteLength(text)));
    expect(certVerify(atCap).status).toBe(0);
    const over = join(dir, 'over-cap.json');
    writeFileSync(over, text + ' '.repeat(1024 * 1024 - Buffer.byteLength(text) + 1));
    const r = certVerify(over);
    expectRefused(r, 'CHIO-CLI-INPUT-TOO-LARGE');
    expect(r.stderr).toContain('larger than 1048576 bytes');
  });

  it('--policy and policy check: /dev/zero, a FIFO and an oversized policy are refused (exit 2); a normal policy still loads', () => {
    const big = join(dir, 'big-policy.yaml');
    writeFileSync(big, `# ${'x'.repeat(1024 * 1024)}\nschema: chio.policy.v1\n`);
    for (const [path, code] of [
      ['/dev/zero', 'CHIO-CLI-INPUT-NOT-FILE'],
      [fifo, 'CHIO-CLI-INPUT-NOT-FILE'],
      [big, 'CHIO-CLI-INPUT-TOO-LARGE'],
    ] as const) {
      expectRefused(chio(['check', '--policy', path, '--tool', 'read_file']), code);
      expectRefused(chio(['policy', 'check', path]), code);
    }
    // The edge refuses it before it starts anything: no upstream, no ledger.
    const edgeDb = join(dir, 'edge.sqlite');
    const edge = chio([
      'mcp',
      'serve',
      '--policy',
      '/dev/zero',
      '--receipt-db',
      edgeDb,
      '--',
      process.execPath,
      '-e',
      '',
    ]);
    expectRefused(edge, 'CHIO-CLI-INPUT-NOT-FILE');
    expect(existsSync(edgeDb)).toBe(false);
    const small = join(dir, 'small-policy.json');
    writeFileSync(small, '{}\n');
    expect(chio(['policy', 'check', small]).status).toBe(0);
  });

  it('seed and public key files: /dev/zero and oversized files are refused (exit 2)', () => {
    const bigSeed = join(dir, 'big.seed');
    writeFileSync(bigSeed, `${'ab'.repeat(32)}\n${' '.repeat(8192)}`);
    for (const [path, code] of [
      ['/dev/zero', 'CHIO-CLI-INPUT-NOT-FILE'],
      [bigSeed, 'CHIO-CLI-INPUT-TOO-LARGE'],
    ] as const) {
      expectRefused(
        chio([
          'capability',
          'revoke',
          'cap-0190a1b2-0000-7000-8000-000000000000',
          '--kernel-seed-file',
          path,
          '--receipt-db',
          join(dir, 'revoke.sqlite'),
        ]),
        code,
      );
      expectRefused(
        chio(['cert', 'generate', '--session-id', 's1', '--receipt-db', db, '--authority-seed-file', path]),
        code,
      );
      expectRefused(
        chio(['cert', 'generate', '--session-id', 's1', '--receipt-db', db, '--kernel-seed-file', path]),
        code,
      );
      expectRefused(chio(['ledger', 'verify', '--receipt-db', db, '--trusted-kernel-pubkey', path]), code);
    }
    expect(existsSync(join(dir, 'revoke.sqlite'))).toBe(false);
  });

  it('receipt verify: /dev/zero is refused; a pipe on stdin still works', () => {
    expectRefused(chio(['receipt', 'verify', '/dev/zero']), 'CHIO-CLI-INPUT-NOT-FILE');
    const r = spawnSync(process.execPath, [CHIO_BIN, 'receipt', 'verify', '-'], {
      encoding: 'utf8',
      input: JSON.stringify(mixedReceipt(1)),
      timeout: 60_000,
    });
    expect(r.status, r.stderr).toBe(0);
  });
});
