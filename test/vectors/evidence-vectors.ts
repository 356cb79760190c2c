// Builds the evidence bundle golden vector (test/vectors/evidence/chio-evidence-v1.json) with the
// product's own code: the three receipts of the shared ledger vector (receipt/chio-v1.json) are
// appended to a fresh SQLite ledger with appendReceiptSync, a checkpoint of the three entries is
// signed and stored with createCheckpoint, a kernel-signed certificate for session sess-A is made
// with generateCertificate (issued_at fixed), and exportEvidence assembles the bundle. Everything is
// signed with the shared seed (bytes 0x01..0x20); Ed25519 is deterministic, so every byte is
// reproducible. The cases are edits of the bundle as RFC 6902 JSON Patch operations (add, remove,
// replace with RFC 6901 pointers into the bundle), each with the trusted keys to verify under and the
// verdict expected (accept, or reject naming the failing check and seq).
// Imports the product read-only; writes only a temporary ledger that it removes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canonicalJson, fromHex, hashCanonical, signerFromSeed } from '../../src/crypto/index.js';
import { appendReceiptSync, createCheckpoint, openLedger } from '../../src/ledger/index.js';
import { generateCertificate } from '../../src/projections/certificate/index.js';
import { proveInclusion } from '../../src/projections/checkpoints/index.js';
import { exportEvidence } from '../../src/projections/evidence/index.js';
import { loadVector } from '../helpers/vectors.js';

/** The same fixed issue time as certificate/chio-certificate-v1.json. */
export const ISSUED_AT = 1788700000;
/** A second key (bytes 0x21..0x40, the certificate vector's authority): the certifying authority and the wrong kernel key. */
const OTHER_SEED = '2122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f40';
const SESSION = 'sess-A';

export interface PatchOp {
  op: 'add' | 'remove' | 'replace';
  path: string;
  value?: unknown;
}

/** A copy of the base64 root line of `note` with one bit of the root's last byte flipped. */
function flipRootBit(note: string): string {
  const lines = note.split('\n');
  const root = Buffer.from(lines[2]!, 'base64');
  root[31]! ^= 0x01;
  lines[2] = root.toString('base64');
  return lines.join('\n');
}

/** `hex` with its last character changed to another hex digit. */
const flipLastHex = (hex: string): string => hex.slice(0, -1) + (parseInt(hex.at(-1)!, 16) ^ 1).toString(16);

