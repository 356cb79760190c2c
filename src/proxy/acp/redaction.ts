/**
 * What the ACP proxy's own receipts (audit and refusal drafts, receipts.ts) keep of an agent's
 * request when the kernel's policy redacts parameters (docs/acp.md, the ACP proxy, redaction). The
 * kernel redacts the arguments of its authorization receipts; the proxy's receipts must not put
 * back what those leave out. Under `hash_only` and `redact_keys`:
 *  - no unsalted hash of the request's params (`authorization_parameter_hash` is null): hashing a
 *    guessed path or file content and comparing would confirm the guess;
 *  - the resource (path, command, terminal id) is `"[REDACTED]"` under `redact_keys` when the
 *    policy names `resource` or the request's own key for it (`path`, `command`, `terminalId`),
 *    and not recorded at all (null) under `hash_only`;
 *  - free text written from the request — the agent's tool-call title, a guard's refusal message —
 *    is never recorded in clear: it routinely quotes the path or command, and a key list cannot
 *    redact inside a sentence;
 *  - the recorded parameters then go through the kernel's own `redactParameters`, so every key the
 *    policy names is redacted as in the kernel's receipts (and `hash_only` records `parameters: null`).
 * With redaction `none` nothing changes.
 * Owns: these rules and the hash a redacted proxy receipt carries. Imports the kernel's redaction
 * helpers and crypto; must not import the interceptor or the checker.
 */
import { hashCanonical } from '../../crypto/index.js';
import { REDACTED, redactParameters } from '../../kernel/index.js';
import type { Redaction, RedactionMode } from '../../kernel/index.js';

export const NO_REDACTION: Redaction = { mode: 'none', keys: [] };

export function redacts(redaction: Redaction): boolean {
  return redaction.mode !== 'none';
}

/** The ACP request key (and the kernel's argument name) that each operation's resource stands under. */
export const RESOURCE_KEYS: Readonly<Record<string, string>> = {
  fs_read: 'path',
  fs_write: 'path',
  terminal: 'command',
  terminal_kill: 'terminalId',
  terminal_release: 'terminalId',
};

/** Does the policy withhold this operation's resource? An unknown operation is withheld if any resource key is named. */
export function withholdsResource(redaction: Redaction, operation: string | undefined): boolean {
  if (redaction.mode === 'none') return false;
  if (redaction.mode === 'hash_only') return true;
  const keys = new Set(redaction.keys.map((k) => k.toLowerCase()));
  if (keys.has('resource')) return true;
  const own = operation === undefined ? undefined : RESOURCE_KEYS[operation];
  return own === undefined
    ? Object.values(RESOURCE_KEYS).some((k) => keys.has(k.toLowerCase()))
    : keys.has(own.toLowerCase());
}

/** The resource as a proxy receipt records it: as is, `"[REDACTED]"`, or null (hash_only). */
export function recordedResource(redaction: Redaction, operation: string | undefined, resource: string): string | null {
  if (!withholdsResource(redaction, operation)) return resource;
  return redaction.mode === 'hash_only' ? null : REDACTED;
}

/** The agent's tool-call title as recorded: free text, so never in clear under a redacting policy. */
export function recordedTitle(redaction: Redaction, title: string): string {
  return redacts(redaction) ? REDACTED : title;
}

/**
 * A refusal's reason as recorded. Guard messages quote the request (its path, command, arguments,
 * the resolved form of a link); under a redacting policy the receipt names the guard and the
 * method instead, and the agent alone gets the message. Reasons that quote nothing of the request
 * (`quotesRequest: false`, e.g. "no capability token presented") are kept.
 */
export function recordedReason(
  redaction: Redaction,
  r: { method: string; guard: string; reason: string; quotesRequest?: boolean },
): string {
  if (!redacts(redaction) || r.quotesRequest === false) return r.reason;
  return `${r.method} refused by ${r.guard} (its message quotes the request and is not recorded: the policy redacts parameters)`;
}

/**
 * The action of a proxy receipt: the recorded parameters under the policy's redaction, and the
 * receipt's redaction_mode. With `none`, parameter_hash is left for the signer, which computes
 * H(parameters) as it does for every unredacted receipt.
 *
 * With `hash_only` or `redact_keys`, parameter_hash = H(JCS(the parameters as recorded)) — the
 * redacted ones (`null` for hash_only). Why not the kernel's salted hash of the originals: the
 * salt needs the operator's redaction key, which the kernel keeps to itself (Kernel exposes no way
 * to salt a draft another producer wrote), and an unsalted hash of the originals is exactly the
 * leak this module exists to prevent. A hash of what the receipt shows reveals nothing the receipt
 * does not, so no word list can be tested against it. It carries no `metadata.chio_parameter_salt`
 * marker, so nobody is told it opens with the originals (`receipt check-disclosure` answers "not
 * salted"). The originals of an enforced request are committed — salted, disclosable — by the
 * kernel's authorization receipt, which the proxy's audit receipt names (`authorizationReceiptId`).
 */
export function recordedAction(
  parameters: Record<string, unknown>,
  redaction: Redaction,
): { action: { parameters: unknown; parameter_hash?: string }; mode: RedactionMode } {
  if (redaction.mode === 'none') return { action: { parameters }, mode: 'none' };
  const redacted = redactParameters(parameters, redaction);
  return {
    action: { parameters: redacted.parameters, parameter_hash: hashCanonical(redacted.parameters) },
    mode: redacted.mode,
  };
}
