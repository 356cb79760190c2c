/**
 * Building an evidence bundle for one session from the ledger: the session's entries (walked
 * along its chain, so a hole is an error rather than a shorter bundle), an inclusion proof for each
 * against the given checkpoint (O(log n) reads each), the checkpoint's note and the certificate.
 * The checkpoint and certificate are the caller's: made on the spot with a kernel key, or the latest
 * stored checkpoint that covers the session and a certificate the caller already holds.
 * Owns: bundle assembly. Reads the ledger; never writes.
 */
import { ChioError } from '../../errors.js';
import { LedgerTree, latestCheckpoint } from '../../ledger/index.js';
import type { Ledger, StoredCheckpoint } from '../../ledger/index.js';
import { latestCheckpointPg } from '../../ledger/pg/checkpoints.js';
import type { PgLedger } from '../../ledger/pg/open.js';
import { pgSnapshot } from '../../ledger/pg/read.js';
import { treeSizePg, withStoredTree } from '../../ledger/pg/tree.js';
import { readSession, readSessionPg } from '../certificate/index.js';
import type { Certificate, SessionRead } from '../certificate/index.js';
import { inclusionOf, proveInclusion } from '../checkpoints/index.js';
import { EVIDENCE_BUNDLE_SCHEMA_ID } from './schema.js';
import type { BundleEntry, EvidenceBundle } from './schema.js';

export interface ExportEvidenceOptions {
  sessionId: string;
  certificate: Certificate;
  /** The checkpoint the proofs lead to (default: the latest stored one; it must cover the session). */
  checkpoint?: StoredCheckpoint | undefined;
}

export function exportEvidence(ledger: Ledger, o: ExportEvidenceOptions): EvidenceBundle {
  const session = readSession(ledger, o.sessionId);
  const checkpoint = coveringCheckpoint(session, o, o.checkpoint ?? latestCheckpoint(ledger));
  const rows = ledger.db.prepare(`SELECT ${ENTRY_COLUMNS} FROM ledger_entries WHERE seq = ?`);
  const tree = new LedgerTree(ledger.db);
  const bundleEntries: BundleEntry[] = session.entries.map((e) => rows.get(e.seq) as BundleEntry);
  const proofs = bundleEntries.map((e) =>
    proveInclusion(ledger, { seq: e.seq }, { treeSize: checkpoint.treeSize, tree }),
  );
  return {
    schema: EVIDENCE_BUNDLE_SCHEMA_ID,
    session_id: o.sessionId,
    entries: bundleEntries,
    proofs,
    checkpoint: checkpoint.note,
    certificate: o.certificate,
  };
}

/** The same bundle from a PostgreSQL ledger: the session, its rows and every proof's nodes read in one snapshot. */
export async function exportEvidencePg(ledger: PgLedger, o: ExportEvidenceOptions): Promise<EvidenceBundle> {
  const session = await readSessionPg(ledger, o.sessionId);
  return pgSnapshot(ledger, async (client) => {
    const checkpoint = coveringCheckpoint(session, o, o.checkpoint ?? (await latestCheckpointPg(client)));
    const bySeq = new Map(
      (
        (
          await client.query(`SELECT ${ENTRY_COLUMNS} FROM ledger_entries WHERE seq = ANY($1::bigint[])`, [
            session.entries.map((e) => e.seq),
          ])
        ).rows as BundleEntry[]
      ).map((r) => [r.seq, r]),
    );
    const bundleEntries = session.entries.map((e) => bySeq.get(e.seq) ?? missing(e.seq));
    const treeSize = await treeSizePg(client);
    const proofs = await withStoredTree(client, (read) =>
      bundleEntries.map((e) =>
        inclusionOf(e, { seq: e.seq }, { treeSize, latestCheckpointSize: undefined, read }, checkpoint.treeSize),
      ),
    );
    return {
      schema: EVIDENCE_BUNDLE_SCHEMA_ID,
      session_id: o.sessionId,
      entries: bundleEntries,
      proofs,
      checkpoint: checkpoint.note,
      certificate: o.certificate,
    };
  });
}

const ENTRY_COLUMNS = 'seq, prev_hash, entry_hash, session_id, session_prev_seq, body';

function missing(seq: number): never {
  throw new ChioError(
    'CHIO-EVIDENCE-NO-SESSION',
    `session entry seq ${seq} is gone from the ledger since the session was read; no bundle is made of it`,
  );
}

/** Checks the session can be bundled and returns the checkpoint its proofs lead to. */
function coveringCheckpoint(
  session: SessionRead,
  o: ExportEvidenceOptions,
  checkpoint: StoredCheckpoint | undefined,
): StoredCheckpoint {
  const { entries, chainProblem } = session;
  if (entries.length === 0)
    throw new ChioError('CHIO-EVIDENCE-NO-SESSION', `the ledger has no session ${JSON.stringify(o.sessionId)}`);
  if (chainProblem !== null)
    throw new ChioError(
      'CHIO-EVIDENCE-NO-SESSION',
      `session ${JSON.stringify(o.sessionId)} is broken in the ledger (${chainProblem}); no bundle is made of it`,
    );
  if (o.certificate.body.session_id !== o.sessionId)
    throw new ChioError(
      'CHIO-CLI-USAGE',
      `the certificate is for session ${JSON.stringify(o.certificate.body.session_id)}, not ${JSON.stringify(o.sessionId)}`,
    );
  const last = entries.at(-1)!.seq;
  if (checkpoint === undefined || checkpoint.treeSize < last) {
    throw new ChioError(
      'CHIO-EVIDENCE-NO-CHECKPOINT',
      `no stored checkpoint covers the session's last entry (seq ${last})${checkpoint === undefined ? '' : `; the latest covers ${checkpoint.treeSize} entries`}: sign one (chio ledger checkpoint, or --kernel-seed-file here)`,
    );
  }
  return checkpoint;
}
