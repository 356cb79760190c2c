/**
 * `chio ledger copy --from A --to B`, and what `chio ledger verify` reads from a PostgreSQL ledger (DESIGN §11).
 * Owns: presenting copies and PostgreSQL verdicts. Reads and writes through src/ledger only.
 */
import type { CommandModule } from 'yargs';
import { EXIT } from '../../src/errors.js';
import type { ChainVerdict, PendingCallsReport } from '../../src/ledger/index.js';
import { copyLedger, openPgLedger, readPendingCallsPg, verifyChainPg } from '../../src/ledger/pg/index.js';
import { verifyTreePg } from '../../src/projections/checkpoints/index.js';
import type { ExternalNote, TreeVerdict } from '../../src/projections/checkpoints/index.js';
import type { GlobalArgs } from '../options.js';
import { out, outJson, setExit, table } from '../output.js';

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

function printVerdict(verdict: ChainVerdict, json: boolean, extra: Record<string, unknown> = {}): void {
  if (json) outJson({ ...verdict, ...extra });
  else if (verdict.ok) {
    const keys = Object.entries(verdict.kernelKeys).map(([k, n]) => `${k} (${n})`);
    out(
      `OK: ${plural(verdict.entries, 'entry', 'entries')} verified, ${plural(verdict.sessions, 'session', 'sessions')}, ${verdict.signaturesChecked ? 'signatures checked' : 'signatures NOT checked (--no-signatures)'}`,
    );
    out(
      table([
        [
          'head',
          verdict.head === null ? 'empty ledger' : `seq ${verdict.head.seq} entry_hash ${verdict.head.entryHash}`,
        ],
        ['kernel keys', keys.length === 0 ? '—' : keys.join(', ')],
      ]).replace(/^/gm, '  '),
    );
  } else {
    out(`FAIL: ${verdict.seq === null ? 'ledger' : `seq ${verdict.seq}`}: ${verdict.check}: ${verdict.message}`);
  }
  if (!verdict.ok) setExit(EXIT.verificationFailed);
}

/**
 * What `chio ledger verify` reads from a postgres:// ledger: the chain walked in one snapshot, the
 * reservations without a receipt, and the Merkle tree with its stored checkpoints and any notes
 * kept elsewhere (--checkpoint, --anchor-file). ledger.ts reports them as for SQLite.
 */
export async function readOnPostgres(
  url: string,
  options: {
    signatures: boolean;
    trusted: ReadonlySet<string> | undefined;
    maxAgeSeconds: number;
    notes: { external: ExternalNote[]; malformed: Array<{ source: string; reason: string }> };
  },
): Promise<{ verdict: ChainVerdict; pending: PendingCallsReport; tree: TreeVerdict }> {
  const ledger = await openPgLedger(url, { readonly: true });
  try {
    const verdict = await verifyChainPg(ledger, { signatures: options.signatures, trustedKernelKeys: options.trusted });
    const pending = await readPendingCallsPg(ledger, {
      now: Math.floor(Date.now() / 1000),
      maxAgeSeconds: options.maxAgeSeconds,
    });
    const tree = await verifyTreePg(ledger, {
      trustedKeys: options.trusted,
      external: options.notes.external,
      malformed: options.notes.malformed,
    });
    return { verdict, pending, tree };
  } finally {
    await ledger.close();
  }
}

interface CopyArgs extends GlobalArgs {
  from: string;
  to: string;
}

export const copyCommand: CommandModule<GlobalArgs, CopyArgs> = {
  command: 'copy',
  describe:
    'Copy every entry of one ledger into another, byte for byte (SQLite paths and postgres:// URLs alike); the target must be empty or a prefix of the source, and is verified after',
  builder: (y) =>
    y
      .option('from', {
        type: 'string',
        demandOption: true,
        describe: 'the source ledger (an SQLite path or a postgres:// URL), opened read-only',
      })
      .option('to', { type: 'string', demandOption: true, describe: 'the target ledger (created when missing)' }),
  handler: async (args) => {
    const result = await copyLedger(args.from, args.to);
    if (!args.json)
      out(
        `copied ${plural(result.copied, 'entry', 'entries')}${result.kept > 0 ? ` after the ${plural(result.kept, 'entry', 'entries')} the target already held` : ''}; the target:`,
      );
    printVerdict(result.verdict, args.json, { copied: result.copied, kept: result.kept });
  },
};
