/**
 * The product's one error type and its catalogue of stable codes.
 *
 * Owns: `ChioError`, the code catalogue (summary, help, exit code) and the mapping from a code to
 * its URN and docs anchor (DESIGN §8). `spec/errors/chio-error-registry.v1.json` is generated from
 * this catalogue (`npm run errors:registry`) and a test keeps the two identical.
 * Must not import anything from the rest of the project: every area imports this file.
 *
 * Exceptions are for faults and refused input; verification outcomes are values, never errors.
 */

/** Exit codes of the CLI (DESIGN §8), plus 3 for faults that are neither bad input nor a failed check. */
export const EXIT = { ok: 0, verificationFailed: 1, badInput: 2, fault: 3 } as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

interface CatalogueEntry {
  /** When the error fires. */
  readonly summary: string;
  /** What the user can do about it; printed as the `help:` line. */
  readonly help: string;
  readonly exit: ExitCode;
}

/**
 * JSON-RPC error codes the wire surfaces answer with (MCP edge, ACP edge, ACP proxy). These go to a
 * protocol peer, not to a shell, so they are numbers from JSON-RPC 2.0 §5.1 and the MCP/ACP specs.
 */
export const WIRE_ERROR_CODES = {
  '-32700': { name: 'parse error', surfaces: ['mcp', 'acp-edge', 'acp-proxy'], summary: 'a line is not JSON' },
  '-32600': {
    name: 'invalid request',
    surfaces: ['mcp', 'acp-edge', 'acp-proxy'],
    summary: 'not a JSON-RPC 2.0 message (bad envelope or id, a batch, or a message over the size limit)',
  },
  '-32601': {
    name: 'method not found',
    surfaces: ['mcp', 'acp-edge'],
    summary: 'the method is not one this surface serves',
  },
  '-32602': {
    name: 'invalid params',
    surfaces: ['mcp', 'acp-edge', 'acp-proxy'],
    summary: 'params are missing or malformed (an unknown MCP tool too)',
  },
  '-32603': {
    name: 'internal error',
    surfaces: ['mcp', 'acp-edge', 'acp-proxy'],
    summary:
      'the request could not be carried out: unknown capability or task, a receipt that could not be written, an agent that has exited',
  },
  '-32001': {
    name: 'session not found',
    surfaces: ['mcp'],
    summary: 'an MCP-Session-Id the Streamable HTTP edge does not know (HTTP 404)',
  },
  '-32002': {
    name: 'session not initialized',
    surfaces: ['mcp'],
    summary: 'an MCP request before notifications/initialized (upstream chio session_not_initialized)',
  },
  '-32003': {
    name: 'too many sessions',
    surfaces: ['mcp'],
    summary: 'an initialize refused because the Streamable HTTP edge is at its session cap (HTTP 503 with Retry-After)',
  },
  '-32000': {
    name: 'access denied',
    surfaces: ['acp-proxy'],
    summary: 'the proxy refused an agent request (FsGuard, TerminalGuard, the capability checker); never forwarded',
  },
} as const;

