/**
 * What a guard sees and says. A guard is a pure check over one classified tool call: it either
 * does not apply (null: it did not run, and leaves no evidence), allows, or denies with a reason.
 * Owns: the guard contract. Must not import ledger, edges or cli. Arguments are attacker-controlled.
 */
export type ToolAction =
  | { kind: 'file_access'; paths: string[] }
  | { kind: 'file_write'; paths: string[]; content: string }
  | { kind: 'patch'; paths: string[]; diff: string }
  | { kind: 'shell'; command: string; cwd: string | undefined }
  | { kind: 'egress'; targets: EgressTarget[] }
  | { kind: 'mcp_tool' }
  | { kind: 'malformed'; reason: string };

export interface EgressTarget {
  /** The original text (a URL or a host). */
  raw: string;
  /** Lower-case host as the WHATWG URL parser canonicalises it (IPv4 encodings normalised, IPv6 in brackets). */
  host: string;
}

export interface GuardInput {
  serverId: string;
  toolName: string;
  arguments: unknown;
  action: ToolAction;
}

export type GuardOutcome = { verdict: 'allow'; details?: string } | { verdict: 'deny'; reason: string; details?: string } | null;

export interface Guard {
  /** kebab-case, as it appears in receipt evidence and decisions. */
  readonly name: string;
  evaluate(input: GuardInput): GuardOutcome;
}
