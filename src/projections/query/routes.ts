/**
 * What each audit API route answers (DESIGN §12), as plain values: receipt queries with the same
 * filters and order as `chio receipt list`, one receipt with its chain position and verification
 * verdict, session summaries, a session's receipts, the ledger head. Each answer is read inside one
 * read transaction, so a page and its totalCount come from the same snapshot while producers append.
 * Owns: the answers' shapes. Must not import the append path; never writes.
 */
import { ChioError } from '../../errors.js';
import { entryHash, findEntry, latestCheckpoint, listEntries, receiptSha256 } from '../../ledger/index.js';
import { generateCertificate } from '../certificate/index.js';
import type { Certificate, CertificateSigner } from '../certificate/index.js';
import { proveInclusion } from '../checkpoints/index.js';
import { exportEvidence } from '../evidence/index.js';
import type { EvidenceBundle } from '../evidence/index.js';
import type { InclusionProof } from '../checkpoints/index.js';
import type { Ledger } from '../../ledger/index.js';
import type { LedgerEntryRow } from '../../ledger/index.js';
import { verifyReceipt } from '../../receipt/index.js';
import type { PageQuery, ReceiptQuery } from './params.js';

export interface ReceiptPage {
  /** The signed receipts, in ledger order (each exactly its stored RFC 8785 body, parsed). */
  receipts: unknown[];
  totalCount: number;
  /** Pass as `cursor` for the next page; null on the last one. */
  nextCursor: number | null;
}

export const receiptsOf = (entries: LedgerEntryRow[]) => entries.map((e) => JSON.parse(e.body) as unknown);

/** Runs `read` in one read transaction on the (read-only) connection: one snapshot. */
function snapshot<T>(ledger: Ledger, read: () => T): T {
  return ledger.db.transaction(read).deferred();
}

export function queryReceipts(ledger: Ledger, q: ReceiptQuery): ReceiptPage {
  return snapshot(ledger, () => {
    const page = listEntries(
      ledger,
      {
        toolServer: q.toolServer,
        toolName: q.toolName,
        capabilityId: q.capabilityId,
        sessionId: q.sessionId,
        outcome: q.outcome,
        since: q.since,
        until: q.until,
      },
      { limit: q.limit, cursor: q.cursor },
    );
    return { receipts: receiptsOf(page.entries), totalCount: page.totalCount, nextCursor: page.nextCursor };
  });
}

/**
 * One receipt by its exact id: the receipt, where it sits in the chain, and what checking it alone
 * says (its signature and semantics, and that its stored entry hash is the one its position and
 * body give). Chain continuity around it is `chio ledger verify`'s job.
 */
export function receiptById(ledger: Ledger, id: string) {
  return receiptAnswer(
    snapshot(ledger, () => findEntry(ledger, id)),
    id,
  );
}

/** The answer for one entry found by id on either store (the same checks, the same shape). */
export function receiptAnswer(found: { entry: LedgerEntryRow } | { entry: null }, id: string) {
  if (found.entry === null || found.entry.receiptId !== id)
    throw new ChioError('CHIO-API-NOT-FOUND', `no receipt ${id} in the ledger`);
  const e = found.entry;
  const receipt = JSON.parse(e.body) as unknown;
  const verdict = verifyReceipt(receipt);
  const expectedHash = entryHash({
    seq: e.seq,
    prevHash: e.prevHash,
    receiptSha256: receiptSha256(e.body),
    sessionId: e.sessionId,
    sessionPrevSeq: e.sessionPrevSeq,
  });
  return {
    receipt,
    position: {
      seq: e.seq,
      sessionId: e.sessionId,
      sessionPrevSeq: e.sessionPrevSeq,
      prevHash: e.prevHash,
      entryHash: e.entryHash,
      producer: e.producer,
    },
    verification: {
      ok: verdict.ok && expectedHash === e.entryHash,
      signature: verdict.ok ? 'ok' : `${verdict.check}: ${verdict.message}`,
      entryHash: expectedHash === e.entryHash ? 'ok' : `stored ${e.entryHash}, position and body give ${expectedHash}`,
    },
  };
}

