/**
 * Applying the policy's redaction to a call's parameters before they go into a receipt. The
 * receipt's parameter_hash is always computed over the original parameters (DESIGN §4), so a
 * holder of the original can still prove what was sent.
 * Owns: the redaction transforms. Imports only types.
 */
import type { Redaction } from './policy.js';

export const REDACTED = '[REDACTED]';

export type RedactionMode = 'none' | 'summary' | 'redacted';

function redactKeys(value: unknown, keys: ReadonlySet<string>, depth = 0): unknown {
  if (depth > 128 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redactKeys(v, keys, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    // defineProperty, not assignment: a "__proto__" key stays an ordinary member.
    Object.defineProperty(out, k, { value: keys.has(k.toLowerCase()) ? REDACTED : redactKeys(v, keys, depth + 1), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** The parameters to store, and the receipt's redaction_mode. */
export function redactParameters(parameters: unknown, redaction: Redaction): { parameters: unknown; mode: RedactionMode } {
  switch (redaction.mode) {
    case 'none':
      return { parameters, mode: 'none' };
    case 'hash_only':
      return { parameters: null, mode: 'summary' };
    case 'redact_keys':
      return { parameters: redactKeys(parameters, new Set(redaction.keys.map((k) => k.toLowerCase()))), mode: 'redacted' };
  }
}
