/**
 * The crypto area: canonical JSON, SHA-256, Ed25519, hex. Pure functions, no I/O beyond
 * randomness. Must not import anything outside src/crypto (and src/errors.ts).
 */
export {
  canonicalJson,
  canonicalBytes,
  assertCanonicalizable,
  canonicalMember,
  joinCanonicalMembers,
  MAX_JSON_DEPTH,
  sortedKeys,
} from './canonical.js';
export type { JsonValue } from './canonical.js';
export { sha256Hex, hashCanonical, NULL_CONTENT_HASH } from './sha256.js';
export {
  signerFromSeed,
  generateSeed,
  parseSeed,
  parsePublicKeyHex,
  verifySignature,
  verifySignatureAsync,
  referenceEd25519,
  SEED_BYTES,
  PUBLIC_KEY_BYTES,
  SIGNATURE_BYTES,
  isSeedSigner,
} from './ed25519.js';
export type { Ed25519Signer } from './ed25519.js';
export { toHex, fromHex, isHex } from './hex.js';
export {
  checkpointText,
  defaultOrigin,
  noteKeyHash,
  signCheckpoint,
  parseCheckpointNote,
  verifyCheckpointNote,
} from './checkpoint-note.js';
export type { CheckpointBody, ParsedCheckpointNote, VerifiedCheckpointNote } from './checkpoint-note.js';
export { MAX_NOTE_BYTES, MAX_SIGNATURE_LINES } from './signed-note.js';
export {
  EMPTY_TREE_ROOT,
  MERKLE_HASH_BYTES,
  merkleLeafHash,
  merkleNodeHash,
  merkleRoot,
  completedSubtrees,
  naiveMerkleRoot,
  MemoryMerkleTree,
} from './merkle.js';
export type { SubtreeReader } from './merkle.js';
export { inclusionProof, consistencyProof, verifyInclusion, verifyConsistency } from './merkle-proofs.js';
