/**
 * Capability tokens (`chio.capability.v1`, DESIGN §7): schema, issue, delegate, scope matching,
 * verification. Imports src/crypto (and the shared validation helper). Must not import receipt,
 * ledger, kernel, edges, proxy or cli.
 */
export {
  CapabilityTokenSchema,
  ScopeSchema,
  ToolGrantSchema,
  ConstraintSchema,
  MonetaryAmountSchema,
  CAPABILITY_SCHEMA_ID,
  MAX_DELEGATION_DEPTH,
} from './schema.js';
export type {
  CapabilityToken,
  AncestorToken,
  Scope,
  ToolGrant,
  Constraint,
  Operation,
  MonetaryAmount,
} from './schema.js';
export { issueCapability, delegateCapability, capabilitySigningText, delegatedCapabilityId } from './sign.js';
export type { IssueOptions, DelegateOptions } from './sign.js';
export { verifyCapability, capabilityCacheStats, clearCapabilityCache } from './verify.js';
export type { CapabilityVerdict, CapabilityCheck, VerifyCapabilityOptions } from './verify.js';
export {
  matchingGrants,
  grantCovers,
  grantWithin,
  firstWideningGrant,
  constraintMatches,
  constraintVerdict,
  constraintViolation,
  constraintImplies,
  pathWithin,
  globMatches,
} from './scope.js';
export { linearRegExp, MAX_TOKEN_PATTERN_CHARS } from './linear-regexp.js';
export type { CallTarget } from './scope.js';
