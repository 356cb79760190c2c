// Redacted receipts cannot be opened with a word list, and can be opened with a disclosed salt: a
// real `chio mcp serve` (built CLI) with a redacting policy and an operator redaction key writes a
// real ledger; an attacker holding the ledger tries a word list against each receipt's
// parameter_hash; the operator discloses one receipt's salt and the auditor checks the value,
// through the built CLI. A call whose producer is killed is recovered with the same salted hash.
import { createHash, createHmac } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson, fromHex, signerFromSeed } from '../../src/crypto/index.js';
import { appendReceiptSync, openLedger } from '../../src/ledger/index.js';
import { signReceipt } from '../../src/receipt/index.js';
import type { Receipt } from '../../src/receipt/index.js';
import { chio, errorCode } from '../helpers/cli.js';
import { freshPgDatabase } from '../helpers/postgres.js';
import { tempDir } from '../helpers/tmp.js';
import { governedMcpTransport } from '../helpers/mcp-serve.js';

const MARKER_SERVER = new URL('../helpers/marker-mcp-server.mjs', import.meta.url).pathname;
/** The attacker's word list; the real password is in it, at neither end. */
const WORDS = [
  '123456',
  'password',
  'qwerty',
  'letmein',
  'dragon',
  'hunter2',
  'monkey',
  'swordfish',
  'trustno1',
  'iloveyou',
  'correct horse battery staple',
];

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * The attack on main before salting: keep the receipt's clear parameters, put each guess in the
 * redacted key, hash, compare with parameter_hash. `whole` guesses the whole parameters instead
 * (hash_only receipts store none, but the shape of a call is often guessable).
 */
function dictionaryAttack(receipt: Receipt, redactedKey: string, whole?: (guess: string) => unknown): string[] {
  const clear = (receipt.action.parameters ?? {}) as Record<string, unknown>;
  return WORDS.filter((guess) => {
    const candidate = whole === undefined ? { ...clear, [redactedKey]: guess } : whole(guess);
    return sha256(canonicalJson(candidate)) === receipt.action.parameter_hash;
  });
}

function receipts(db: string): Receipt[] {
  const l = openLedger(db, { readonly: true });
  try {
    return (l.db.prepare('SELECT body FROM ledger_entries ORDER BY seq').all() as Array<{ body: string }>).map(
      (r) => JSON.parse(r.body) as Receipt,
    );
  } finally {
    l.close();
  }
}

async function until(done: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const dir = tempDir('chio-redaction-');
const markers = join(dir, 'markers');
const seed = join(dir, 'kernel.seed');
const pub = join(dir, 'kernel.pub');
const key = join(dir, 'redaction.key');
const otherKey = join(dir, 'other-redaction.key');
const policyFile = (name: string, redaction: unknown) => {
  const p = join(dir, `${name}.json`);
  writeFileSync(p, JSON.stringify({ redaction }));
  return p;
};

function serve(db: string, args: string[]): StdioClientTransport {
  return governedMcpTransport({
    db,
    seedFile: seed,
    serverId: 'marker',
    flags: args,
    upstream: [process.execPath, MARKER_SERVER, markers],
  });
}

async function callOnce(
  db: string,
  args: string[],
  calls: Array<{ name: string; arguments: Record<string, unknown> }>,
): Promise<void> {
  const client = new Client({ name: 'chio-redaction-test', version: '1.0.0' }, { capabilities: {} });
  await client.connect(serve(db, args));
  for (const c of calls) expect((await client.callTool(c))._meta).toBeDefined();
  await client.close();
}

beforeAll(() => {
  mkdirSync(markers);
  expect(chio(['keys', 'generate', '--out', seed, '--pub-out', pub]).status).toBe(0);
  for (const k of [key, otherKey]) {
    const r = chio(['receipt', 'redaction-key', '--out', k, '--json']);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ key_file: k, key_id: expect.stringMatching(/^[0-9a-f]{64}$/) });
  }
});

