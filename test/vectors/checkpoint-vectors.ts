// Builds the checkpoint golden vector (test/vectors/checkpoint/chio-checkpoint-v1.json): the RFC 6962
// tree over the three entries of the shared ledger vector (receipt/chio-v1.json), computed here
// with node:crypto directly, and the DESIGN §10 signed note over it made by src/crypto's
// checkpoint-note with the shared seed (bytes 0x01..0x20). Ed25519 is deterministic, so every
// byte is reproducible. Cases: the note as signed, a witness cosignature (an unknown key, ignored),
// and notes that must be rejected (tampered size, tampered root, flipped signature bit, wrong key).
import { createHash } from 'node:crypto';
import { checkpointText, defaultOrigin, fromHex, noteKeyHash, signCheckpoint, signerFromSeed, toHex } from '../../src/crypto/index.js';
import { loadVector } from '../helpers/vectors.js';

/** A second key (bytes 0x21..0x40): the "wrong key" and the witness. */
const OTHER_SEED = '2122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f40';
const WITNESS_NAME = 'witness.example/chio';

const sha256 = (...parts: Uint8Array[]): Uint8Array => new Uint8Array(createHash('sha256').update(Buffer.concat(parts)).digest());
const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');

export function buildCheckpointVectors() {
  const shared = loadVector('receipt/chio-v1.json');
  const entryHashes: string[] = shared.ledger.entries.map((e: { entry_hash: string }) => e.entry_hash);
  // RFC 6962 §2.1: leaf = SHA-256(0x00 || leaf input), node = SHA-256(0x01 || left || right); a tree
  // of 3 splits at 2, so root = node(node(leaf0, leaf1), leaf2).
  const leaves = entryHashes.map((h) => sha256(Uint8Array.of(0x00), fromHex(h)));
  const node01 = sha256(Uint8Array.of(0x01), leaves[0]!, leaves[1]!);
  const root = sha256(Uint8Array.of(0x01), node01, leaves[2]!);

  const signer = signerFromSeed(fromHex(shared.ed25519_seed_hex));
  const other = signerFromSeed(fromHex(OTHER_SEED));
  const publicKey = fromHex(signer.publicKeyHex);
  const origin = defaultOrigin(entryHashes[0]!);
  const body = { origin, treeSize: entryHashes.length, rootHash: root };
  const text = checkpointText(body);
  const keyHash = noteKeyHash(origin, publicKey);
  const signedNote = signCheckpoint(body, signer);
  const signatureLine = signedNote.slice(text.length + 1);
  const signature = Buffer.from(signatureLine.trimEnd().split(' ')[2]!, 'base64').subarray(4);

  const witnessNote = signCheckpoint(body, other, WITNESS_NAME);
  const witnessLine = witnessNote.slice(text.length + 1);
  const flipped = Buffer.concat([keyHash, signature]);
  flipped[4 + 32]! ^= 0x01; // a bit of S
  const tamperedRoot = b64(Uint8Array.from(root, (b, i) => (i === 31 ? b ^ 0x01 : b)));

  const trusted = signer.publicKeyHex;
  return {
    description:
      'Signed checkpoint (DESIGN §10): C2SP tlog-checkpoint in a C2SP signed-note over the RFC 6962 tree of the chio-v1 ledger entries (leaf input = raw entry_hash bytes), signed with the chio-v1 seed. See test/vectors/README.md.',
    ed25519_seed_hex: shared.ed25519_seed_hex,
    ed25519_public_key_hex: signer.publicKeyHex,
    tree: {
      leaf_inputs_hex: entryHashes,
      leaf_hashes_hex: leaves.map(toHex),
      node_0_1_hex: toHex(node01),
      root_hex: toHex(root),
      root_base64: b64(root),
    },
    origin,
    tree_size: entryHashes.length,
    note_text: text,
    key_name: origin,
    key_hash_input_hex: toHex(Buffer.concat([Buffer.from(origin, 'utf8'), Buffer.of(0x0a, 0x01), publicKey])),
    key_hash_hex: toHex(keyHash),
    signature_hex: toHex(signature),
    signature_line: signatureLine,
    signed_note: signedNote,
    vkey: `${origin}+${toHex(keyHash)}+${b64(Buffer.concat([Buffer.of(0x01), publicKey]))}`,
    other_seed_hex: OTHER_SEED,
    other_public_key_hex: other.publicKeyHex,
    cases: [
      { name: 'as_signed', signed_note: signedNote, trusted_key_hex: trusted, key_name: origin, expected: 'accept', why: 'the kernel key signed this text' },
      {
        name: 'witness_cosigned',
        signed_note: `${signedNote}${witnessLine}`,
        trusted_key_hex: trusted,
        key_name: origin,
        expected: 'accept',
        why: `an extra line by an unknown key (${WITNESS_NAME}, signed by other_seed_hex) is ignored; the kernel's line verifies`,
      },
      { name: 'tampered_size', signed_note: signedNote.replace('\n3\n', '\n2\n'), trusted_key_hex: trusted, key_name: origin, expected: 'reject', why: 'tree size 3 changed to 2: the kernel line no longer verifies' },
      { name: 'tampered_root', signed_note: signedNote.replace(b64(root), tamperedRoot), trusted_key_hex: trusted, key_name: origin, expected: 'reject', why: 'one bit of the root hash flipped: the kernel line no longer verifies' },
      {
        name: 'flipped_signature',
        signed_note: `${text}\n\u2014 ${origin} ${b64(flipped)}\n`,
        trusted_key_hex: trusted,
        key_name: origin,
        expected: 'reject',
        why: 'the line names the trusted key (name and key hash) but one bit of S is flipped: it must verify and does not',
      },
      {
        name: 'wrong_key',
        signed_note: signCheckpoint(body, other),
        trusted_key_hex: trusted,
        key_name: origin,
        expected: 'reject',
        why: 'signed by other_seed_hex under the origin: its key hash is not the trusted key\'s, so the line is ignored and no trusted line remains',
      },
    ],
  };
}
