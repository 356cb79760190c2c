// Evidence bundles through the built CLI: `chio evidence export` writes one session with an
// inclusion proof per receipt, a signed checkpoint and a certificate; `chio evidence verify` checks
// it with no ledger at all (the file is deleted first). Every tamper case fails and names what.
import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Kernel } from '../../src/kernel/index.js';
import { openLedger } from '../../src/ledger/index.js';
import { kernelKeyFiles } from '../helpers/acp-proxy-ledger.js';
import { chio, errorCode } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { CountingToolServer } from '../helpers/tool-server.js';

const dir = tempDir('chio-evidence-cli-');
const keys = kernelKeyFiles(dir, 'e1');
const other = kernelKeyFiles(dir, 'e2');
const agent = kernelKeyFiles(dir, 'e3');

/** Two interleaved sessions of governed calls (every fourth denied). */
async function governedLedger(path: string, seedFile: string, calls: number): Promise<void> {
  const kernel = Kernel.open({ ledgerPath: path, seedFile, checkpoints: false });
  kernel.registerToolServer(new CountingToolServer());
  const cap = kernel.issueCapability({ subject: agent.publicKeyHex });
  for (let i = 0; i < calls; i++) {
    await kernel.evaluateToolCall({
      capability: cap,
      caller: agent.publicKeyHex,
      serverId: 'fs',
      toolName: 'read_file',
      arguments: { path: i % 4 === 3 ? '/etc/shadow' : `/workspace/f-${i}` },
      sessionId: i % 2 === 0 ? 'sess-a' : 'sess-b',
    });
  }
  await kernel.close();
}

const verify = (bundle: string, ...extra: string[]) =>
  chio(['evidence', 'verify', bundle, '--trusted-kernel-pubkey', keys.pubFile, ...extra]);
let n = 0;
function tampered(bundle: Record<string, any>, change: (b: Record<string, any>) => void): string {
  const copy = structuredClone(bundle);
  change(copy);
  const path = join(dir, `tampered-${++n}.json`);
  writeFileSync(path, JSON.stringify(copy));
  return path;
}

