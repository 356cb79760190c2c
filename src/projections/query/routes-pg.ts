/**
 * The audit API's answers on a PostgreSQL ledger (DESIGN §11, §12): the same shapes, filters and
 * orders as routes.ts on SQLite, each answer read in one REPEATABLE READ, READ ONLY snapshot.
 * Owns: the queries behind the answers on PostgreSQL. Never writes; must not import the append path.
 */
import { ChioError } from '../../errors.js';
import { latestCheckpointPg } from '../../ledger/pg/checkpoints.js';
import type { PgLedger } from '../../ledger/pg/open.js';
import { findEntryPg, listEntriesPg } from '../../ledger/pg/query.js';
import { pgSnapshot } from '../../ledger/pg/read.js';
import { generateCertificateOn } from '../certificate/index.js';
import type { Certificate, CertificateSigner } from '../certificate/index.js';
import { proveInclusionPg } from '../checkpoints/index.js';
import type { InclusionProof } from '../checkpoints/index.js';
import { exportEvidencePg } from '../evidence/index.js';
import type { EvidenceBundle } from '../evidence/index.js';
import { denialBuckets, denialResult, NO_GUARD } from './denials.js';
import type { DenialQuery, DenialSeries } from './denials.js';
import type { PageQuery, ReceiptQuery } from './params.js';
import { receiptAnswer, receiptsOf } from './routes.js';
import type { ReceiptPage, SessionSummary } from './routes.js';

export async function queryReceiptsPg(ledger: PgLedger, q: ReceiptQuery): Promise<ReceiptPage> {
  const page = await listEntriesPg(
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
}

export async function receiptByIdPg(ledger: PgLedger, id: string) {
  return receiptAnswer(await findEntryPg(ledger, id), id);
}

const SUMMARY = `SELECT session_id AS "sessionId", count(*) AS entries,
    count(*) FILTER (WHERE verdict = 'allow') AS allowed, count(*) FILTER (WHERE verdict = 'deny') AS denied,
    count(*) FILTER (WHERE verdict = 'cancelled') AS cancelled, count(*) FILTER (WHERE verdict = 'incomplete') AS incomplete,
    count(*) FILTER (WHERE verdict IS NULL) AS observations,
    min(seq) AS "firstSeq", max(seq) AS "lastSeq", min(timestamp) AS "firstTimestamp", max(timestamp) AS "lastTimestamp"
  FROM ledger_entries WHERE session_id IN (SELECT session_id FROM ledger_sessions WHERE first_seq > $1 ORDER BY first_seq LIMIT $2)
  GROUP BY session_id ORDER BY "firstSeq"`;

export async function listSessionsPg(
  ledger: PgLedger,
  q: PageQuery,
): Promise<{ sessions: SessionSummary[]; totalCount: number; nextCursor: number | null }> {
  return pgSnapshot(ledger, async (client) => {
    const rows = (await client.query(SUMMARY, [q.cursor ?? 0, q.limit + 1])).rows as SessionSummary[];
    const more = rows.length > q.limit;
    const sessions = more ? rows.slice(0, q.limit) : rows;
    const totalCount = ((await client.query('SELECT count(*) AS n FROM ledger_sessions')).rows[0] as { n: number }).n;
    return { sessions, totalCount, nextCursor: more ? sessions[sessions.length - 1]!.firstSeq : null };
  });
}

export async function sessionReceiptsPg(ledger: PgLedger, sessionId: string, q: PageQuery): Promise<ReceiptPage> {
  const page = await queryReceiptsPg(ledger, { sessionId, limit: q.limit, cursor: q.cursor });
  if (page.totalCount === 0) throw new ChioError('CHIO-API-NOT-FOUND', `no session ${sessionId} in the ledger`);
  return page;
}

export async function ledgerHeadPg(
  ledger: PgLedger,
): Promise<{ entries: number; head: { seq: number; entryHash: string } | null }> {
  const row = (
    await ledger.pool.query('SELECT seq, entry_hash AS "entryHash" FROM ledger_entries ORDER BY seq DESC LIMIT 1')
  ).rows[0] as { seq: number; entryHash: string } | undefined;
  return { entries: row?.seq ?? 0, head: row ?? null };
}

export async function sessionCertificatePg(
  ledger: PgLedger,
  sessionId: string,
  signer: CertificateSigner | undefined,
): Promise<Certificate> {
  if (signer === undefined)
    throw new ChioError(
      'CHIO-CLI-CERT-SIGNER-REQUIRED',
      'this service has no certificate signing key (start chio serve with --kernel-seed-file or --authority-seed-file)',
    );
  return generateCertificateOn(ledger, { sessionId, signer });
}

export async function denialSeriesPg(ledger: PgLedger, q: DenialQuery): Promise<DenialSeries> {
  return pgSnapshot(ledger, async (client) => {
    const where = `verdict = 'deny' AND timestamp >= $1 AND timestamp <= $2${q.sessionId === undefined ? '' : ' AND session_id = $3'}`;
    const args = (from: number, to: number) => (q.sessionId === undefined ? [from, to] : [from, to, q.sessionId]);
    const span = (
      await client.query(
        `SELECT min(timestamp) AS lo, max(timestamp) AS hi, count(*) AS n FROM ledger_entries WHERE ${where}`,
        args(q.since ?? 0, q.until ?? Number.MAX_SAFE_INTEGER),
      )
    ).rows[0] as { lo: number | null; hi: number | null; n: number };
    const plan = denialBuckets(q, span);
    const at = q.sessionId === undefined ? 3 : 4;
    // The body is the stored receipt text: a row whose body is not JSON fails the query (503), as on SQLite.
    const rows =
      span.n === 0
        ? []
        : ((
            await client.query(
              `SELECT ((timestamp - $${at}::bigint) / $${at + 1}::bigint)::int AS bucket, coalesce(body::jsonb -> 'decision' ->> 'guard', '${NO_GUARD}') AS guard, count(*)::int AS n
         FROM ledger_entries WHERE ${where} GROUP BY 1, 2`,
              [...args(plan.from, plan.to), plan.from, plan.bucketSeconds],
            )
          ).rows as Array<{ bucket: number; guard: string; n: number }>);
    return denialResult(plan, span, rows);
  });
}

/** The latest stored checkpoint (a signed tree head, C2SP signed-note text in `note`). */
export async function checkpointPg(ledger: PgLedger) {
  const c = await latestCheckpointPg(ledger.pool);
  if (c === undefined) throw new ChioError('CHIO-API-NOT-FOUND', 'the ledger has no checkpoint yet');
  return c;
}

/** An inclusion proof of one receipt's entry against the latest stored checkpoint that holds it. */
export function receiptProofPg(ledger: PgLedger, id: string): Promise<InclusionProof> {
  return proveInclusionPg(ledger, { receiptId: id });
}

/** A session's evidence bundle against the latest stored checkpoint, with a certificate signed now. */
export async function sessionEvidencePg(
  ledger: PgLedger,
  sessionId: string,
  signer: CertificateSigner | undefined,
): Promise<EvidenceBundle> {
  return exportEvidencePg(ledger, { sessionId, certificate: await sessionCertificatePg(ledger, sessionId, signer) });
}
