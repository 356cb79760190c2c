/** Checkpoints and proofs over the ledger's Merkle tree (DESIGN §10): verification and proof formats. */
export { verifyTree, verifyTreeOf, verifyTreePg } from './verify-tree.js';
export type {
  TreeVerdict,
  TreeFailure,
  TreeCheck,
  ExternalNote,
  VerifyTreeOptions,
  TreeSource,
} from './verify-tree.js';
export {
  proveInclusion,
  proveConsistency,
  proveInclusionPg,
  proveConsistencyPg,
  inclusionOf,
  consistencyOf,
  verifyProof,
  InclusionProofSchema,
  ConsistencyProofSchema,
  INCLUSION_PROOF_SCHEMA,
  CONSISTENCY_PROOF_SCHEMA,
} from './proofs.js';
export type { InclusionProof, ConsistencyProof, ProofVerdict } from './proofs.js';