describe('chio receipt redaction-key', () => {
  it('writes 64 hex characters readable by its owner only, prints the key id (never the key), and never overwrites', () => {
    expect(readFileSync(key, 'utf8')).toMatch(/^[0-9a-f]{64}\n$/);
    expect(statSync(key).mode & 0o777).toBe(0o600);
    const hex = readFileSync(key, 'utf8').trim();
    const again = chio(['receipt', 'redaction-key', '--out', key]);
    expect(again.status).toBe(2);
    expect(errorCode(again.stderr)).toBe('CHIO-CLI-FILE-EXISTS');
    expect(readFileSync(key, 'utf8').trim()).toBe(hex);
    const shown = chio(['receipt', 'redaction-key', '--out', join(dir, 'third.key')]);
    expect(shown.stdout).toContain(
      createHmac('sha256', Buffer.from(readFileSync(join(dir, 'third.key'), 'utf8').trim(), 'hex'))
        .update('chio.redaction-key-id.v1')
        .digest('hex'),
    );
    expect(shown.stdout).not.toContain(readFileSync(join(dir, 'third.key'), 'utf8').trim());
  });
});

describe('redact_keys: a word list finds nothing; the disclosed salt proves the value', () => {
  const db = join(dir, 'redact-keys.sqlite');
  const policy = policyFile('redact-keys', { mode: 'redact_keys', keys: ['password'] });
  let echo: Receipt;
  let other: Receipt;
  beforeAll(async () => {
    await callOnce(
      db,
      ['--policy', policy, '--redaction-key-file', key],
      [
        { name: 'echo', arguments: { text: 'login ada', password: 'hunter2' } },
        { name: 'echo', arguments: { text: 'login bob', password: 'swordfish' } },
      ],
    );
    const all = receipts(db);
    expect(all).toHaveLength(2);
    echo = all[0]!;
    other = all[1]!;
  });

  it('the attack that worked on an unsalted hash finds no password in a salted receipt', () => {
    expect(echo).toMatchObject({
      redaction_mode: 'redacted',
      action: { parameters: { text: 'login ada', password: '[REDACTED]' } },
    });
    expect(echo.metadata!.chio_parameter_salt).toEqual({
      key_id: expect.stringMatching(/^[0-9a-f]{64}$/),
      scheme: 'chio.parameter-salt.v1',
    });
    expect(dictionaryAttack(echo, 'password')).toEqual([]);
    expect(dictionaryAttack(other, 'password')).toEqual([]);
    // Nor does the bare value, or the value in any member the receipt keeps.
    expect(JSON.stringify(receipts(db))).not.toContain('hunter2');
  });

  it('the same attack against an unsalted redaction_mode none receipt finds the password: the attack is real', async () => {
    const plain = join(dir, 'none.sqlite');
    await callOnce(plain, [], [{ name: 'echo', arguments: { text: 'login ada', password: 'hunter2' } }]);
    const [r] = receipts(plain);
    expect(r!.redaction_mode).toBe('none');
    // Hide the value as redact_keys would: the unsalted hash alone gives it back.
    const hidden = {
      ...r!,
      action: { ...r!.action, parameters: { ...(r!.action.parameters as object), password: '[REDACTED]' } },
    };
    expect(dictionaryAttack(hidden, 'password')).toEqual(['hunter2']);
    // `none` keeps today's unsalted H(parameters), checked by `chio receipt verify`.
    expect(r!.action.parameter_hash).toBe(sha256(canonicalJson(r!.action.parameters)));
    expect(r!.metadata!.chio_parameter_salt).toBeUndefined();
  });

  it("disclose-salt prints the salt; check-disclosure exits 0 for the right value and 1 for a wrong password, a wrong salt, or another receipt's salt", () => {
    const d = chio(['--receipt-db', db, 'receipt', 'disclose-salt', echo.id, '--redaction-key-file', key]);
    expect(d.status, d.stderr).toBe(0);
    const salt = d.stdout.trim();
    expect(salt).toMatch(/^[0-9a-f]{64}$/);
    // The salt is HMAC-SHA-256(key, JCS({capability_id, purpose, signing_nonce, timestamp})), recomputed here without chio.
    const saltInput = `{"capability_id":${JSON.stringify(echo.capability_id)},"purpose":"chio.parameter-salt.v1","signing_nonce":${JSON.stringify(echo.metadata!.chio_receipt_signing_nonce)},"timestamp":${echo.timestamp}}`;
    expect(salt).toBe(
      createHmac('sha256', Buffer.from(readFileSync(key, 'utf8').trim(), 'hex'))
        .update(saltInput)
        .digest('hex'),
    );
    expect(echo.action.parameter_hash).toBe(
      sha256(`{"parameters":${canonicalJson({ text: 'login ada', password: 'hunter2' })},"salt":"${salt}"}`),
    );

    const check = (s: string, parameters: unknown, id = echo.id) =>
      chio([
        '--receipt-db',
        db,
        'receipt',
        'check-disclosure',
        id,
        '--salt',
        s,
        '--parameters',
        JSON.stringify(parameters),
        '--trusted-kernel-pubkey',
        pub,
      ]);
    const ok = check(salt, { password: 'hunter2', text: 'login ada' });
    expect(ok.status, ok.stdout + ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^OK: receipt [0-9a-f]{64} \(redaction_mode redacted\)/);
    for (const wrong of [
      { text: 'login ada', password: 'hunter3' },
      { text: 'login ada', password: '[REDACTED]' },
      { text: 'login ada' },
      { text: 'login ada', password: 'hunter2', extra: 1 },
    ]) {
      const r = check(salt, wrong);
      expect(r.status, JSON.stringify(wrong)).toBe(1);
      expect(r.stdout).toMatch(/^FAIL: receipt [0-9a-f]{64}: sha256\(JCS\(\{parameters, salt\}\)\)/);
    }
    const otherSalt = chio([
      '--receipt-db',
      db,
      'receipt',
      'disclose-salt',
      other.id.slice(0, 12),
      '--redaction-key-file',
      key,
    ]).stdout.trim();
    expect(otherSalt).toMatch(/^[0-9a-f]{64}$/);
    expect(otherSalt).not.toBe(salt);
    expect(check(otherSalt, { text: 'login ada', password: 'hunter2' }).status).toBe(1);
    expect(check(otherSalt, { text: 'login bob', password: 'swordfish' }, other.id).status).toBe(0);
    expect(check('0'.repeat(64), { text: 'login ada', password: 'hunter2' }).status).toBe(1);

    // --parameters-file and --json.
    const file = join(dir, 'disclosed.json');
    writeFileSync(file, JSON.stringify({ text: 'login ada', password: 'hunter2' }));
    const viaFile = chio([
      '--receipt-db',
      db,
      '--json',
      'receipt',
      'check-disclosure',
      echo.id,
      '--salt',
      salt,
      '--parameters-file',
      file,
    ]);
    expect(viaFile.status, viaFile.stderr).toBe(0);
    expect(JSON.parse(viaFile.stdout)).toEqual({
      ok: true,
      receipt_id: echo.id,
      parameter_hash: echo.action.parameter_hash,
    });
  });

  it('bad input is refused with a usage error, not a verdict: a malformed salt, no parameters, both, parameters that are not JSON', () => {
    const base = ['--receipt-db', db, 'receipt', 'check-disclosure', echo.id];
    for (const [args, code] of [
      [['--salt', 'ABC', '--parameters', '{}'], 'CHIO-CLI-USAGE'],
      [['--salt', 'A'.repeat(64), '--parameters', '{}'], 'CHIO-CLI-USAGE'],
      [['--salt', '0'.repeat(64)], 'CHIO-CLI-USAGE'],
      [
        ['--salt', '0'.repeat(64), '--parameters', '{}', '--parameters-file', join(dir, 'disclosed.json')],
        'CHIO-CLI-USAGE',
      ],
      [['--salt', '0'.repeat(64), '--parameters', '{"password":'], 'CHIO-CLI-BAD-JSON'],
    ] as const) {
      const r = chio([...base, ...args]);
      expect(r.status, r.stderr).toBe(2);
      expect(errorCode(r.stderr), r.stderr).toBe(code);
    }
    const missing = chio([
      '--receipt-db',
      db,
      'receipt',
      'check-disclosure',
      'f'.repeat(64),
      '--salt',
      '0'.repeat(64),
      '--parameters',
      '{}',
    ]);
    expect(errorCode(missing.stderr)).toBe('CHIO-CLI-RECEIPT-NOT-FOUND');
  });

  it('disclose-salt refuses another key (naming both key ids), a receipt that is not salted, and a receipt not signed by the pinned key', () => {
    const wrongKey = chio(['--receipt-db', db, 'receipt', 'disclose-salt', echo.id, '--redaction-key-file', otherKey]);
    expect(wrongKey.status).toBe(2);
    expect(errorCode(wrongKey.stderr)).toBe('CHIO-REDACTION-KEY-MISMATCH');
    expect(wrongKey.stderr).toContain((echo.metadata!.chio_parameter_salt as { key_id: string }).key_id);
    expect(wrongKey.stdout).toBe('');

    const plainDb = join(dir, 'none.sqlite');
    const plain = receipts(plainDb)[0]!;
    const notSalted = chio([
      '--receipt-db',
      plainDb,
      'receipt',
      'disclose-salt',
      plain.id,
      '--redaction-key-file',
      key,
    ]);
    expect(errorCode(notSalted.stderr)).toBe('CHIO-REDACTION-NOT-SALTED');
    const checkPlain = chio([
      '--receipt-db',
      plainDb,
      'receipt',
      'check-disclosure',
      plain.id,
      '--salt',
      '0'.repeat(64),
      '--parameters',
      '{}',
    ]);
    expect(checkPlain.status).toBe(2);
    expect(errorCode(checkPlain.stderr)).toBe('CHIO-REDACTION-NOT-SALTED');

    const strangerPub = join(dir, 'stranger.pub');
    writeFileSync(strangerPub, `${signerFromSeed(fromHex('99'.repeat(32))).publicKeyHex}\n`);
    const unpinned = chio([
      '--receipt-db',
      db,
      'receipt',
      'disclose-salt',
      echo.id,
      '--redaction-key-file',
      key,
      '--trusted-kernel-pubkey',
      strangerPub,
    ]);
    expect(errorCode(unpinned.stderr)).toBe('CHIO-REDACTION-RECEIPT-REFUSED');
    expect(unpinned.stdout).toBe('');
  });

  it('receipt verify and ledger verify accept salted receipts (the hash of redacted parameters is not checked against them)', () => {
    const list = chio(['--receipt-db', db, 'receipt', 'list']);
    expect(list.status).toBe(0);
    const file = join(dir, 'receipts.jsonl');
    writeFileSync(file, list.stdout);
    const v = chio(['receipt', 'verify', file, '--trusted-kernel-pubkey', pub]);
    expect(v.status, v.stdout).toBe(0);
    expect(v.stdout).toContain('2 receipts: 2 valid, 0 invalid');
    const lv = chio(['--receipt-db', db, 'ledger', 'verify', '--trusted-kernel-pubkey', pub]);
    expect(lv.status, lv.stdout + lv.stderr).toBe(0);
  });

  it('neither the key nor any salt is stored anywhere in the ledger files', () => {
    const keyHex = readFileSync(key, 'utf8').trim();
    const salts = [echo, other].map((r) =>
      chio(['--receipt-db', db, 'receipt', 'disclose-salt', r.id, '--redaction-key-file', key]).stdout.trim(),
    );
    const files = readdirSync(dir).filter((f) => f.startsWith('redact-keys.sqlite'));
    expect(files).toContain('redact-keys.sqlite');
    for (const f of files) {
      const bytes = readFileSync(join(dir, f)).toString('latin1');
      for (const secret of [keyHex, ...salts, 'hunter2', 'swordfish'])
        expect(bytes.includes(secret), `${f} holds ${secret.slice(0, 8)}…`).toBe(false);
    }
  });

  it("a receipt forged to copy another one's salt input (signed by another key) gets no salt, and neither does the original any more", () => {
    const forgedDb = join(dir, 'forged.sqlite');
    // A copy of the ledger an attacker could write to: the real receipts, then a forgery.
    const l = openLedger(forgedDb);
    for (const r of receipts(db)) appendReceiptSync(l, { receipt: r, producer: 'copy' });
    const { id: _id, signature: _s, kernel_key: _k, ...draft } = echo;
    const forged = signReceipt(
      { ...draft, tool_name: 'something-else' } as never,
      signerFromSeed(fromHex('99'.repeat(32))),
    );
    expect(forged.metadata!.chio_receipt_signing_nonce).toBe(echo.metadata!.chio_receipt_signing_nonce);
    appendReceiptSync(l, { receipt: forged, producer: 'attacker' });
    l.close();
    for (const id of [forged.id, echo.id]) {
      const r = chio(['--receipt-db', forgedDb, 'receipt', 'disclose-salt', id, '--redaction-key-file', key]);
      expect(r.status, r.stderr).toBe(2);
      expect(errorCode(r.stderr)).toBe('CHIO-REDACTION-RECEIPT-REFUSED');
      expect(r.stderr).toContain('2 receipts');
      expect(r.stdout).toBe('');
    }
    // The other receipt, whose salt input is its own, is still disclosed.
    expect(
      chio(['--receipt-db', forgedDb, 'receipt', 'disclose-salt', other.id, '--redaction-key-file', key]).status,
    ).toBe(0);
  });

  it('on a PostgreSQL copy of the ledger, disclose-salt gives the same salt and check-disclosure opens the same receipt', async () => {
    const { url } = await freshPgDatabase();
    expect(chio(['ledger', 'copy', '--from', db, '--to', url]).status).toBe(0);
    const [lite, post] = [db, url].map((store) =>
      chio(['--receipt-db', store, 'receipt', 'disclose-salt', echo.id.slice(0, 12), '--redaction-key-file', key]),
    );
    expect(post!.status, post!.stderr).toBe(0);
    expect(post!.stdout).toBe(lite!.stdout);
    const check = (parameters: unknown) =>
      chio([
        '--receipt-db',
        url,
        'receipt',
        'check-disclosure',
        echo.id,
        '--salt',
        post!.stdout.trim(),
        '--parameters',
        JSON.stringify(parameters),
        '--trusted-kernel-pubkey',
        pub,
      ]);
    expect(check({ password: 'hunter2', text: 'login ada' }).status).toBe(0);
    expect(check({ password: 'hunter3', text: 'login ada' }).status).toBe(1);
  });
});

