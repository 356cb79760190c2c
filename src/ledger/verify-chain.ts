/**
 * Chain verification (DESIGN §6): walks ledger_entries in seq order and reports the first bad
 * entry, its seq and which check failed. A broken chain is an expected result, returned as a
 * value; only a fault (unreadable file) throws.
 * Owns: the list of checks and their order. Must not import kernel, edges or cli; never writes.
 *
 * Every row is attacker-controlled here: the file may have been edited with the triggers dropped.
 * Checks per entry, in order:
 *   gap          seq is the previous seq + 1 (the first is 1)
 *   prev_hash    prev_hash is the previous entry_hash (64 zeros for seq 1)
 *   entry_hash   entry_hash = H({schema, seq, prev_hash, sha256(body), session_id, session_prev_seq})
 *   body         body is a valid chio.receipt.v1 receipt in its exact RFC 8785 form
 *   receipt_id   the receipt_id column and the receipt's id both equal the id recomputed from the content
 *   projection   the projected columns equal the members of the body they copy
 *   untrusted_key  (when trusted keys are given) kernel_key is one of them
 *   signature    (unless disabled) the Ed25519 signature verifies under kernel_key
 *   session_link session_prev_seq is the previous seq of the same session (NULL for its first)
 * and at the end: sessions_projection — ledger_sessions equals what the walk derived.
 */
import { verifySignature } from '../crypto/index.js';
import { verifyReceipt } from '../receipt/index.js';
import {
  entryHash,
  GENESIS_PREV_HASH,
  grantsOf,
  kindOf,
  projectReceipt,
  receiptSha256,
  revokedCapabilityOf,
} from './entry.js';
import type { Ledger } from './open.js';
import type { LedgerSessionRow, RawLedgerEntry } from './schema.js';

export type ChainCheck =
  | 'gap'
  | 'prev_hash'
  | 'entry_hash'
  | 'body'
  | 'receipt_id'
  | 'projection'
  | 'untrusted_key'
  | 'signature'
  | 'session_link'
  | 'sessions_projection'
  | 'revocations_projection'
  | 'grant_usage_projection';

export interface ChainHead {
  seq: number;
  entryHash: string;
}

export type ChainVerdict =
  | {
      ok: true;
      entries: number;
      head: ChainHead | null;
      sessions: number;
      /** kernel_key → number of receipts it signed. */
      kernelKeys: Record<string, number>;
      signaturesChecked: boolean;
    }
  | { ok: false; seq: number | null; check: ChainCheck; message: string; entriesChecked: number };

/** A signature the walk needs checked: the driver decides whether now or on another thread. */
export interface SignatureJob {
  seq: number;
  kernelKey: string;
  signed: string;
  signature: string;
}

export interface VerifyChainOptions {
  /** Check every Ed25519 signature (default true). Without, hashes and links only. */
  signatures?: boolean;
  /** Require every receipt's kernel_key to be one of these. */
  trustedKernelKeys?: ReadonlySet<string> | undefined;
  /** Called every `progressEvery` entries with (entries done, entries expected). */
  onProgress?: (done: number, total: number) => void;
  progressEvery?: number;
}

type Row = RawLedgerEntry;

const PROJECTED: Array<[keyof Row, keyof ReturnType<typeof projectReceipt>]> = [
  ['timestamp', 'timestamp'],
  ['capability_id', 'capabilityId'],
  ['tool_server', 'toolServer'],
  ['tool_name', 'toolName'],
  ['verdict', 'verdict'],
  ['receipt_kind', 'receiptKind'],
  ['trust_level', 'trustLevel'],
  ['kernel_key', 'kernelKey'],
  ['tenant_id', 'tenantId'],
];

interface SessionState {
  firstSeq: number;
  lastSeq: number;
  count: number;
  firstTimestamp: number;
  lastTimestamp: number;
  headEntryHash: string;
}