describe('chio evidence export and verify', () => {
  const db = join(dir, 'ledger.sqlite');
  const bundlePath = join(dir, 'bundle-a.json');
  const otherSessionCert = join(dir, 'cert-b.json');
  const otherLedgerNote = join(dir, 'other-note.txt');
  let bundle: Record<string, any>;

  beforeAll(async () => {
    await governedLedger(db, keys.seedFile, 14);
    const r = chio([
      '--receipt-db',
      db,
      'evidence',
      'export',
      '--session-id',
      'sess-a',
      '--output',
      bundlePath,
      '--kernel-seed-file',
      keys.seedFile,
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /wrote .*bundle-a\.json: session sess-a, 7 receipts, proofs against the checkpoint of 14 entries/,
    );
    bundle = JSON.parse(readFileSync(bundlePath, 'utf8'));
    const c = chio([
      '--receipt-db',
      db,
      'cert',
      'generate',
      '--session-id',
      'sess-b',
      '--kernel-seed-file',
      keys.seedFile,
      '--output',
      otherSessionCert,
    ]);
    expect(c.status, c.stderr).toBe(0);
    const otherDb = join(dir, 'other-ledger.sqlite');
    await governedLedger(otherDb, keys.seedFile, 14);
    writeFileSync(
      otherLedgerNote,
      chio(['--receipt-db', otherDb, 'ledger', 'checkpoint', '--kernel-seed-file', keys.seedFile]).stdout,
    );
  });

  it('verifies offline: the ledger file is gone and the bundle alone passes under the kernel key', () => {
    const offline = join(dir, 'offline-bundle.json');
    copyFileSync(bundlePath, offline);
    const moved = join(dir, 'elsewhere.sqlite');
    copyFileSync(db, moved);
    for (const s of ['', '-wal', '-shm']) rmSync(`${db}${s}`, { force: true });
    try {
      const r = verify(offline);
      expect(r.status, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toMatch(
        /^PASS: session sess-a: 7 receipts, each in the checkpoint of 14 entries \(root [0-9a-f]{64}\); certificate signed by [0-9a-f]{64}/,
      );
      expect(bundle).toMatchObject({ schema: 'chio.evidence-bundle.v1', session_id: 'sess-a' });
      expect(bundle.entries).toHaveLength(7);
      expect(bundle.proofs.map((p: any) => p.seq)).toEqual([1, 3, 5, 7, 9, 11, 13]);
    } finally {
      copyFileSync(moved, db);
    }
    expect(existsSync(db)).toBe(true);
  });

  it('under another kernel key nothing verifies (the checkpoint is refused first)', () => {
    const r = chio(['evidence', 'verify', bundlePath, '--trusted-kernel-pubkey', other.pubFile]);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/^FAIL: checkpoint: /);
  });

  const cases: Array<[string, (b: Record<string, any>) => void, RegExp]> = [
    [
      'a receipt removed from the middle',
      (b) => {
        b.entries.splice(3, 1);
        b.proofs.splice(3, 1);
      },
      /^FAIL: session_chain at seq 9: the entry at seq 9 links to seq 7, not to the entry before it \(seq 5\)/,
    ],
    [
      'the last receipt removed',
      (b) => {
        b.entries.pop();
        b.proofs.pop();
      },
      /^FAIL: certificate: the certificate counts 7 receipts, the bundle holds 6/,
    ],
    [
      'two receipts swapped',
      (b) => {
        [b.entries[1], b.entries[2]] = [b.entries[2], b.entries[1]];
        [b.proofs[1], b.proofs[2]] = [b.proofs[2], b.proofs[1]];
      },
      /^FAIL: session_chain at seq 5: /,
    ],
    [
      'a receipt body altered (the path it read)',
      (b) => {
        b.entries[1].body = b.entries[1].body.replace('/workspace/f-2', '/workspace/f-9');
      },
      /^FAIL: receipt at seq 3: /,
    ],
    [
      "the certificate's receipt count edited (its signature no longer verifies)",
      (b) => {
        b.certificate.body.receipt_count = 6;
      },
      /^FAIL: certificate: certificate signature invalid/,
    ],
    [
      'an entry hash altered with its proof',
      (b) => {
        b.entries[0].entry_hash = 'ab'.repeat(32);
        b.proofs[0].entry_hash = 'ab'.repeat(32);
      },
      /^FAIL: entry_hash at seq 1: /,
    ],
    [
      'a proof hash altered',
      (b) => {
        b.proofs[2].hashes[0] = '00'.repeat(32);
      },
      /^FAIL: inclusion at seq 5: the entry at seq 5 is not in the tree the checkpoint signs/,
    ],
    [
      'the checkpoint of another ledger',
      (b) => {
        b.checkpoint = readFileSync(otherLedgerNote, 'utf8');
      },
      /^FAIL: inclusion at seq 1: /,
    ],
    [
      'the certificate of another session',
      (b) => {
        b.certificate = JSON.parse(readFileSync(otherSessionCert, 'utf8'));
      },
      /^FAIL: certificate: the certificate is for session "sess-b", not "sess-a"/,
    ],
    [
      'a receipt of another session slipped in',
      (b) => {
        b.session_id = 'sess-b';
      },
      /^FAIL: entry at seq 1: the entry at seq 1 belongs to session "sess-a", not "sess-b"/,
    ],
  ];
  for (const [name, change, expected] of cases) {
    it(`${name}: FAIL, exit 1`, () => {
      const r = verify(tampered(bundle, change));
      expect(r.status, r.stdout + r.stderr).toBe(1);
      expect(r.stdout).toMatch(expected);
    });
  }

  it('not a bundle (bad JSON, wrong shape) is refused: exit 2 for unreadable JSON, exit 1 naming the schema for a wrong shape', () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{nope');
    const r = verify(bad);
    expect(r.status).toBe(2);
    expect(errorCode(r.stderr)).toBe('CHIO-CLI-BAD-JSON');
    const wrong = tampered(bundle, (b) => {
      b.entries = 'x';
    });
    expect(verify(wrong).stdout).toMatch(/^FAIL: schema: /);
  });

  it('without a kernel seed, export uses the latest stored checkpoint and the certificate given; with none covering the session it refuses (exit 2)', async () => {
    const fresh = join(dir, 'no-checkpoint.sqlite');
    await governedLedger(fresh, keys.seedFile, 6);
    const cert = join(dir, 'cert-fresh.json');
    expect(
      chio([
        '--receipt-db',
        fresh,
        'cert',
        'generate',
        '--session-id',
        'sess-a',
        '--kernel-seed-file',
        keys.seedFile,
        '--output',
        cert,
      ]).status,
    ).toBe(0);
    const refused = chio([
      '--receipt-db',
      fresh,
      'evidence',
      'export',
      '--session-id',
      'sess-a',
      '--output',
      join(dir, 'never.json'),
      '--certificate',
      cert,
    ]);
    expect(refused.status).toBe(2);
    expect(errorCode(refused.stderr)).toBe('CHIO-EVIDENCE-NO-CHECKPOINT');
    expect(existsSync(join(dir, 'never.json'))).toBe(false);
    expect(chio(['--receipt-db', fresh, 'ledger', 'checkpoint', '--kernel-seed-file', keys.seedFile]).status).toBe(0);
    const out = join(dir, 'from-stored.json');
    const r = chio([
      '--receipt-db',
      fresh,
      'evidence',
      'export',
      '--session-id',
      'sess-a',
      '--output',
      out,
      '--certificate',
      cert,
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(verify(out).status).toBe(0);
    const ledger = openLedger(fresh, { readonly: true });
    expect(ledger.db.prepare('SELECT count(*) AS n FROM ledger_checkpoints').get()).toEqual({ n: 1 });
    ledger.close();
  });
});
