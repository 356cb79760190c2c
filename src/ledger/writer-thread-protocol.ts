/**
 * Messages between the main thread and the writer thread (structured-clone plain data only;
 * errors travel as {code, message} and become ChioErrors again on arrival).
 * Owns: message shapes. Imports types only.
 */
import type { AppendResult, PreparedEntry } from './append.js';

export interface WireError {
  code: string;
  message: string;
}

export type WireOutcome = { ok: true; result: AppendResult } | { ok: false; error: WireError };

export type ToWriterThread = { type: 'commit'; id: number; entries: PreparedEntry[] } | { type: 'close' };

export type FromWriterThread =
  | { type: 'ready' }
  | { type: 'fault'; error: WireError }
  | { type: 'committed'; id: number; outcomes: WireOutcome[] }
  | { type: 'failed'; id: number; error: WireError };
