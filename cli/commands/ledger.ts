/**
 * `chio ledger verify | stats | rebuild-projections`: the auditor's view of a whole ledger file.
 * Owns: presenting chain verdicts and statistics. Reads through src/ledger only.
 */
import { statSync } from 'node:fs';
import type { CommandModule } from 'yargs';
import { EXIT } from '../../src/errors.js';
import { ledgerStats, openLedger, rebuildProjections, verifyChainParallel } from '../../src/ledger/index.js';
import type { GlobalArgs } from '../main.js';
import { asArray, trustedKeys } from '../options.js';
import { isoTime, out, outJson, setExit, table } from '../output.js';
import { progressBar } from '../progress.js';

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

interface VerifyArgs extends GlobalArgs {
  signatures: boolean;
  'trusted-kernel-pubkey'?: string[];
}

const verify: CommandModule<GlobalArgs, VerifyArgs> = {
  command: 'verify',
  describe: 'Verify the whole chain: seqs, hash links, bodies, signatures, session links (exit 1 on the first bad entry)',
  builder: (y) =>
    y
      .option('signatures', { type: 'boolean', default: true, describe: 'check every Ed25519 signature (--no-signatures: hashes and links only)' })
      .option('trusted-kernel-pubkey', { type: 'string', array: true, describe: 'public key file; every receipt must be signed by one of these' }),
  handler: async (args) => {
    const trusted = trustedKeys(asArray(args['trusted-kernel-pubkey']));
    const ledger = openLedger(args['receipt-db'], { readonly: true });
    const progress = progressBar('verifying', process.stderr.isTTY === true && !args.json);
    let verdict;
    try {
      verdict = await verifyChainParallel(ledger, { signatures: args.signatures, trustedKernelKeys: trusted, onProgress: progress.update });
    } finally {
      progress.finish();
      ledger.close();
    }
    if (args.json) {
      outJson(verdict);
    } else if (verdict.ok) {
      const keys = Object.entries(verdict.kernelKeys).map(([k, n]) => `${k} (${n})`);
      out(`OK: ${plural(verdict.entries, 'entry', 'entries')} verified, ${plural(verdict.sessions, 'session', 'sessions')}, ${verdict.signaturesChecked ? 'signatures checked' : 'signatures NOT checked (--no-signatures)'}`);
      out(table([
        ['head', verdict.head === null ? 'empty ledger' : `seq ${verdict.head.seq} entry_hash ${verdict.head.entryHash}`],
        ['kernel keys', keys.length === 0 ? '—' : keys.join(', ')],
        ['trust', trusted === undefined ? 'signatures checked against the key each receipt names; pass --trusted-kernel-pubkey to pin it' : `every receipt signed by a trusted key (${trusted.size} given)`],
      ]).replace(/^/gm, '  '));
    } else {
      out(`FAIL: ${verdict.seq === null ? 'ledger' : `seq ${verdict.seq}`}: ${verdict.check}: ${verdict.message}`);
    }
    if (!verdict.ok) setExit(EXIT.verificationFailed);
  },
};

const stats: CommandModule<GlobalArgs, GlobalArgs> = {
  command: 'stats',
  describe: 'Counts by kind, verdict, kernel key and producer; head of the chain; time span',
  handler: (args) => {
    const ledger = openLedger(args['receipt-db'], { readonly: true });
    let s;
    let schemaVersion: number;
    try {
      s = ledgerStats(ledger);
      schemaVersion = ledger.db.pragma('user_version', { simple: true }) as number;
    } finally {
      ledger.close();
    }
    const fileBytes = statSync(args['receipt-db']).size;
    if (args.json) {
      outJson({ path: args['receipt-db'], file_bytes: fileBytes, schema_version: schemaVersion, ...s });
      return;
    }
    const fmt = (r: Record<string, number>) => Object.entries(r).map(([k, n]) => `${k} ${n}`).join(', ') || '—';
    out(table([
      ['ledger', `${args['receipt-db']} (${fileBytes} bytes, schema version ${schemaVersion})`],
      ['entries', String(s.entries)],
      ['head', s.head === null ? '—' : `seq ${s.head.seq} entry_hash ${s.head.entryHash}`],
      ['sessions', String(s.sessions)],
      ['first', isoTime(s.firstTimestamp)],
      ['last', isoTime(s.lastTimestamp)],
      ['receipt kinds', fmt(s.byKind)],
      ['verdicts', fmt(s.byVerdict)],
      ['kernel keys', fmt(s.kernelKeys)],
      ['producers', fmt(s.producers)],
    ]));
  },
};

const rebuild: CommandModule<GlobalArgs, GlobalArgs> = {
  command: 'rebuild-projections',
  describe: 'Drop and re-derive the projections (sessions, revocations, grant usage) from the entries (the entries are never touched)',
  handler: (args) => {
    const ledger = openLedger(args['receipt-db'], { create: false });
    try {
      const n = rebuildProjections(ledger);
      if (args.json) outJson(n);
      else out(`rebuilt projections: ${n.sessions} sessions, ${n.revocations} revoked capabilities, ${n.grants} grant usage rows`);
    } finally {
      ledger.close();
    }
  },
};

export const ledgerCommand: CommandModule<GlobalArgs, GlobalArgs> = {
  command: 'ledger',
  describe: 'Verify and summarise a receipt ledger',
  builder: (y) => y.command(verify).command(stats).command(rebuild).demandCommand(1, 'name a ledger command'),
  handler: () => {},
};
