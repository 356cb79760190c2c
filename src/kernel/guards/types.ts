/**
 * What a guard sees and says. A guard is a pure check over one classified tool call: it either
 * does not apply (null: it did not run, and leaves no evidence), allows, or denies with a reason.
 * A call is classified twice: by its tool name (`kind`, which says whether paths are read or
 * written) and by the shape of its arguments (every path, command and URL in them, whatever the
 * tool is called), so a guard never depends on a tool being named the way we expect.
 * Owns: the guard contract. Must not import ledger, edges or cli. Arguments are attacker-controlled.
 */

/** What the tool's name says it does. `mcp_tool`: a name we do not recognise. */
export type ActionKind = 'file_access' | 'file_write' | 'patch' | 'shell' | 'egress' | 'mcp_tool';

/** A command found in the arguments: shell text, or an argv that is executed without a shell. */
export type CommandArgument =
  | { form: 'text'; text: string; key: string }
  | { form: 'argv'; argv: string[]; key: string };

export interface ToolAction {
  kind: ActionKind;
  /** Every path argument (any tool): values of path-like keys and values shaped like paths. */
  paths: string[];
  /** Bare names under keys that say nothing (`.env`): judged by the forbidden patterns, not as paths a tool surely opens. */
  softPaths: string[];
  /** Every command argument (any tool). */
  commands: CommandArgument[];
  /** Every URL or host argument (any tool). */
  targets: EgressTarget[];
  /** Text a write would put in a file (file_write). */
  content: string;
  /** The patch text (patch). */
  diff: string;
  /** Working directory the call names (`cwd`, `working_directory`, …), if any. */
  cwd: string | undefined;
}

export type Classification = { ok: true; action: ToolAction } | { ok: false; reason: string };

export interface EgressTarget {
  /** The original text (a URL or a host). */
  raw: string;
  /** Lower-case host as the WHATWG URL parser canonicalises it (IPv4 encodings normalised, IPv6 in brackets). */
  host: string;
  /**
   * `argument`: a URL or host argument (a key such as `url` or `host`, or a tool that fetches);
   * `embedded`: a URL found inside a command or in an argument that merely holds one. Every target
   * is kept off internal addresses; only `argument` targets must be on the egress allowlist.
   */
  source: 'argument' | 'embedded';
}

/**
 * Where the call runs, as far as the kernel knows. A relative path is judged against every base
 * (DESIGN §7a): the MCP roots the client declared, the directories the operator gave the upstream
 * server, the policy's `path_base`. With no base, a relative path argument is denied.
 */
export interface GuardContext {
  pathBases: readonly string[];
}

export const NO_CONTEXT: GuardContext = { pathBases: [] };

export interface GuardInput {
  serverId: string;
  toolName: string;
  arguments: unknown;
  action: ToolAction;
  context: GuardContext;
}

export type GuardOutcome =
  | { verdict: 'allow'; details?: string }
  | { verdict: 'deny'; reason: string; details?: string }
  | null;

export interface Guard {
  /** kebab-case, as it appears in receipt evidence and decisions. */
  readonly name: string;
  evaluate(input: GuardInput): GuardOutcome;
}
