// The checkpoint golden vector: src/crypto's checkpoint-note reproduces
// test/vectors/checkpoint/chio-checkpoint-v1.json byte for byte; the tree, key hash and signature
// are recomputed here with node:crypto and the noble reference (not the product's note code); each
// case gets its expected verdict from verifyCheckpointNote; and the Python checker
// (check_checkpoint.py) passes the vector and fails copies corrupted in the ways that matter.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fromHex, referenceEd25519, verifyCheckpointNote } from '../../src/crypto/index.js';
import { loadVector } from '../helpers/vectors.js';
import { buildCheckpointVectors } from './checkpoint-vectors.js';

const FILE = new URL('./checkpoint/chio-checkpoint-v1.json', import.meta.url);
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const vectorsDir = fileURLToPath(new URL('./', import.meta.url));
const SUMMARY = /^(\d+) passed, (\d+) failed$/m;

function python(dir?: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('python3', ['test/vectors/check_checkpoint.py', ...(dir === undefined ? [] : [dir])], { cwd: repoRoot, encoding: 'utf8', timeout: 60_000 });
  if (r.error) throw r.error; // no python3 is a failure, not a skip: the cross-language check must run
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const sha256 = (...parts: Uint8Array[]) => new Uint8Array(createHash('sha256').update(Buffer.concat(parts)).digest());

describe('checkpoint golden vector', () => {
  const generated = `${JSON.stringify(buildCheckpointVectors(), null, 2)}\n`;
  if (process.env['CHIO_WRITE_VECTORS'] === '1') {
    mkdirSync(new URL('./checkpoint/', import.meta.url), { recursive: true });
    writeFileSync(FILE, generated);
  }
  const text = readFileSync(FILE, 'utf8');
  const committed = JSON.parse(text);

  it('is reproduced byte for byte by src/crypto (Ed25519 is deterministic)', () => {
    expect(generated).toBe(text);
  });

  it('recomputed without the note code: tree, origin, note text, key hash, signature, signed note', () => {
    const shared = loadVector('receipt/chio-v1.json');
    const entryHashes = shared.ledger.entries.map((e: { entry_hash: string }) => e.entry_hash);
    expect(entryHashes).toHaveLength(3);
    const [l0, l1, l2] = entryHashes.map((h: string) => sha256(Uint8Array.of(0), fromHex(h)));
    const root = sha256(Uint8Array.of(1), sha256(Uint8Array.of(1), l0, l1), l2);
    expect(committed.tree.root_hex).toBe(Buffer.from(root).toString('hex'));
    const origin = `chio-ledger/${entryHashes[0].slice(0, 32)}`;
    const noteText = `${origin}\n3\n${Buffer.from(root).toString('base64')}\n`;
    expect(committed.note_text).toBe(noteText);
    const pub = fromHex(shared.ed25519_public_key_hex);
    const keyHash = sha256(Buffer.from(origin), Uint8Array.of(0x0a, 0x01), pub).subarray(0, 4);
    expect(committed.key_hash_hex).toBe(Buffer.from(keyHash).toString('hex'));
    const sig = referenceEd25519.sign(fromHex(shared.ed25519_seed_hex), Buffer.from(noteText));
    expect(committed.signature_hex).toBe(Buffer.from(sig).toString('hex'));
    expect(committed.signed_note).toBe(`${noteText}\n\u2014 ${origin} ${Buffer.concat([keyHash, sig]).toString('base64')}\n`);
  });

  it('each case gets its expected verdict from verifyCheckpointNote', () => {
    expect(committed.cases.map((c: { name: string }) => c.name)).toEqual(['as_signed', 'witness_cosigned', 'tampered_size', 'tampered_root', 'flipped_signature', 'wrong_key']);
    for (const c of committed.cases) {
      const result = verifyCheckpointNote(c.signed_note, [c.trusted_key_hex], { keyName: c.key_name });
      expect(result.ok ? 'accept' : 'reject', c.name).toBe(c.expected);
      if (result.ok) expect(result).toMatchObject({ signerKey: committed.ed25519_public_key_hex, body: { origin: committed.origin, treeSize: 3 } });
    }
  });

  it('the Python checker passes the vector', () => {
    const ok = python();
    expect(ok.stderr, ok.stdout).toBe('');
    expect(ok.status, ok.stdout).toBe(0);
    expect(ok.stdout).toMatch(/^ok {3}checkpoint tree \(RFC 6962 over the chio-v1 ledger entry hashes\): 6\/6 checks passed$/m);
    expect(ok.stdout).toMatch(/^ok {3}checkpoint cases \(expected accept\/reject\): 8\/8 checks passed$/m);
    expect(SUMMARY.exec(ok.stdout)?.[2]).toBe('0');
  });

  // Each corruption of a copy of the vectors, and the failure the checker must then report.
  const mutations: Array<[string, (v: any, shared: any) => void, RegExp]> = [
    ['one hex character of the root', (v) => { v.tree.root_hex = v.tree.root_hex.replace(/^./, (c: string) => (c === '0' ? '1' : '0')); }, /root = SHA-256/],
    ['the size in the signed note', (v) => { v.signed_note = v.signed_note.replace('\n3\n', '\n2\n'); }, /signed_note = note_text, an empty line/],
    ['a rejected case marked accept', (v) => { v.cases[2].expected = 'accept'; }, /tampered_size: expected accept: got reject/],
    ['the witness case marked reject', (v) => { v.cases[1].expected = 'reject'; }, /witness_cosigned: expected reject: got accept/],
    ['the key hash', (v) => { v.key_hash_hex = '00000000'; }, /key_hash = SHA-256/],
    ['a ledger entry hash in the shared vector', (_v, shared) => { shared.ledger.entries[2].entry_hash = shared.ledger.entries[2].entry_hash.replace(/.$/, (c: string) => (c === '0' ? '1' : '0')); }, /leaf inputs = the ledger's entry_hash values/],
  ];

  for (const [name, mutate, failure] of mutations) {
    it(`the Python checker fails a copy with ${name} changed`, () => {
      const dir = mkdtempSync(join(tmpdir(), 'chio-checkpoint-vectors-'));
      try {
        cpSync(vectorsDir, dir, { recursive: true });
        const file = join(dir, 'checkpoint', 'chio-checkpoint-v1.json');
        const sharedFile = join(dir, 'receipt', 'chio-v1.json');
        const v = JSON.parse(readFileSync(file, 'utf8'));
        const shared = JSON.parse(readFileSync(sharedFile, 'utf8'));
        mutate(v, shared);
        writeFileSync(file, JSON.stringify(v, null, 2));
        writeFileSync(sharedFile, JSON.stringify(shared, null, 2));
        const bad = python(dir);
        expect(bad.status, bad.stdout).toBe(1);
        expect(bad.stdout).toMatch(/^FAIL checkpoint/m);
        expect(bad.stdout).toMatch(failure);
        expect(Number(SUMMARY.exec(bad.stdout)?.[2])).toBeGreaterThan(0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
