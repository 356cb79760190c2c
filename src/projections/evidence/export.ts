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
import { readSession } from '../certificate/index.js';
import type { Certificate } from '../certificate/index.js';
import { proveInclusion } from '../checkpoints/index.js';
import { EVIDENCE_BUNDLE_SCHEMA_ID } from './schema.js';
import type { BundleEntry, EvidenceBundle } from './schema.js';

export interface ExportEvidenceOptions {
  sessionId: string;
  certificate: Certificate;
  /** The checkpoint the proofs lead to (default: the latest stored one; it must cover the session). */
  checkpoint?: StoredCheckpoint | undefined;
}

export function exportEvidence(ledger: Ledger, o: ExportEvidenceOptions): EvidenceBundle {
  const { entries, chainProblem } = readSession(ledger, o.sessionId);
  if (entries.length === 0) throw new ChioError('CHIO-EVIDENCE-NO-SESSION', `the ledger has no session ${JSON.stringify(o.sessionId)}`);
  if (chainProblem !== null) throw new ChioError('CHIO-EVIDENCE-NO-SESSION', `session ${JSON.stringify(o.sessionId)} is broken in the ledger (${chainProblem}); no bundle is made of it`);
  if (o.certificate.body.session_id !== o.sessionId) throw new ChioError('CHIO-CLI-USAGE', `the certificate is for session ${JSON.stringify(o.certificate.body.session_id)}, not ${JSON.stringify(o.sessionId)}`);
  const last = entries.at(-1)!.seq;
  const checkpoint = o.checkpoint ?? latestCheckpoint(ledger);
  if (checkpoint === undefined || checkpoint.treeSize < last) {
    throw new ChioError('CHIO-EVIDENCE-NO-CHECKPOINT', `no stored checkpoint covers the session's last entry (seq ${last})${checkpoint === undefined ? '' : `; the latest covers ${checkpoint.treeSize} entries`}: sign one (chio ledger checkpoint, or --kernel-seed-file here)`);
  }
  const rows = ledger.db.prepare('SELECT seq, prev_hash, entry_hash, session_id, session_prev_seq, body FROM ledger_entries WHERE seq = ?');
  const tree = new LedgerTree(ledger.db);
  const bundleEntries: BundleEntry[] = entries.map((e) => rows.get(e.seq) as BundleEntry);
  const proofs = bundleEntries.map((e) => proveInclusion(ledger, { seq: e.seq }, { treeSize: checkpoint.treeSize, tree }));
  return { schema: EVIDENCE_BUNDLE_SCHEMA_ID, session_id: o.sessionId, entries: bundleEntries, proofs, checkpoint: checkpoint.note, certificate: o.certificate };
}
