/**
 * Chio's curated public API: named exports only. What is not listed here is internal.
 */
export { ChioError, isChioError, ERROR_CATALOGUE, EXIT, errorUrn, errorDocsUrl } from './errors.js';
export type { ChioErrorCode, ExitCode } from './errors.js';

// crypto
export {
  canonicalJson,
  hashCanonical,
  sha256Hex,
  signerFromSeed,
  generateSeed,
  parseSeed,
  parsePublicKeyHex,
  verifySignature,
  NULL_CONTENT_HASH,
  toHex,
  fromHex,
} from './crypto/index.js';
export type { Ed25519Signer, JsonValue } from './crypto/index.js';

// receipts
export {
  signReceipt,
  signReceiptAsync,
  verifyReceipt,
  ReceiptSchema,
  ReceiptDraftSchema,
  RECEIPT_SCHEMA_ID,
  SIGNING_NONCE_KEY,
} from './receipt/index.js';
export type { Receipt, ReceiptDraft, ReceiptVerdict, ReceiptCheck, Decision, GuardEvidence } from './receipt/index.js';

// ledger
export {
  openLedger,
  appendReceiptSync,
  LedgerWriter,
  verifyChain,
  verifyChainParallel,
  rebuildSessions,
  readSessions,
  listEntries,
  findEntry,
  ledgerStats,
  LEDGER_SCHEMA_VERSION,
} from './ledger/index.js';
export type {
  Ledger,
  OpenLedgerOptions,
  AppendRequest,
  AppendResult,
  ChainVerdict,
  ChainCheck,
  EntryFilter,
  LedgerStats,
} from './ledger/index.js';

// kernel
export { Kernel, loadPolicy, normalizePolicy, defaultPolicy, checkCall, ToolManifestSchema } from './kernel/index.js';
export type {
  KernelOptions,
  ToolCallRequest,
  ToolCallResponse,
  LoadedPolicy,
  Policy,
  ToolServerConnection,
  ToolManifest,
  StreamChunk,
} from './kernel/index.js';

// capabilities
export { issueCapability, delegateCapability, verifyCapability, CapabilityTokenSchema } from './capability/index.js';
export type { CapabilityToken, Scope, ToolGrant, CapabilityVerdict } from './capability/index.js';

// the ACP edge and the ACP proxy
export { AcpEdge, serveAcpStdio } from './edges/acp/index.js';
export type { AcpEdgeOptions, AcpInvocationResult, AcpCapability } from './edges/acp/index.js';
export { AcpProxy, AcpProxyConfig, KernelCapabilityChecker, ACP_MAX_MESSAGE_BYTES } from './proxy/acp/index.js';
export type { AcpProxyOptions, AcpToolCallAuditEntry, AttestationMode } from './proxy/acp/index.js';

// compliance certificates
export {
  generateCertificate,
  verifyCertificate,
  CertificateSchema,
  CERTIFICATE_SCHEMA_ID,
} from './projections/certificate/index.js';
export type {
  Certificate,
  CertificateBody,
  CertificateSigner,
  CertificateVerdict,
  GenerateOptions,
  VerifyCertificateOptions,
} from './projections/certificate/index.js';

// Merkle tree, signed checkpoints, anchors and proofs (DESIGN §10)
export {
  merkleLeafHash,
  merkleNodeHash,
  merkleRoot,
  inclusionProof,
  consistencyProof,
  verifyInclusion,
  verifyConsistency,
  MemoryMerkleTree,
  EMPTY_TREE_ROOT,
  checkpointText,
  defaultOrigin,
  signCheckpoint,
  parseCheckpointNote,
  verifyCheckpointNote,
} from './crypto/index.js';
export type { SubtreeReader, CheckpointBody } from './crypto/index.js';
export {
  LedgerTree,
  createCheckpoint,
  latestCheckpoint,
  listCheckpoints,
  ledgerOrigin,
  appendToAnchorFile,
  readAnchorFile,
  rebuildProjections,
} from './ledger/index.js';
export type { StoredCheckpoint, CheckpointOptions, CheckpointOutcome, AnchoredNote } from './ledger/index.js';
export { Checkpointer, DEFAULT_CHECKPOINT_EVERY_ENTRIES, DEFAULT_CHECKPOINT_EVERY_SECONDS } from './kernel/index.js';
export type { CheckpointSchedule } from './kernel/index.js';
export {
  verifyTree,
  proveInclusion,
  proveConsistency,
  verifyProof,
  InclusionProofSchema,
  ConsistencyProofSchema,
  INCLUSION_PROOF_SCHEMA,
  CONSISTENCY_PROOF_SCHEMA,
} from './projections/checkpoints/index.js';
export type {
  TreeVerdict,
  TreeFailure,
  TreeCheck,
  ExternalNote,
  VerifyTreeOptions,
  InclusionProof,
  ConsistencyProof,
  ProofVerdict,
} from './projections/checkpoints/index.js';

// evidence bundles
export {
  exportEvidence,
  verifyEvidenceBundle,
  EvidenceBundleSchema,
  EVIDENCE_BUNDLE_SCHEMA_ID,
} from './projections/evidence/index.js';
export type {
  EvidenceBundle,
  BundleEntry,
  EvidenceVerdict,
  EvidenceCheck,
  VerifyEvidenceOptions,
  ExportEvidenceOptions,
} from './projections/evidence/index.js';

// the audit API and the SDK (also `chio/sdk`; installed under the name `@chio-protocol/sdk`, this is what it imports)
export { auditApi } from './projections/query/index.js';
export type { AuditApiOptions } from './projections/query/index.js';
export { ChioClient, ChioSession, ReceiptQueryClient } from './sdk/index.js';
export type {
  GovernedToolResult,
  ReceiptRef,
  ReceiptQuery,
  ReceiptPage,
  ReceiptDetail,
  ServedReceipt,
} from './sdk/index.js';