/** Verifies the chain on this thread, signatures included unless disabled. */
export function verifyChain(ledger: Ledger, options: VerifyChainOptions = {}): ChainVerdict {
  const walk = walkChain(ledger, options);
  let step = walk.next();
  while (!step.done) {
    const job = step.value;
    step = walk.next(verifySignature(job.kernelKey, job.signed, job.signature));
  }
  return step.value;
}

export function signatureFailure(job: SignatureJob, entriesChecked: number): ChainVerdict {
  return {
    ok: false,
    seq: job.seq,
    check: 'signature',
    message: `signature does not verify under kernel_key ${job.kernelKey}`,
    entriesChecked,
  };
}

/** The projection tables as stored, for the end of the walk (absent tables: undefined). */
export interface StoredProjections {
  sessions: Array<Record<string, unknown>>;
  revocations?: Array<{ capability_id: string; kernel_key: string; seq: number; revoked_at: number }> | undefined;
  grants?: Array<{ capability_id: string; grant_index: number; kernel_key: string; invocations: number }> | undefined;
}

/**
 * The checks of the walk, one row at a time, whatever the rows come from (an SQLite iterator, pages
 * of a PostgreSQL query): `beforeSignature`, then (signatures on) the signature job it hands out,
 * then `afterSignature`; `finish` compares the stored projections with what the walk derived.
 */
export class ChainChecker {
  private expectedSeq = 1;
  private prevHash = GENESIS_PREV_HASH;
  /** Entries that passed every check. */
  checked = 0;
  private readonly sessions = new Map<string, SessionState>();
  private readonly kernelKeys: Record<string, number> = {};
  private readonly revocations = new Map<string, [number, number]>();
  private readonly usage = new Map<string, number>();
  readonly signatures: boolean;

  constructor(private readonly options: VerifyChainOptions = {}) {
    this.signatures = options.signatures ?? true;
  }

  fail(seq: number | null, check: ChainCheck, message: string): ChainVerdict {
    return { ok: false, seq, check, message, entriesChecked: this.checked };
  }

  /** Links, hashes, body, id and projected columns; a failure, or the signature job for this row (null when signatures are off). */
  beforeSignature(row: Row): { fail: ChainVerdict } | { job: SignatureJob | null } {
    const fail = (seq: number | null, check: ChainCheck, message: string) => ({ fail: this.fail(seq, check, message) });
    const expectedSeq = this.expectedSeq;
    if (row.seq !== expectedSeq) {
      return fail(
        expectedSeq,
        'gap',
        row.seq > expectedSeq
          ? `seq ${expectedSeq} is missing (the next entry is seq ${row.seq})`
          : `seq ${row.seq} appears where seq ${expectedSeq} was expected`,
      );
    }
    if (row.prev_hash !== this.prevHash) {
      return fail(
        row.seq,
        'prev_hash',
        `prev_hash ${row.prev_hash} is not the entry_hash of seq ${row.seq - 1} (${this.prevHash})`,
      );
    }
    let computed: string;
    try {
      computed = entryHash({
        seq: row.seq,
        prevHash: row.prev_hash,
        receiptSha256: receiptSha256(row.body),
        sessionId: row.session_id,
        sessionPrevSeq: row.session_prev_seq,
      });
    } catch (e) {
      return fail(row.seq, 'entry_hash', `the entry's fields cannot be hashed: ${(e as Error).message}`);
    }
    if (computed !== row.entry_hash) {
      return fail(
        row.seq,
        'entry_hash',
        `entry_hash ${row.entry_hash} does not match the entry (recomputed ${computed})`,
      );
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(row.body);
    } catch {
      return fail(row.seq, 'body', 'body is not JSON');
    }
    const verdict = verifyReceipt(parsed, { signatures: false, trustedKernelKeys: this.options.trustedKernelKeys });
    if (!verdict.ok) {
      const check: ChainCheck =
        verdict.check === 'id'
          ? 'receipt_id'
          : verdict.check === 'signature'
            ? 'signature'
            : verdict.check === 'kernel_key'
              ? 'untrusted_key'
              : 'body';
      return fail(row.seq, check, verdict.message);
    }
    if (verdict.body !== row.body) return fail(row.seq, 'body', 'body is not the receipt in its exact RFC 8785 form');
    if (row.receipt_id !== verdict.id) {
      return fail(row.seq, 'receipt_id', `receipt_id column ${row.receipt_id} is not the receipt's id ${verdict.id}`);
    }
    const kind = kindOf(verdict.receipt);
    if (row.kind !== kind)
      return fail(row.seq, 'projection', `column kind is ${JSON.stringify(row.kind)} but the receipt is a ${kind}`);
    if (kind === 'revocation') {
      const revoked = revokedCapabilityOf(verdict.receipt);
      if (revoked === undefined)
        return fail(row.seq, 'body', 'a revocation must allow and name action.parameters.capability_id');
      const rkey = `${revoked}\u0000${verdict.receipt.kernel_key}`;
      if (!this.revocations.has(rkey)) this.revocations.set(rkey, [row.seq, row.timestamp]);
    }
    for (const grant of grantsOf(verdict.receipt)) {
      const key = `${grant.capabilityId}\u0000${grant.grantIndex}\u0000${verdict.receipt.kernel_key}`;
      this.usage.set(key, (this.usage.get(key) ?? 0) + 1);
    }
    const projected = projectReceipt(verdict.receipt);
    for (const [column, field] of PROJECTED) {
      if (row[column] !== projected[field]) {
        return fail(
          row.seq,
          'projection',
          `column ${column} is ${JSON.stringify(row[column])} but the receipt says ${JSON.stringify(projected[field])}`,
        );
      }
    }
    return {
      job: this.signatures
        ? {
            seq: row.seq,
            kernelKey: verdict.receipt.kernel_key,
            signed: verdict.signed,
            signature: verdict.receipt.signature,
          }
        : null,
    };
  }