export interface SessionSummary {
  sessionId: string;
  entries: number;
  allowed: number;
  denied: number;
  cancelled: number;
  incomplete: number;
  /** Entries without a verdict: trace observations. */
  observations: number;
  firstSeq: number;
  lastSeq: number;
  firstTimestamp: number;
  lastTimestamp: number;
}

const SUMMARY = `SELECT session_id AS sessionId, count(*) AS entries,
    sum(verdict = 'allow') AS allowed, sum(verdict = 'deny') AS denied, sum(verdict = 'cancelled') AS cancelled,
    sum(verdict = 'incomplete') AS incomplete, sum(verdict IS NULL) AS observations,
    min(seq) AS firstSeq, max(seq) AS lastSeq, min(timestamp) AS firstTimestamp, max(timestamp) AS lastTimestamp
  FROM ledger_entries WHERE session_id IN (SELECT session_id FROM ledger_sessions WHERE first_seq > ? ORDER BY first_seq LIMIT ?)
  GROUP BY session_id ORDER BY firstSeq`;

/** Sessions in the order they began (first seq), a page at a time; the cursor is the last one's first seq. */
export function listSessions(
  ledger: Ledger,
  q: PageQuery,
): { sessions: SessionSummary[]; totalCount: number; nextCursor: number | null } {
  return snapshot(ledger, () => {
    const rows = ledger.db.prepare(SUMMARY).all(q.cursor ?? 0, q.limit + 1) as SessionSummary[];
    const more = rows.length > q.limit;
    const sessions = more ? rows.slice(0, q.limit) : rows;
    const totalCount = (ledger.db.prepare('SELECT count(*) AS n FROM ledger_sessions').get() as { n: number }).n;
    return { sessions, totalCount, nextCursor: more ? sessions[sessions.length - 1]!.firstSeq : null };
  });
}

export function sessionReceipts(ledger: Ledger, sessionId: string, q: PageQuery): ReceiptPage {
  const page = queryReceipts(ledger, { sessionId, limit: q.limit, cursor: q.cursor });
  if (page.totalCount === 0) throw new ChioError('CHIO-API-NOT-FOUND', `no session ${sessionId} in the ledger`);
  return page;
}

export function ledgerHead(ledger: Ledger): { entries: number; head: { seq: number; entryHash: string } | null } {
  const head = ledger.db
    .prepare('SELECT seq, entry_hash AS entryHash FROM ledger_entries ORDER BY seq DESC LIMIT 1')
    .get() as { seq: number; entryHash: string } | undefined;
  // seq is contiguous from 1 (DESIGN §6), so the head's seq is the number of entries.
  return { entries: head?.seq ?? 0, head: head ?? null };
}

/**
 * A compliance certificate over one session, signed now with the service's key (generation's own
 * error codes when the session cannot be certified). Without a configured key there is none.
 */
export function sessionCertificate(
  ledger: Ledger,
  sessionId: string,
  signer: CertificateSigner | undefined,
): Certificate {
  if (signer === undefined)
    throw new ChioError(
      'CHIO-CLI-CERT-SIGNER-REQUIRED',
      'this service has no certificate signing key (start chio serve with --kernel-seed-file or --authority-seed-file)',
    );
  return snapshot(ledger, () => generateCertificate(ledger, { sessionId, signer }));
}

/** The latest stored checkpoint (a signed tree head, C2SP signed-note text in `note`). */
export function checkpoint(ledger: Ledger) {
  const c = latestCheckpoint(ledger);
  if (c === undefined) throw new ChioError('CHIO-API-NOT-FOUND', 'the ledger has no checkpoint yet');
  return c;
}

/** An inclusion proof of one receipt's entry against the latest stored checkpoint that holds it. */
export function receiptProof(ledger: Ledger, id: string): InclusionProof {
  return snapshot(ledger, () => proveInclusion(ledger, { receiptId: id }));
}

/**
 * A session's evidence bundle (DESIGN §10): its entries, a proof each against the latest stored
 * checkpoint (which must cover the session: the service never signs one), and a certificate
 * signed now with the service's key — everything needed to check the session without the ledger.
 */
export function sessionEvidence(
  ledger: Ledger,
  sessionId: string,
  signer: CertificateSigner | undefined,
): EvidenceBundle {
  return snapshot(ledger, () =>
    exportEvidence(ledger, { sessionId, certificate: sessionCertificate(ledger, sessionId, signer) }),
  );
}
