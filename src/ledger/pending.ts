/**
 * Reading reservations that have no receipt, for auditors (`chio ledger verify`). The kernel
 * reserves every call in pending_calls before it dispatches the tool, and the receipt's append
 * deletes the row in the same transaction; a row that stays means a tool call was dispatched and
 * no receipt was written (a crash, a full disk). Rows younger than the threshold are calls still
 * running; older ones are reported as dispatched calls without a receipt.
 * Owns: that read and the split by age. Read-only; must not import kernel, edges or cli.
 *
 * Every row is read from the file and so attacker-controlled: values are taken as they are stored
 * (shown, never trusted), and a row whose reserved_at is not a whole number of seconds cannot be
 * shown to be in flight, so it counts as without a receipt.
 */
import type { Ledger } from './open.js';

export interface UnreceiptedCall {
  requestId: string;
  capabilityId: string;
  grantIndex: number | null;
  owner: string;
  /** Unix seconds, or null when the stored value is not a whole number. */
  reservedAt: number | null;
  /** now − reservedAt (negative when the reservation is stamped in the future), or null. */
  ageSeconds: number | null;
  /** The call's target, when the schema stores it (schema 5 on) and the row has it. */
  toolServer: string | null;
  toolName: string | null;
}

export interface PendingCallsReport {
  /** The moment ages were measured from (Unix seconds). */
  now: number;
  maxAgeSeconds: number;
  /** Reserved more than maxAgeSeconds ago (or of unknown age) and still without a receipt. */
  withoutReceipt: UnreceiptedCall[];
  /** Reserved within maxAgeSeconds: calls that may still be running. */
  inFlight: UnreceiptedCall[];
}

const text = (v: unknown): string => (typeof v === 'string' ? v : v === null || v === undefined ? '' : String(v));
const wholeOrNull = (v: unknown): number | null => (typeof v === 'number' && Number.isSafeInteger(v) ? v : null);
const textOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/**
 * Every reservation still in pending_calls, oldest first, split at `maxAgeSeconds` before `now`.
 * A ledger from before pending_calls existed has none.
 */
export function readPendingCalls(ledger: Ledger, options: { now: number; maxAgeSeconds: number }): PendingCallsReport {
  const db = ledger.db;
  const columns = new Set(
    (db.prepare("SELECT name FROM pragma_table_info('pending_calls')").all() as Array<{ name: string }>).map(
      (c) => c.name,
    ),
  );
  if (!columns.has('request_id'))
    return { now: options.now, maxAgeSeconds: options.maxAgeSeconds, withoutReceipt: [], inFlight: [] };
  const optional = (name: string) => (columns.has(name) ? name : `NULL AS ${name}`);
  const rows = db
    .prepare(
      `SELECT request_id, capability_id, grant_index, owner, reserved_at, ${optional('tool_server')}, ${optional('tool_name')}
       FROM pending_calls ORDER BY reserved_at, rowid`,
    )
    .all() as Array<Record<string, unknown>>;
  return splitPending(rows, options);
}

/** Splits stored rows (as read, attacker-controlled) into calls without a receipt and calls still in flight. */
export function splitPending(
  rows: ReadonlyArray<Record<string, unknown>>,
  options: { now: number; maxAgeSeconds: number },
): PendingCallsReport {
  const { now, maxAgeSeconds } = options;
  const report: PendingCallsReport = { now, maxAgeSeconds, withoutReceipt: [], inFlight: [] };
  for (const row of rows) {
    const reservedAt = wholeOrNull(row.reserved_at);
    const call: UnreceiptedCall = {
      requestId: text(row.request_id),
      capabilityId: text(row.capability_id),
      grantIndex: wholeOrNull(row.grant_index),
      owner: text(row.owner),
      reservedAt,
      ageSeconds: reservedAt === null ? null : now - reservedAt,
      toolServer: textOrNull(row.tool_server),
      toolName: textOrNull(row.tool_name),
    };
    if (call.ageSeconds !== null && call.ageSeconds <= maxAgeSeconds) report.inFlight.push(call);
    else report.withoutReceipt.push(call);
  }
  return report;
}