  /** The session link, then the row counts as checked; a failure or null. */
  afterSignature(row: Row): ChainVerdict | null {
    if (row.session_id !== null) {
      const s = this.sessions.get(row.session_id);
      const expectedPrev = s?.lastSeq ?? null;
      if (row.session_prev_seq !== expectedPrev) {
        return this.fail(
          row.seq,
          'session_link',
          `session_prev_seq ${String(row.session_prev_seq)} is not the previous entry of session ${JSON.stringify(row.session_id)} (${String(expectedPrev)})`,
        );
      }
      if (s === undefined) {
        this.sessions.set(row.session_id, {
          firstSeq: row.seq,
          lastSeq: row.seq,
          count: 1,
          firstTimestamp: row.timestamp,
          lastTimestamp: row.timestamp,
          headEntryHash: row.entry_hash,
        });
      } else {
        s.lastSeq = row.seq;
        s.count += 1;
        s.firstTimestamp = Math.min(s.firstTimestamp, row.timestamp);
        s.lastTimestamp = Math.max(s.lastTimestamp, row.timestamp);
        s.headEntryHash = row.entry_hash;
      }
    } else if (row.session_prev_seq !== null) {
      return this.fail(row.seq, 'session_link', 'session_prev_seq is set on an entry without a session');
    }
    this.kernelKeys[row.kernel_key] = (this.kernelKeys[row.kernel_key] ?? 0) + 1;
    this.prevHash = row.entry_hash;
    this.expectedSeq += 1;
    this.checked += 1;
    return null;
  }

  /** After the last row: the stored projections against the derived ones, then the verdict. */
  finish(stored: StoredProjections): ChainVerdict {
    const mismatch = compareSessions(stored.sessions, this.sessions);
    if (mismatch !== null) return this.fail(null, 'sessions_projection', mismatch);
    if (stored.revocations !== undefined) {
      const expected = [...this.revocations].map(([id, [seq, at]]) => `${id} ${seq} ${at}`).sort();
      const actual = stored.revocations
        .map((r) => `${r.capability_id}\u0000${r.kernel_key} ${r.seq} ${r.revoked_at}`)
        .sort();
      if (expected.join('\n') !== actual.join('\n'))
        return this.fail(null, 'revocations_projection', 'revoked_capabilities does not match the revocation entries');
    }
    if (stored.grants !== undefined) {
      const expected = [...this.usage].map(([k, n]) => `${k} ${n}`).sort();
      const actual = stored.grants
        .map((r) => `${r.capability_id}\u0000${r.grant_index}\u0000${r.kernel_key} ${r.invocations}`)
        .sort();
      if (expected.join('\n') !== actual.join('\n'))
        return this.fail(null, 'grant_usage_projection', 'grant_usage does not match the allowed receipts');
    }
    return {
      ok: true,
      entries: this.checked,
      head: this.checked === 0 ? null : { seq: this.expectedSeq - 1, entryHash: this.prevHash },
      sessions: this.sessions.size,
      kernelKeys: this.kernelKeys,
      signaturesChecked: this.signatures,
    };
  }
}

