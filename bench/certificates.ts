/**
 * Certificate figures for `npm run bench`: `generateCertificate` and `--full`
 * verification over a 10,000-receipt session interleaved with 90,000 receipts of other sessions.
 * Each re-verifies every receipt signature of the session, so the limit beside them is the raw
 * single-thread verify rate.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromHex, hashCanonical, NULL_CONTENT_HASH, signerFromSeed } from '../src/crypto/index.js';
import { LedgerWriter, openLedger } from '../src/ledger/index.js';
import { generateCertificate, verifyCertificate } from '../src/projections/certificate/index.js';
import { signReceipt } from '../src/receipt/index.js';

export async function certificateFigures(
  sessionReceipts = 10_000,
  others = 90_000,
): Promise<{ generate: number; verifyFull: number; receipts: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'chio-bench-cert-'));
  const kernel = signerFromSeed(fromHex('31'.repeat(32)));
  const authority = signerFromSeed(fromHex('32'.repeat(32)));
  try {
    const ledger = openLedger(join(dir, 'certs.sqlite'), { synchronous: 'NORMAL' }); // setup only; not what is measured
    const writer = new LedgerWriter(ledger, { maxBatch: 5000 });
    const total = sessionReceipts + others;
    const every = Math.round(total / sessionReceipts);
    const pending: Array<Promise<unknown>> = [];
    for (let i = 0; i < total; i++) {
      const mine = i % every === 0;
      const receipt = signReceipt(
        {
          timestamp: 1_790_000_000 + i,
          capability_id: 'cap-bench',
          tool_server: 'fs',
          tool_name: 'read_text_file',
          action: { parameters: { path: `/w/${i}` } },
          decision: { verdict: 'allow' },
          receipt_kind: 'mediated_decision',
          boundary_class: 'prevent',
          tool_origin: 'caller_executed',
          redaction_mode: 'none',
          content_hash: NULL_CONTENT_HASH,
          policy_hash: hashCanonical({ p: 1 }),
          evidence: [{ guard_name: 'forbidden-path', verdict: true }],
          trust_level: 'mediated',
        },
        kernel,
        { nonce: `b-${i}` },
      );
      pending.push(writer.append({ receipt, sessionId: mine ? 'certified' : `other-${i % 97}` }));
      if (pending.length >= 5000) await Promise.all(pending.splice(0));
    }
    await Promise.all(pending);
    await writer.close();
    const session = (
      ledger.db.prepare("SELECT count(*) AS n FROM ledger_entries WHERE session_id = 'certified'").get() as {
        n: number;
      }
    ).n;
    let start = process.hrtime.bigint();
    const cert = generateCertificate(ledger, {
      sessionId: 'certified',
      signer: { role: 'authority', key: authority },
      trustedKernelKeys: new Set([kernel.publicKeyHex]),
      requiredGuards: ['forbidden-path'],
    });
    const generate = session / (Number(process.hrtime.bigint() - start) / 1e9);
    start = process.hrtime.bigint();
    const verdict = verifyCertificate(cert, {
      trustedKernelKeys: new Set([kernel.publicKeyHex]),
      trustedAuthorityKeys: new Set([authority.publicKeyHex]),
      ledger,
    });
    const verifyFull = session / (Number(process.hrtime.bigint() - start) / 1e9);
    if (!verdict.passed) throw new Error(`bench certificate failed: ${verdict.reason}`);
    ledger.close();
    return { generate, verifyFull, receipts: session };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