/** Every code the product can emit. Adding one here and regenerating the registry is the only way to add a code. */
export const ERROR_CATALOGUE = {
  'CHIO-CRYPTO-NOT-CANONICAL': {
    summary: 'a value cannot be written as RFC 8785 canonical JSON without loss',
    help: 'use plain JSON values only: no undefined, functions, class instances, lone surrogates, non-finite numbers or integers beyond 2^53-1 (send wide integers as decimal strings)',
    exit: EXIT.badInput,
  },
  'CHIO-CRYPTO-BAD-KEY': {
    summary: 'an Ed25519 seed or public key is not 32 bytes of hex (or raw bytes)',
    help: 'a seed file holds 64 hex characters (32 bytes); create one with `chio keys generate --out <file>`',
    exit: EXIT.badInput,
  },
  'CHIO-RECEIPT-INVALID': {
    summary: 'a receipt does not match the chio.receipt.v1 schema',
    help: 'check the fields named in the message against the receipt format (docs/receipts.md)',
    exit: EXIT.badInput,
  },
  'CHIO-RECEIPT-SEMANTICS': {
    summary: 'receipt_kind, boundary_class, trust_level and decision do not form an allowed combination',
    help: 'mediated_decision/prevent/mediated needs a decision; trace_observation/detect_only/verified and advisory_evaluation/advisory_only/advisory must have none',
    exit: EXIT.badInput,
  },
  'CHIO-RECEIPT-PARAMETER-HASH': {
    summary: 'action.parameter_hash is not the hash of action.parameters on an unredacted receipt',
    help: 'parameter_hash must be sha256 of the RFC 8785 form of the parameters as the caller sent them',
    exit: EXIT.badInput,
  },
  'CHIO-RECEIPT-UNVERIFIED': {
    summary: 'a receipt offered for appending fails verification (id, semantics, signature or parameter hash)',
    help: 'append only receipts as their signer produced them; run `chio receipt verify` on the receipt to see which check fails',
    exit: EXIT.badInput,
  },
  'CHIO-RECEIPT-SIGNER-MISMATCH': {
    summary:
      'a signer that is not a seed of this process produced a signature that does not verify under the key it names',
    help: "check that the signer's public key (64 lowercase hex characters) is the key its private half signs with",
    exit: EXIT.badInput,
  },
  'CHIO-CAPABILITY-INVALID': {
    summary: 'a capability token or scope could not be issued or delegated as asked',
    help: 'check the scope against the capability format (docs/kernel.md); a delegation may only narrow its parent',
    exit: EXIT.badInput,
  },
  'CHIO-POLICY-INVALID': {
    summary: 'a policy file cannot be parsed, or a field in it is unknown or has the wrong type',
    help: 'fix the field named in the message; `chio policy check <file>` validates a policy without running anything',
    exit: EXIT.badInput,
  },
  'CHIO-KERNEL-INVALID-REQUEST': {
    summary: 'the kernel was asked to do something its state does not allow (e.g. register a tool server twice)',
    help: 'check the call against the kernel API (docs/kernel.md)',
    exit: EXIT.badInput,
  },
  'CHIO-MCP-HTTP-OPTIONS': {
    summary: 'the Streamable HTTP edge was given a session limit out of range',
    help: 'the idle timeout is at least 1 ms and at most 2147483647 ms, 24.8 days (--session-idle-timeout takes seconds); the session cap (--max-sessions) is a whole number of at least 1',
    exit: EXIT.badInput,
  },
  'CHIO-MCP-UPSTREAM': {
    summary: 'the upstream MCP server could not be started, reached, or understood',
    help: 'check the command after `--` (or --upstream-url) by running it on its own; its stderr is passed through',
    exit: EXIT.fault,
  },
  'CHIO-LEDGER-NOT-FOUND': {
    summary: 'no receipt database exists at the given path',
    help: 'pass --receipt-db <path> of an existing ledger, or append a receipt first to create one',
    exit: EXIT.badInput,
  },
  'CHIO-LEDGER-NOT-SQLITE': {
    summary: 'the file is not an SQLite database',
    help: 'pass --receipt-db <path> of a Chio ledger; the file was left unchanged',
    exit: EXIT.badInput,
  },
  'CHIO-LEDGER-FOREIGN-DATABASE': {
    summary: 'the file is an SQLite database but not a Chio ledger',
    help: 'pass --receipt-db <path> of a Chio ledger, or a new path to create one; the file was left unchanged',
    exit: EXIT.badInput,
  },
  'CHIO-LEDGER-SCHEMA-TOO-NEW': {
    summary: 'the ledger was written by a newer version of Chio with a schema this version does not know',
    help: 'upgrade chio to read this ledger; the file was left unchanged',
    exit: EXIT.badInput,
  },
  'CHIO-LEDGER-CORRUPT': {
    summary: 'SQLite reports the ledger file as damaged, or the ledger tables are missing',
    help: 'restore the file from a copy; run `chio ledger verify` on the copy before trusting it',
    exit: EXIT.badInput,
  },
  'CHIO-LEDGER-PRAGMA': {
    summary: 'a required SQLite setting (WAL journal, synchronous, foreign keys) could not be applied',
    help: 'put the ledger on a local file system that supports WAL (not a network share)',
    exit: EXIT.fault,
  },
  'CHIO-LEDGER-DUPLICATE-RECEIPT': {
    summary: 'a receipt with this id is already in the ledger',
    help: 'each receipt is appended once; sign a new receipt (a new signing nonce gives a new id)',
    exit: EXIT.badInput,
  },
  'CHIO-LEDGER-APPEND-FAILED': {
    summary: 'the append transaction could not be committed (I/O error, database busy, read-only file)',
    help: 'check that the ledger file and its directory are writable and not locked by a stuck process; nothing was appended',
    exit: EXIT.fault,
  },
  'CHIO-LEDGER-BUSY': {
    summary:
      'the ledger stayed locked by other connections for the whole busy timeout while it was being opened (created, migrated or switched to WAL)',
    help: "another process holds the ledger's write lock (a long transaction or a stuck process); try again, and look for a process that keeps the file locked; nothing was changed",
    exit: EXIT.fault,
  },
  'CHIO-LEDGER-CLOSED': {
    summary: 'an append was offered to a ledger writer that has been closed',
    help: 'open the ledger again before appending',
    exit: EXIT.fault,
  },
  'CHIO-LEDGER-URL': {
    summary: 'a --receipt-db value that starts like a PostgreSQL URL is not a valid postgres:// or postgresql:// URL',
    help: 'pass postgres://user@host:port/database (a password in the URL, or PGPASSWORD / ~/.pgpass as libpq reads them)',
    exit: EXIT.badInput,
  },
  'CHIO-LEDGER-UNREACHABLE': {
    summary:
      'the PostgreSQL ledger could not be reached or refused the connection (server down, wrong host, port, user, password or database), so nothing was read or written; a governed call refused with it did not run',
    help: 'check that the server is running and that the URL, role and database are right; nothing was written',
    exit: EXIT.fault,
  },
  'CHIO-LEDGER-COPY-SOURCE': {
    summary:
      "chio ledger copy stopped because the target refused an entry of the source: its links, ids or columns break the target's constraints",
    help: 'the source is not a valid ledger: run chio ledger verify on it; pages copied before the refused one stay in the target, nothing of the refused page was written',
    exit: EXIT.verificationFailed,
  },
  'CHIO-LEDGER-POSTGRES-UNSUPPORTED': {
    summary:
      'a library call that opens SQLite ledgers only (the synchronous openLedger of the package root, Kernel.open) was given a postgres:// URL',
    help: 'open either store with openLedger from chio/postgres, and a kernel with Kernel.connect; every chio command takes a postgres:// URL as --receipt-db; nothing was created',
    exit: EXIT.badInput,
  },
  'CHIO-LEDGER-COPY-TARGET': {
    summary: 'chio ledger copy refused a target ledger that holds entries which are not a prefix of the source',
    help: 'copy into an empty ledger, or into one whose entries are the first entries of the source (the copy then continues it); nothing was written',
    exit: EXIT.badInput,
  },
  'CHIO-CLI-SESSION-EMPTY': {
    summary: 'chio cert generate found no receipts for the session',
    help: 'pass the --session-id of a session with receipts in the store',
    exit: EXIT.badInput,
  },
  'CHIO-CLI-RECEIPT-STORE-REQUIRED': {
    summary: 'chio cert verify --full was given no receipt store',
    help: 'pass --receipt-db <path>, or drop --full to check the certificate signature alone',
    exit: EXIT.badInput,
  },
  'CHIO-CLI-CERT-SIGNER-REQUIRED': {
    summary: 'chio cert generate was given no signing key (it never creates one)',
    help: 'pass --kernel-seed-file <seed of the kernel that signed the session> (verifiers trust it with --trusted-kernel-pubkey), or --authority-seed-file <seed> (verifiers need --trusted-authority-pubkey)',
    exit: EXIT.badInput,
  },
  'CHIO-CHECKPOINT-EMPTY-LEDGER': {
    summary: 'a checkpoint was asked of a ledger with no entries: there is no tree to sign',
    help: 'append something first (a producer checkpoints on its own once it has appended)',
    exit: EXIT.badInput,
  },
  'CHIO-CHECKPOINT-INCONSISTENT': {
    summary:
      'the ledger no longer holds the tree the latest stored checkpoint signs (entries were changed or removed), so no new checkpoint is signed over it',
    help: 'the ledger was altered after its latest checkpoint: run chio ledger verify (with --anchor-file or --checkpoint copies kept elsewhere) to see what differs; nothing was signed',
    exit: EXIT.verificationFailed,
  },
  'CHIO-CHECKPOINT-ANCHOR-FAILED': {
    summary: 'a checkpoint note could not be appended to the anchor file',
    help: 'check that the anchor file and its directory are writable; the checkpoint is stored in the ledger and the next one will be anchored',
    exit: EXIT.fault,
  },
  'CHIO-PROOF-NOT-FOUND': {
    summary:
      'no proof can be made for what was asked: the receipt is not in the ledger, or the tree size is outside it',
    help: "check the receipt id and sizes (1 <= old size <= new size <= the number of entries; a tree size of at least the entry's seq)",
    exit: EXIT.badInput,
  },
  'CHIO-EVIDENCE-NO-SESSION': {
    summary: 'the ledger has no such session, or its chain is broken, so no evidence bundle is made of it',
    help: 'check the session id (chio sql "SELECT * FROM sessions"); a broken session is reported by chio ledger verify',
    exit: EXIT.badInput,
  },
  'CHIO-EVIDENCE-NO-CHECKPOINT': {
    summary: "no stored checkpoint covers the session's last entry, so its receipts cannot be proved against one",
    help: 'sign one (chio ledger checkpoint --kernel-seed-file k.seed), or give --kernel-seed-file to chio evidence export',
    exit: EXIT.badInput,
  },
  'CHIO-CERT-INVALID': {
    summary: 'a certificate file is not a chio.compliance.certificate.v1 certificate',
    help: 'pass the file chio cert generate wrote; check the fields named in the message',
    exit: EXIT.badInput,
  },
  'CHIO-CERT-RECEIPT-INVALID': {
    summary: 'a receipt of the session fails verification (signature, id or content), so no certificate is issued',
    help: 'run `chio ledger verify` to see which entry and check fail',
    exit: EXIT.verificationFailed,
  },
  'CHIO-CERT-UNTRUSTED-KERNEL-KEY': {
    summary: 'a receipt of the session is signed by a kernel key that is not trusted',
    help: 'pass --trusted-kernel-pubkey for the kernel that governed the session',
    exit: EXIT.verificationFailed,
  },
  'CHIO-CERT-KERNEL-KEY-MISMATCH': {
    summary: "the session's receipts are signed by more than one kernel key",
    help: "a certificate covers one kernel's session; check how the session was produced",
    exit: EXIT.verificationFailed,
  },
  'CHIO-CERT-CHAIN-BROKEN': {
    summary: 'the session chain (session_prev_seq links) is broken: an entry is missing, re-linked or altered',
    help: 'run `chio ledger verify` to see which entry and check fail',
    exit: EXIT.verificationFailed,
  },
  'CHIO-CERT-SCOPE-VIOLATION': {
    summary: 'an allowed receipt calls a tool outside the authorized scope prefixes',
    help: 'widen --authorized-scope if the call was legitimate; otherwise the session is not compliant',
    exit: EXIT.verificationFailed,
  },
  'CHIO-CERT-BUDGET-EXCEEDED': {
    summary: 'the session holds more allowed receipts than --budget-limit',
    help: 'raise --budget-limit (0 = unlimited) if the budget was wrong; otherwise the session is not compliant',
    exit: EXIT.verificationFailed,
  },
  'CHIO-CERT-GUARD-BYPASS': {
    summary: 'an allowed receipt carries no passing evidence from a required guard',
    help: 'the guard did not run (or did not pass) on that call; the session is not compliant with --required-guard',
    exit: EXIT.verificationFailed,
  },
  'CHIO-CLI-USAGE': {
    summary: 'the command line is not valid (unknown command or flag, missing or malformed value)',
    help: 'run `chio --help` or `chio <command> --help`',
    exit: EXIT.badInput,
  },
  'CHIO-CLI-FILE-EXISTS': {
    summary:
      "the output file already exists; chio overwrites a file only when --force is given, and never a key file or one of the command's own inputs",
    help: 'choose a new path, move the existing file away, or pass --force where the command offers it; the existing file was left unchanged',
    exit: EXIT.badInput,
  },
  'CHIO-CLI-IO': {
    summary: 'a file named on the command line could not be read or written',
    help: 'check the path and its permissions',
    exit: EXIT.badInput,
  },
  'CHIO-CLI-INPUT-NOT-FILE': {
    summary:
      'a file chio reads whole (certificate, policy, seed, public key, receipts) is not a regular file: a FIFO, a device such as /dev/zero, a socket or a directory',
    help: 'pass the path of a regular file (`chio receipt verify -` reads receipts from a pipe on stdin)',
    exit: EXIT.badInput,
  },
  'CHIO-CLI-INPUT-TOO-LARGE': {
    summary:
      'a file chio reads whole is larger than the cap for its kind (certificate and policy 1 MiB, seed and public key 4 KiB, receipts 256 MiB)',
    help: 'check that the path names the file you meant (a receipts file over its cap can be split into several)',
    exit: EXIT.badInput,
  },
  'CHIO-CLI-BAD-JSON': {
    summary: 'input that should be JSON (or JSON Lines) could not be parsed',
    help: 'pass one JSON receipt, or one receipt per line',
    exit: EXIT.badInput,
  },
  'CHIO-CLI-SQL-WRITE': {
    summary: 'chio sql refused a statement that would change the database',
    help: 'chio sql runs read-only queries (SELECT, read-only PRAGMA, EXPLAIN); the ledger is append-only',
    exit: EXIT.badInput,
  },
  'CHIO-CLI-SQL-ERROR': {
    summary: 'SQLite rejected the query',
    help: 'check the query; `chio sql "select name from sqlite_schema"` lists the tables and views',
    exit: EXIT.badInput,
  },
  'CHIO-API-UNAUTHORIZED': {
    summary: 'the audit API request carried no bearer token, or not the service token',
    help: 'send `Authorization: Bearer <token>` with the token `chio serve` was started with (--service-token or --service-token-file); only /healthz is open',
    exit: EXIT.badInput,
  },
  'CHIO-API-BAD-REQUEST': {
    summary: 'an audit API query parameter is missing, unknown or malformed',
    help: 'the error names the parameter; filters are toolServer, toolName, capabilityId, sessionId, outcome (allow|deny|cancelled|incomplete), since and until (Unix seconds or ISO 8601), limit (1–1000) and cursor (the nextCursor of the previous page)',
    exit: EXIT.badInput,
  },
  'CHIO-API-NOT-FOUND': {
    summary: 'no audit API route, receipt or session matches the request',
    help: 'routes are GET /healthz, /v1/receipts/query, /v1/receipts/{id}, /v1/receipts/{id}/proof, /v1/sessions, /v1/sessions/{id}/receipts, /v1/sessions/{id}/certificate, /v1/sessions/{id}/evidence, /v1/ledger/head and /v1/ledger/checkpoint (404 until the ledger has a checkpoint)',
    exit: EXIT.badInput,
  },
  'CHIO-API-LEDGER-UNREADABLE': {
    summary: 'the audit API could not read the ledger for this request (locked, damaged or gone)',
    help: 'retry; if it persists, run `chio ledger verify` on the file the service was started with',
    exit: EXIT.fault,
  },
  'CHIO-SDK-RESPONSE': {
    summary: 'the SDK could not reach the Chio service, or its answer was not what the SDK expects',
    help: 'check the URL and that the service (chio serve, or chio mcp serve-http with --auth-token) is running and of this version',
    exit: EXIT.fault,
  },
  'CHIO-CLI-SERVICE-OPTIONS': {
    summary: '`chio serve` was given no service token, or an address it cannot listen on',
    help: 'pass --service-token T or --service-token-file F (at least 8 characters; 16 or more beyond a demo), --listen host:port (127.0.0.1:8940 by default), and at most one of --kernel-seed-file and --authority-seed-file',
    exit: EXIT.badInput,
  },
  'CHIO-CLI-RECEIPT-NOT-FOUND': {
    summary: 'no receipt with this id (or id prefix) is in the ledger',
    help: 'list receipt ids with `chio receipt list`; a prefix must be at least 8 hex characters and unique',
    exit: EXIT.badInput,
  },
  'CHIO-REDACTION-KEY-REQUIRED': {
    summary: 'the policy redacts parameters (hash_only or redact_keys) and the kernel was given no redaction key',
    help: 'create a key once with `chio receipt redaction-key --out <file>` and pass --redaction-key-file <file> (library: redactionKeyFile); keep it: without it no redacted receipt can be disclosed',
    exit: EXIT.badInput,
  },
  'CHIO-REDACTION-KEY-INVALID': {
    summary: 'a redaction key is not 32 bytes (a key file holds 64 hex characters), or was given twice',
    help: 'create a key with `chio receipt redaction-key --out <file>` and pass that file',
    exit: EXIT.badInput,
  },
  'CHIO-REDACTION-KEY-MISMATCH': {
    summary: "the receipt's parameter_hash was salted under another redaction key than the one given",
    help: "pass the key file whose id is the receipt's metadata.chio_parameter_salt.key_id (the message names both ids; `chio receipt redaction-key` prints a new key's id)",
    exit: EXIT.badInput,
  },
  'CHIO-REDACTION-RECEIPT-REFUSED': {
    summary:
      'no salt is disclosed for this receipt: it fails verification, is not signed by a trusted kernel key, or shares its salt input (capability, timestamp, signing nonce) with another receipt in the ledger',
    help: "run `chio receipt verify` and `chio ledger verify` on the ledger; a receipt forged to copy another one's salt input would otherwise reveal that receipt's salt",
    exit: EXIT.badInput,
  },
  'CHIO-REDACTION-NOT-SALTED': {
    summary:
      'the receipt has no salted parameter_hash to disclose or check (it is not redacted, or was written without metadata.chio_parameter_salt)',
    help: 'a redaction_mode "none" receipt carries its parameters and H(parameters) in the clear (`chio receipt verify` checks them); older redacted receipts carry the unsalted H(original parameters)',
    exit: EXIT.badInput,
  },
  'CHIO-INTERNAL': {
    summary: 'an unexpected fault inside chio',
    help: 'this is a bug; report it with the command line and the message',
    exit: EXIT.fault,
  },
} as const satisfies Record<string, CatalogueEntry>;

