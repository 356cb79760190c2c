/**
 * Messages between the main thread and the writer thread (structured-clone plain data only;
 * errors travel as {code, message} and become ChioErrors again on arrival).
 * Owns: message shapes. Imports types only.
 */
import type { AppendResult } from './append.js';
import type { ReserveOutcome } from './reservations.js';
import type { WriteOp } from './write-ops.js';

export interface WireError {
  code: string;
  message: string;
}

export type WireOutcome =
  | { ok: true; kind: 'append'; result: AppendResult }
  | { ok: true; kind: 'reserve'; outcome: ReserveOutcome }
  | { ok: false; error: WireError };

export type ToWriterThread = { type: 'commit'; id: number; ops: WriteOp[] } | { type: 'close' };

export type FromWriterThread =
  | { type: 'ready' }
  | { type: 'fault'; error: WireError }
  | { type: 'committed'; id: number; outcomes: WireOutcome[] }
  | { type: 'failed'; id: number; error: WireError };
