/**
 * The semantic rule of DESIGN §5: receipt_kind fixes boundary_class, trust_level and whether a
 * decision is present. Checked on sign and on verify, so a trace observation can never pass for
 * an authorization (only mediated + prevent + allow authorizes anything).
 * Owns: that table. Imports only the receipt schema types.
 */
import type { BoundaryClass, Decision, ReceiptKind, TrustLevel } from './schema.js';

const RULES: Record<
  ReceiptKind,
  { boundary_class: BoundaryClass; trust_level: TrustLevel; decision: 'required' | 'absent' }
> = {
  mediated_decision: { boundary_class: 'prevent', trust_level: 'mediated', decision: 'required' },
  trace_observation: { boundary_class: 'detect_only', trust_level: 'verified', decision: 'absent' },
  advisory_evaluation: { boundary_class: 'advisory_only', trust_level: 'advisory', decision: 'absent' },
};

export interface SemanticFields {
  receipt_kind: ReceiptKind;
  boundary_class: BoundaryClass;
  trust_level: TrustLevel;
  decision?: Decision | undefined;
}

/** null when the combination is allowed, else the reason it is not. */
export function semanticViolation(r: SemanticFields): string | null {
  const rule = RULES[r.receipt_kind];
  if (r.boundary_class !== rule.boundary_class) {
    return `${r.receipt_kind} requires boundary_class ${rule.boundary_class}, got ${r.boundary_class}`;
  }
  if (r.trust_level !== rule.trust_level) {
    return `${r.receipt_kind} requires trust_level ${rule.trust_level}, got ${r.trust_level}`;
  }
  if (rule.decision === 'required' && r.decision === undefined) return `${r.receipt_kind} requires a decision`;
  if (rule.decision === 'absent' && r.decision !== undefined) return `${r.receipt_kind} must not carry a decision`;
  return null;
}