/**
 * The walk itself. It yields each signature it needs checked (when signatures are on) and takes
 * the verdict back: `true` means valid or "checked elsewhere" (the parallel driver checks them on
 * the thread pool and reports the earliest bad one itself).
 */
export function* walkChain(
  ledger: Ledger,
  options: VerifyChainOptions = {},
): Generator<SignatureJob, ChainVerdict, boolean> {
  const progressEvery = options.progressEvery ?? 1000;
  const db = ledger.db;
  const checker = new ChainChecker(options);
  // One read transaction for the whole walk: a consistent snapshot even while producers append.
  db.exec('BEGIN');
  try {
    const total = (db.prepare('SELECT coalesce(max(seq), 0) AS n FROM ledger_entries').get() as { n: number }).n;
    const rows = db.prepare('SELECT * FROM ledger_entries ORDER BY seq').iterate() as IterableIterator<Row>;
    for (const row of rows) {
      const first = checker.beforeSignature(row);
      if ('fail' in first) return first.fail;
      if (first.job !== null && !(yield first.job)) return signatureFailure(first.job, checker.checked);
      const after = checker.afterSignature(row);
      if (after !== null) return after;
      if (options.onProgress !== undefined && checker.checked % progressEvery === 0)
        options.onProgress(checker.checked, total);
    }
    const tables = new Set(
      (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").all() as Array<{ name: string }>).map(
        (t) => t.name,
      ),
    );
    const verdict = checker.finish({
      sessions: db.prepare('SELECT * FROM ledger_sessions').all() as Array<Record<string, unknown>>,
      revocations: tables.has('revoked_capabilities')
        ? (db
            .prepare('SELECT capability_id, kernel_key, seq, revoked_at FROM revoked_capabilities')
            .all() as StoredProjections['revocations'])
        : undefined,
      grants: tables.has('grant_usage')
        ? (db
            .prepare('SELECT capability_id, grant_index, kernel_key, invocations FROM grant_usage')
            .all() as StoredProjections['grants'])
        : undefined,
    });
    if (verdict.ok) options.onProgress?.(checker.checked, total);
    return verdict;
  } finally {
    db.exec('COMMIT');
  }
}

function compareSessions(rows: Array<Record<string, unknown>>, derived: Map<string, SessionState>): string | null {
  const seen = new Set<string>();
  for (const row of rows) {
    const id = row.session_id as LedgerSessionRow['sessionId'];
    seen.add(id);
    const s = derived.get(id);
    if (s === undefined) return `ledger_sessions has session ${JSON.stringify(id)}, which has no entries`;
    const expected = [s.firstSeq, s.lastSeq, s.count, s.firstTimestamp, s.lastTimestamp, s.headEntryHash];
    const actual = [
      row.first_seq,
      row.last_seq,
      row.entry_count,
      row.first_timestamp,
      row.last_timestamp,
      row.head_entry_hash,
    ];
    if (expected.some((v, i) => v !== actual[i])) {
      return `ledger_sessions row for session ${JSON.stringify(id)} does not match its entries (run \`chio ledger rebuild-projections\` after checking why)`;
    }
  }
  for (const id of derived.keys()) {
    if (!seen.has(id)) return `session ${JSON.stringify(id)} is missing from ledger_sessions`;
  }
  return null;
}