describe('hash_only: guessable parameters are not confirmable without the salt', () => {
  it('a word list over the whole parameters finds nothing; the disclosed salt opens the hash', async () => {
    const db = join(dir, 'hash-only.sqlite');
    await callOnce(
      db,
      ['--policy', policyFile('hash-only', { mode: 'hash_only' }), '--redaction-key-file', key],
      [{ name: 'echo', arguments: { text: 'hunter2' } }],
    );
    const [r] = receipts(db);
    expect(r).toMatchObject({ redaction_mode: 'summary', action: { parameters: null } });
    expect(dictionaryAttack(r!, 'text', (guess) => ({ text: guess }))).toEqual([]);
    // What main wrote: H(parameters) unsalted, which the same attack opens.
    expect(
      WORDS.filter((g) => sha256(canonicalJson({ text: g })) === sha256(canonicalJson({ text: 'hunter2' }))),
    ).toEqual(['hunter2']);
    const salt = chio([
      '--receipt-db',
      db,
      'receipt',
      'disclose-salt',
      r!.id,
      '--redaction-key-file',
      key,
    ]).stdout.trim();
    expect(
      chio([
        '--receipt-db',
        db,
        'receipt',
        'check-disclosure',
        r!.id,
        '--salt',
        salt,
        '--parameters',
        '{"text":"hunter2"}',
      ]).status,
    ).toBe(0);
    expect(
      chio([
        '--receipt-db',
        db,
        'receipt',
        'check-disclosure',
        r!.id,
        '--salt',
        salt,
        '--parameters',
        '{"text":"hunter3"}',
      ]).status,
    ).toBe(1);
  });
});