export function buildEvidenceVectors() {
  const shared = loadVector('receipt/chio-v1.json');
  const kernel = signerFromSeed(fromHex(shared.ed25519_seed_hex));
  const other = signerFromSeed(fromHex(OTHER_SEED));
  const dir = mkdtempSync(join(tmpdir(), 'chio-evidence-vectors-'));
  try {
    const ledger = openLedger(join(dir, 'vectors.sqlite'));
    try {
      const receipts = [shared.receipts.allow.receipt, shared.receipts.deny.receipt, shared.receipts.trace_observation.receipt];
      shared.ledger.entries.forEach((e: { session_id: string }, i: number) => appendReceiptSync(ledger, { receipt: receipts[i], sessionId: e.session_id }));
      const { checkpoint } = createCheckpoint(ledger, kernel, { now: ISSUED_AT });
      const certify = (sessionId: string, role: 'kernel' | 'authority') =>
        generateCertificate(ledger, { sessionId, signer: { role, key: role === 'kernel' ? kernel : other }, trustedKernelKeys: new Set([kernel.publicKeyHex]), now: ISSUED_AT });
      const certificate = certify(SESSION, 'kernel');
      const bundle = exportEvidence(ledger, { sessionId: SESSION, certificate, checkpoint });
      const ids = bundle.entries.map((e) => (JSON.parse(e.body) as { id: string }).id);
      const [first, last] = [bundle.entries[0]!, bundle.entries[1]!];
      const [firstProof, lastProof] = [bundle.proofs[0]!, bundle.proofs[1]!];
      const sessB = ledger.db.prepare('SELECT seq, prev_hash, entry_hash, session_id, session_prev_seq, body FROM ledger_entries WHERE seq = 2').get();
      const sessBProof = proveInclusion(ledger, { seq: 2 }, { treeSize: checkpoint.treeSize });

      const kernelKeys = [kernel.publicKeyHex];
      const reject = (check: string, seq?: number) => ({ verdict: 'reject', check, ...(seq === undefined ? {} : { seq }) });
      const cases: Array<{ name: string; why: string; patch: PatchOp[]; trusted_kernel_keys: string[]; trusted_authority_keys: string[]; expected: object }> = [];
      const add = (name: string, why: string, patch: PatchOp[], expected: object, keys: { kernel?: string[]; authority?: string[] } = {}) =>
        cases.push({ name, why, patch, trusted_kernel_keys: keys.kernel ?? kernelKeys, trusted_authority_keys: keys.authority ?? [], expected });

      add('as_exported', 'the bundle as exported: every check passes under the kernel key', [], { verdict: 'accept' });
      const authorityCert = certify(SESSION, 'authority');
      add('authority_certificate', 'the certificate replaced by one for the same session signed by other_seed_hex as a certifying authority, trusted as an authority key', [{ op: 'replace', path: '/certificate', value: authorityCert }], { verdict: 'accept' }, { authority: [other.publicKeyHex] });
      add('authority_certificate_untrusted', 'the same authority-signed certificate, with no authority key trusted: its signer is not a trusted key', [{ op: 'replace', path: '/certificate', value: authorityCert }], reject('certificate'));
      add('first_receipt_removed', 'entry seq 1 and its proof removed: the first entry left (seq 3) links to seq 1, so the session\'s start is missing', [{ op: 'remove', path: '/entries/0' }, { op: 'remove', path: '/proofs/0' }], reject('session_chain', 3));
      add('last_receipt_removed', 'entry seq 3 and its proof removed: the chain that is left is whole, but the certificate counts 2 receipts and binds seq 3 as the head', [{ op: 'remove', path: '/entries/1' }, { op: 'remove', path: '/proofs/1' }], reject('certificate'));
      add('receipts_swapped', 'the two entries (and their proofs) swapped: the first entry (seq 3) links to seq 1', [
        { op: 'replace', path: '/entries/0', value: last }, { op: 'replace', path: '/entries/1', value: first },
        { op: 'replace', path: '/proofs/0', value: lastProof }, { op: 'replace', path: '/proofs/1', value: firstProof },
      ], reject('session_chain', 3));
      add('entry_of_other_session_inserted', 'sess-B\'s entry seq 2 and its (valid) proof inserted between the two: it is not an entry of sess-A', [
        { op: 'add', path: '/entries/1', value: sessB }, { op: 'add', path: '/proofs/1', value: sessBProof },
      ], reject('entry', 2));
      add('body_altered', 'the path read by the allow receipt changed in its stored body: the receipt\'s id no longer matches its content', [
        { op: 'replace', path: '/entries/0/body', value: first.body.replace('/srv/app/README.md', '/srv/app/secrets.md') },
      ], reject('receipt', 1));
      add('body_reserialized', 'the body of seq 1 replaced by the same signed receipt in producer member order (not its stored RFC 8785 text): the receipt verifies, but the entry hash is over the stored bytes', [
        { op: 'replace', path: '/entries/0/body', value: JSON.stringify(shared.receipts.allow.receipt) },
      ], reject('entry_hash', 1));
      add('proof_hash_flipped', 'one hex digit of the first hash of seq 1\'s inclusion proof changed: the proof no longer leads to the checkpoint\'s root', [
        { op: 'replace', path: '/proofs/0/hashes/0', value: flipLastHex(firstProof.hashes[0]!) },
      ], reject('inclusion', 1));
      add('checkpoint_root_changed', 'one bit of the checkpoint\'s root hash flipped in the note (not re-signed): the kernel\'s signature line no longer verifies', [
        { op: 'replace', path: '/checkpoint', value: flipRootBit(bundle.checkpoint) },
      ], reject('checkpoint'));
      add('certificate_session_changed', 'the certificate body\'s session_id changed to sess-B (not re-signed): its signature no longer verifies', [
        { op: 'replace', path: '/certificate/body/session_id', value: 'sess-B' },
      ], reject('certificate'));
      add('certificate_of_other_session', 'the certificate replaced by a valid kernel-signed certificate for sess-B: it is not this session\'s', [
        { op: 'replace', path: '/certificate', value: certify('sess-B', 'kernel') },
      ], reject('certificate'));
      add('wrong_trusted_key', 'the bundle unchanged, verified under other_seed_hex\'s public key as the only kernel key: no signature line of the checkpoint is by a trusted key', [], reject('checkpoint'), { kernel: [other.publicKeyHex] });

      return {
        description:
          'Evidence bundle (chio.evidence-bundle.v1, DESIGN §10) for session sess-A of receipt/chio-v1.json (entries seq 1 and 3), exported from a ledger holding the three vector receipts: the two entries, an inclusion proof of each against the signed checkpoint of the 3-entry tree (checkpoint/chio-checkpoint-v1.json), that note, and a kernel-signed compliance certificate (issued_at fixed). All signed with the chio-v1 seed. cases: RFC 6902 patches of `bundle` with the keys to trust and the expected verdict. See test/vectors/README.md.',
        ed25519_seed_hex: shared.ed25519_seed_hex,
        ed25519_public_key_hex: kernel.publicKeyHex,
        other_seed_hex: OTHER_SEED,
        other_public_key_hex: other.publicKeyHex,
        session_id: SESSION,
        checkpoint_root_hex: checkpoint.rootHash,
        receipt_ids_in_session_order: ids,
        receipt_set_digest_input_jcs: canonicalJson(ids),
        receipt_set_digest: hashCanonical(ids),
        certificate_body_jcs: canonicalJson(certificate.body),
        trusted_kernel_keys: kernelKeys,
        bundle,
        cases,
      };
    } finally {
      ledger.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
