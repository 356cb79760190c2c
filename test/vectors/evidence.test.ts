// The evidence bundle golden vector: the product (appendReceiptSync, createCheckpoint,
// generateCertificate, exportEvidence) reproduces test/vectors/evidence/chio-evidence-v1.json byte for
// byte; its parts are the other vectors' (the shared ledger entries, the checkpoint vector's note) and
// the certificate body is what Chio makes for sess-A; verifyEvidenceBundle accepts the bundle and gives
// every case its expected verdict; and the standard-library Python checker (check_evidence.py) passes
// the vector and fails copies corrupted in the ways that matter.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { canonicalJson, hashCanonical, verifySignature } from '../../src/crypto/index.js';
import { verifyEvidenceBundle } from '../../src/projections/evidence/index.js';
import { loadVector } from '../helpers/vectors.js';
import { buildEvidenceVectors, ISSUED_AT } from './evidence-vectors.js';
import type { PatchOp } from './evidence-vectors.js';

const FILE = new URL('./evidence/chio-evidence-v1.json', import.meta.url);
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const vectorsDir = fileURLToPath(new URL('./', import.meta.url));
const SUMMARY = /^(\d+) passed, (\d+) failed$/m;

function python(dir?: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('python3', ['test/vectors/check_evidence.py', ...(dir === undefined ? [] : [dir])], { cwd: repoRoot, encoding: 'utf8', timeout: 120_000 });
  if (r.error) throw r.error; // no python3 is a failure, not a skip: the cross-language check must run
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** RFC 6901 pointer → its unescaped tokens. */
function tokens(pointer: string): string[] {
  if (!pointer.startsWith('/')) throw new Error(`not a JSON pointer: ${pointer}`);
  return pointer.slice(1).split('/').map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** RFC 6902 add / remove / replace, applied in order to a deep copy of `doc`. */
function applyPatch<T>(doc: T, ops: readonly PatchOp[]): T {
  const out = structuredClone(doc) as any;
  for (const { op, path, value } of ops) {
    const ts = tokens(path);
    const last = ts.pop()!;
    const parent = ts.reduce((node, t) => {
      const next = Array.isArray(node) ? node[Number(t)] : node[t];
      if (typeof next !== 'object' || next === null) throw new Error(`${path}: no container at ${t}`);
      return next;
    }, out);
    if (Array.isArray(parent)) {
      const i = Number(last);
      if (!Number.isInteger(i) || i < 0 || i > parent.length - (op === 'add' ? 0 : 1)) throw new Error(`${path}: index out of range`);
      if (op === 'add') parent.splice(i, 0, structuredClone(value));
      else if (op === 'remove') parent.splice(i, 1);
      else parent[i] = structuredClone(value);
    } else {
      if (op !== 'add' && !(last in parent)) throw new Error(`${path}: no member ${last}`);
      if (op === 'remove') delete parent[last];
      else parent[last] = structuredClone(value);
    }
  }
  return out as T;
}

describe('evidence bundle golden vector', () => {
  const generated = `${JSON.stringify(buildEvidenceVectors(), null, 2)}\n`;
  if (process.env['CHIO_WRITE_VECTORS'] === '1') {
    mkdirSync(new URL('./evidence/', import.meta.url), { recursive: true });
    writeFileSync(FILE, generated);
  }
  const text = readFileSync(FILE, 'utf8');
  const vec = JSON.parse(text);
  const shared = loadVector('receipt/chio-v1.json');

  it('is reproduced byte for byte by the product (ledger, checkpoint, certificate, export)', () => {
    expect(generated).toBe(text);
  });

  it('holds sess-A\'s ledger entries as in receipt/chio-v1.json, the checkpoint vector\'s note, and the certificate Chio makes for sess-A', () => {
    const b = vec.bundle;
    expect(b.schema).toBe('chio.evidence-bundle.v1');
    expect(b.session_id).toBe('sess-A');
    const sessA = shared.ledger.entries.filter((e: any) => e.session_id === 'sess-A');
    expect(sessA.map((e: any) => e.seq)).toEqual([1, 3]);
    expect(b.entries).toEqual(sessA.map(({ seq, prev_hash, entry_hash, session_id, session_prev_seq, body }: any) => ({ seq, prev_hash, entry_hash, session_id, session_prev_seq, body })));
    expect(b.checkpoint).toBe(loadVector('checkpoint/chio-checkpoint-v1.json').signed_note);
    expect(vec.checkpoint_root_hex).toBe(loadVector('checkpoint/chio-checkpoint-v1.json').tree.root_hex);
    // The proofs are the Merkle vector's proofs of leaves 0 and 2 in the tree of 3.
    const merkle = loadVector('merkle/chio-merkle-v1.json');
    expect(b.proofs).toEqual([0, 2].map((m) => merkle.inclusion_proofs.find((p: any) => p.leaf_index === m && p.tree_size === 3)));
    const ids = [shared.receipts.allow.id, shared.receipts.trace_observation.id];
    expect(vec.receipt_ids_in_session_order).toEqual(ids);
    expect(vec.receipt_set_digest_input_jcs).toBe(canonicalJson(ids));
    expect(b.certificate.body).toEqual({
      schema: 'chio.compliance.certificate.v1',
      session_id: 'sess-A',
      issued_at: ISSUED_AT,
      receipt_count: 2,
      first_receipt_at: shared.receipts.allow.receipt.timestamp,
      last_receipt_at: shared.receipts.trace_observation.receipt.timestamp,
      all_signatures_valid: true,
      chain_continuous: true,
      scope_compliant: true,
      budget_compliant: true,
      guards_compliant: true,
      anomalies: [],
      kernel_key: shared.ed25519_public_key_hex,
      ledger_binding: { first_seq: 1, last_seq: 3, session_head_entry_hash: shared.ledger.entries[2].entry_hash, receipt_set_digest: hashCanonical(ids) },
    });
    // Kernel-signed: the signer is the session's kernel key, over the body's RFC 8785 text.
    expect(b.certificate.signer_key).toBe(shared.ed25519_public_key_hex);
    expect(vec.certificate_body_jcs).toBe(canonicalJson(b.certificate.body));
    expect(verifySignature(b.certificate.signer_key, vec.certificate_body_jcs, b.certificate.signature)).toBe(true);
    // Same body as the authority-signed certificate vector: only the signer differs.
    expect(b.certificate.body).toEqual(loadVector('certificate/chio-certificate-v1.json').certificate.body);
  });

  it('verifyEvidenceBundle accepts the bundle under the vector public key', () => {
    expect(verifyEvidenceBundle(vec.bundle, { trustedKernelKeys: new Set([shared.ed25519_public_key_hex]) })).toEqual({
      ok: true,
      sessionId: 'sess-A',
      receipts: 2,
      treeSize: 3,
      root: vec.checkpoint_root_hex,
      checkpointSigner: shared.ed25519_public_key_hex,
      certificateSigner: shared.ed25519_public_key_hex,
    });
  });

  // What each rejection's reason must say, so a case cannot pass by failing for another reason.
  const reasons: Record<string, RegExp> = {
    authority_certificate_untrusted: /is not a trusted kernel or authority key/,
    first_receipt_removed: /links to seq 1: the session's earlier entries are missing/,
    last_receipt_removed: /counts 2 receipts, the bundle holds 1/,
    receipts_swapped: /links to seq 1: the session's earlier entries are missing/,
    entry_of_other_session_inserted: /belongs to session "sess-B"/,
    body_altered: /does not verify \(id:/,
    body_reserialized: /hashes to [0-9a-f]{64}, not its entry_hash/,
    proof_hash_flipped: /is not in the tree the checkpoint signs/,
    checkpoint_root_changed: /does not verify: the checkpoint \(origin, tree size or root hash\) or the signature was altered/,
    certificate_session_changed: /certificate signature invalid/,
    certificate_of_other_session: /the certificate is for session "sess-B", not "sess-A"/,
    wrong_trusted_key: /no signature line is by a trusted key/,
  };

  it('each case gets its expected verdict (and the failing check and seq) from verifyEvidenceBundle', () => {
    expect(vec.cases.map((c: { name: string }) => c.name)).toEqual([
      'as_exported', 'authority_certificate', 'authority_certificate_untrusted', 'first_receipt_removed', 'last_receipt_removed', 'receipts_swapped',
      'entry_of_other_session_inserted', 'body_altered', 'body_reserialized', 'proof_hash_flipped', 'checkpoint_root_changed',
      'certificate_session_changed', 'certificate_of_other_session', 'wrong_trusted_key',
    ]);
    for (const c of vec.cases) {
      const bundle = applyPatch(vec.bundle, c.patch);
      if (c.patch.length > 0) expect(bundle, c.name).not.toEqual(vec.bundle);
      const verdict = verifyEvidenceBundle(bundle, { trustedKernelKeys: new Set(c.trusted_kernel_keys), trustedAuthorityKeys: new Set(c.trusted_authority_keys) });
      if (c.expected.verdict === 'accept') {
        expect(verdict, c.name).toMatchObject({ ok: true, sessionId: 'sess-A', receipts: 2 });
      } else {
        expect(verdict, c.name).toMatchObject({ ok: false, check: c.expected.check });
        expect((verdict as { seq?: number }).seq, c.name).toBe(c.expected.seq);
        expect((verdict as { reason: string }).reason, c.name).toMatch(reasons[c.name]!);
      }
    }
  });

  it('the reserialized body is the same receipt in other bytes, so only the entry hash can catch it', () => {
    const c = vec.cases.find((x: { name: string }) => x.name === 'body_reserialized');
    const body = c.patch[0].value as string;
    expect(body).not.toBe(vec.bundle.entries[0].body);
    expect(JSON.parse(body)).toEqual(JSON.parse(vec.bundle.entries[0].body));
  });

  it('the Python checker passes the vector', () => {
    const ok = python();
    expect(ok.stderr, ok.stdout).toBe('');
    expect(ok.status, ok.stdout).toBe(0);
    for (const group of ['provenance', 'format', 'checkpoint', 'session chain', 'receipts', 'entry hashes', 'inclusion proofs', 'certificate', 'cases']) {
      expect(ok.stdout).toMatch(new RegExp(`^ok {3}evidence ${group}\\b.*: (\\d+)/\\1 checks passed$`, 'm'));
    }
    expect(ok.stdout).toMatch(/^ok {3}evidence cases \(expected verdict and failing check\): 14\/14 checks passed$/m);
    expect(SUMMARY.exec(ok.stdout)?.[2]).toBe('0');
  });

  // Each corruption of a copy of the vectors, and the failure the checker must then report.
  const flipHex = (h: string) => h.slice(0, -1) + (parseInt(h.at(-1)!, 16) ^ 1).toString(16);
  const mutations: Array<[string, (v: any) => void, RegExp]> = [
    ['entry seq 3 dropped from the bundle (a truncated session)', (v) => { v.bundle.entries.pop(); v.bundle.proofs.pop(); }, /certificate receipt_count = the number of entries/],
    ['the two entries swapped', (v) => { v.bundle.entries.reverse(); v.bundle.proofs.reverse(); }, /session_prev_seq of the first entry is null/],
    ['the title in seq 3\'s stored body changed', (v) => { v.bundle.entries[1].body = v.bundle.entries[1].body.replace('"title":"Read notes"', '"title":"Read secrets"'); }, /seq 3: id = H\(receipt minus id, signature, algorithm\)/],
    ['a hash of seq 3\'s inclusion proof flipped', (v) => { v.bundle.proofs[1].hashes[0] = flipHex(v.bundle.proofs[1].hashes[0]); }, /seq 3: the proof leads to the checkpoint's root/],
    ['the tree size in the checkpoint note changed', (v) => { v.bundle.checkpoint = v.bundle.checkpoint.replace('\n3\n', '\n4\n'); }, /the checkpoint verifies under a trusted kernel key/],
    ['the certificate\'s receipt_count changed (not re-signed)', (v) => { v.bundle.certificate.body.receipt_count = 3; }, /the certificate's signature verifies under signer_key/],
    ['a case\'s expected check changed', (v) => { v.cases[3].expected.check = 'inclusion'; }, /first_receipt_removed: expected reject \(inclusion at seq 3\): got reject \(session_chain at seq 3\)/],
    ['a rejected case marked accept', (v) => { v.cases[12].expected = { verdict: 'accept' }; }, /certificate_of_other_session: expected accept: got reject \(certificate\)/],
    ['an entry hash flipped (and its proof\'s)', (v) => { const h = flipHex(v.bundle.entries[0].entry_hash); v.bundle.entries[0].entry_hash = h; v.bundle.proofs[0].entry_hash = h; }, /seq 1: entry_hash = sha256_hex\(JCS\(/],
  ];

  for (const [name, mutate, failure] of mutations) {
    it(`the Python checker rejects a corrupted copy: ${name}`, () => {
      const dir = mkdtempSync(join(tmpdir(), 'chio-evidence-vectors-'));
      try {
        for (const sub of ['receipt', 'checkpoint', 'merkle', 'certificate', 'evidence']) cpSync(join(vectorsDir, sub), join(dir, sub), { recursive: true });
        const file = join(dir, 'evidence', 'chio-evidence-v1.json');
        const v = JSON.parse(readFileSync(file, 'utf8'));
        mutate(v);
        writeFileSync(file, JSON.stringify(v, null, 2));
        const bad = python(dir);
        expect(bad.stderr, bad.stdout).toBe('');
        expect(bad.status, bad.stdout).toBe(1);
        expect(bad.stdout).toMatch(/^FAIL evidence/m);
        expect(bad.stdout).toMatch(failure);
        expect(Number(SUMMARY.exec(bad.stdout)?.[2])).toBeGreaterThan(0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