describe('a redacting producer without a redaction key', () => {
  it('chio mcp serve refuses to govern calls (exit 2, CHIO-REDACTION-KEY-REQUIRED) and writes no receipt', () => {
    const db = join(dir, 'no-key.sqlite');
    const r = chio(
      [
        '--receipt-db',
        db,
        'mcp',
        'serve',
        '--kernel-seed-file',
        seed,
        '--policy',
        policyFile('no-key', { mode: 'redact_keys', keys: ['password'] }),
        '--',
        process.execPath,
        MARKER_SERVER,
        markers,
      ],
      { input: '' },
    );
    expect(r.status, r.stderr).toBe(2);
    expect(errorCode(r.stderr)).toBe('CHIO-REDACTION-KEY-REQUIRED');
    expect(!existsSync(db) || receipts(db).length === 0).toBe(true);
  });

  it('a key file that is not 64 hex characters is refused without echoing its contents', () => {
    const bad = join(dir, 'bad.key');
    writeFileSync(bad, 'not-a-key-but-a-secret-passphrase\n');
    const r = chio([
      '--receipt-db',
      join(dir, 'bad-key.sqlite'),
      'receipt',
      'disclose-salt',
      'f'.repeat(64),
      '--redaction-key-file',
      bad,
    ]);
    expect(r.status).toBe(2);
    expect(errorCode(r.stderr)).toBe('CHIO-REDACTION-KEY-INVALID');
    expect(r.stderr).not.toContain('passphrase');
  });
});

