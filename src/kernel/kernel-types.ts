/**
 * The kernel's public shapes: how a kernel is opened (`KernelOptions`), a governed tool call as a
 * producer hands it over (`ToolCallRequest`), the parts of it the checks judge (`ToolCallPreview`),
 * and the answer with its receipt (`ToolCallResponse`).
 * Owns: those types. Imports types only; must not import edges or cli.
 */
import type { AppendResult, ReservationSync } from '../ledger/index.js';
import type { Receipt } from '../receipt/index.js';
import type { CheckpointSchedule } from './checkpointer.js';
import type { LoadedPolicy } from './policy.js';
import type { RedactionKey } from './redaction-key.js';
import type { InvokeContext, ToolServerConnection } from './tool-server.js';

export interface KernelOptions {
  /** The receipt ledger: an SQLite file (created if missing), or a postgres:// URL (with `Kernel.connect`). */
  ledgerPath: string;
  /** 32-byte Ed25519 seed; generated when neither this nor `seedFile` is given (`keyGenerated` then says so). */
  seed?: Uint8Array;
  /** A seed file as `chio keys generate` writes it (64 hex characters). */
  seedFile?: string;
  policy?: LoadedPolicy;
  /** Producer label on the ledger entries. */
  producer?: string;
  /**
   * How reservations reach the disk before a tool runs: `full` (default) fsyncs each commit and
   * survives a power loss; `normal` survives the process dying but not a power loss, and saves
   * one fsync per call (the receipt's commit makes the reservation durable). Receipts are always
   * committed synchronous=FULL, and so is a reservation that shares its commit with a receipt.
   */
  reservationSync?: ReservationSync;
  /** Clock in Unix seconds (tests). */
  clock?: () => number;
  /**
   * Directories the tool servers resolve relative paths against (an MCP upstream's directories, its
   * working directory). With the policy's `path_base`, each relative path argument is judged
   * against every one of them; with none, a relative path argument is denied.
   */
  pathBases?: readonly string[];
  /**
   * Other kernel keys (hex) whose receipts this kernel counts towards budgets and revocations (other
   * producers sharing the ledger). Its own key always counts; a receipt signed by any other key
   * moves no budget and revokes nothing.
   */
  trustedKernelKeys?: readonly string[];
  /**
   * Signed checkpoints of the ledger while this kernel appends (DESIGN §10): every `everyEntries`
   * (default 1000) entries, every `everySeconds` (default 60) while the ledger grows, and at close;
   * each new note is also appended to `anchorFile`. `false`: none.
   */
  checkpoints?: CheckpointSchedule | false;
  /** Where the kernel reports what it cannot do without failing a call (a checkpoint not made). Default: stderr. */
  log?: (message: string) => void;
  /**
   * The operator's redaction key (32 bytes), or a file holding it (64 hex characters): salts the
   * parameter_hash of redacted receipts. Required when the policy redacts and the kernel governs
   * calls: `registerToolServer` refuses (CHIO-REDACTION-KEY-REQUIRED) rather than generate a key
   * whose salts no one could ever disclose. Revocations and recovery need no key.
   */
  redactionKey?: Uint8Array | RedactionKey;
  redactionKeyFile?: string;
}

export interface ToolCallRequest {
  capability: unknown;
  /** Public key of the agent making the call. */
  caller: string;
  serverId: string;
  toolName: string;
  arguments: unknown;
  /**
   * The producer's id for the call (a JSON-RPC id, a task id), recorded in the receipt's metadata
   * (`chio_request_id`). Never trusted as unique: the kernel gives every call its own id, which is
   * the receipt's signing nonce and the reservation's key.
   */
  requestId?: string;
  sessionId?: string;
  /** Use the server's `invokeStream` when it has one. */
  stream?: boolean;
  signal?: AbortSignal;
  /** Receives the tool's progress while it runs. */
  onProgress?: InvokeContext['onProgress'];
  /** Receives each streamed chunk as it arrives (with `stream: true`). */
  onChunk?: InvokeContext['onChunk'];
  /** More bases for relative paths, for this call only (the MCP roots a client declared). */
  pathBases?: readonly string[];
  /**
   * The connection to `serverId` that serves this call, when it is not one registered with the
   * kernel: an MCP edge session's own upstream connection (its tool list depends on the client's
   * capabilities and changes with the upstream's list). Its manifest must name `serverId`; the
   * checks judge the call against that manifest exactly as for a registered server.
   */
  toolServer?: ToolServerConnection;
}

/** The parts of a call the checks look at. */
export type ToolCallPreview = Pick<
  ToolCallRequest,
  'capability' | 'caller' | 'serverId' | 'toolName' | 'arguments' | 'pathBases' | 'toolServer'
>;

export type ToolCallResponse =
  | { ok: true; output: unknown; receipt: Receipt; entry: AppendResult }
  | {
      ok: false;
      verdict: 'deny' | 'incomplete' | 'cancelled';
      reason: string;
      guard?: string;
      receipt: Receipt;
      entry: AppendResult;
    };