export type ChioErrorCode = keyof typeof ERROR_CATALOGUE;

/** `CHIO-CLI-SESSION-EMPTY` → `urn:chio:error:cli:session-empty` (DESIGN §8). */
export function errorUrn(code: string): string {
  const [, domain, ...rest] = code.toLowerCase().split('-');
  return rest.length === 0 ? `urn:chio:error:${domain}` : `urn:chio:error:${domain}:${rest.join('-')}`;
}

/** `CHIO-CLI-SESSION-EMPTY` → `https://chio.computer/docs/reference/errors#error-cli-session-empty`. */
export function errorDocsUrl(code: string): string {
  return `https://chio.computer/docs/reference/errors#error-${code.toLowerCase().replace(/^chio-/, '')}`;
}

export class ChioError extends Error {
  readonly code: ChioErrorCode;
  readonly help: string;
  readonly exitCode: ExitCode;
  /** Structured facts for `--json` output and for callers that branch on them. */
  readonly details: Readonly<Record<string, unknown>> | undefined;

  constructor(
    code: ChioErrorCode,
    message: string,
    options: { cause?: unknown; help?: string; details?: Record<string, unknown> } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ChioError';
    this.code = code;
    this.help = options.help ?? ERROR_CATALOGUE[code].help;
    this.exitCode = ERROR_CATALOGUE[code].exit;
    this.details = options.details;
  }

  get urn(): string {
    return errorUrn(this.code);
  }

  get docs(): string {
    return errorDocsUrl(this.code);
  }
}

export function isChioError(e: unknown): e is ChioError {
  return e instanceof ChioError;
}