describe('a call whose producer is killed mid-call is recovered with the salted hash the original would have had', () => {
  const children: StdioClientTransport[] = [];
  afterAll(async () => {
    for (const c of children) await c.close().catch(() => {});
  });

  it('SIGKILL while the tool runs; the next serve settles it as incomplete; disclose-salt and check-disclosure open it', async () => {
    const db = join(dir, 'recovered.sqlite');
    const args = [
      '--policy',
      policyFile('recovery', { mode: 'redact_keys', keys: ['password'] }),
      '--redaction-key-file',
      key,
    ];
    const transport = serve(db, args);
    children.push(transport);
    const client = new Client({ name: 'chio-redaction-test', version: '1.0.0' }, { capabilities: {} });
    await client.connect(transport);
    const mark = client
      .callTool({ name: 'mark', arguments: { name: 'r-1', password: 'trustno1' } })
      .catch((e: unknown) => e);
    await until(() => existsSync(join(markers, 'r-1')), 'the tool to run');
    const pid = transport.pid!;
    process.kill(pid, 'SIGKILL');
    await mark;
    await until(() => {
      try {
        process.kill(pid, 0);
        return false;
      } catch {
        return true;
      }
    }, 'the killed edge to be reaped');
    expect(receipts(db)).toEqual([]);

    // The next start of the same product settles the call.
    await callOnce(db, args, []);
    const [recovered] = receipts(db);
    expect(recovered).toMatchObject({
      decision: { verdict: 'incomplete' },
      redaction_mode: 'redacted',
      action: { parameters: { name: 'r-1', password: '[REDACTED]' } },
      metadata: {
        chio_recovery: { facts: 'stored', cause: 'producer_gone' },
        chio_parameter_salt: { scheme: 'chio.parameter-salt.v1' },
      },
    });
    expect(dictionaryAttack(recovered!, 'password')).toEqual([]);
    const salt = chio([
      '--receipt-db',
      db,
      'receipt',
      'disclose-salt',
      recovered!.id,
      '--redaction-key-file',
      key,
    ]).stdout.trim();
    // The same salt and hash the original receipt would have carried: its capability, timestamp and nonce.
    expect(recovered!.action.parameter_hash).toBe(
      sha256(`{"parameters":${canonicalJson({ name: 'r-1', password: 'trustno1' })},"salt":"${salt}"}`),
    );
    const ok = chio([
      '--receipt-db',
      db,
      'receipt',
      'check-disclosure',
      recovered!.id,
      '--salt',
      salt,
      '--parameters',
      '{"name":"r-1","password":"trustno1"}',
      '--trusted-kernel-pubkey',
      pub,
    ]);
    expect(ok.status, ok.stdout + ok.stderr).toBe(0);
    expect(
      chio([
        '--receipt-db',
        db,
        'receipt',
        'check-disclosure',
        recovered!.id,
        '--salt',
        salt,
        '--parameters',
        '{"name":"r-1","password":"trustno2"}',
      ]).status,
    ).toBe(1);
    expect(chio(['--receipt-db', db, 'ledger', 'verify', '--trusted-kernel-pubkey', pub]).status).toBe(0);
  });
});
