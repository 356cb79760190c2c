/**
 * `chio ledger verify | stats | rebuild-projections | checkpoint | prove`: the auditor's view of a whole ledger file.
 * verify runs, in order: SQLite's structural check (`PRAGMA quick_check`; a damaged file stops
 * there), the chain walk, and the reservations without a receipt (pending_calls rows older than
 * --pending-max-age are dispatched calls whose receipt was never written: a failure), then the
 * Merkle tree and checkpoints (stored ones, and notes kept elsewhere: --checkpoint, --anchor-file).
 * Owns: presenting chain verdicts, reservations and statistics. Reads through src/ledger only.
 */
import { statSync } from 'node:fs';
import type { CommandModule } from 'yargs';
import { ChioError, EXIT } from '../../src/errors.js';
import {
  ledgerStats,
  openLedger,
  quickCheck,
  readPendingCalls,
  rebuildProjections,
  verifyChainParallel,
} from '../../src/ledger/index.js';
import type { ChainVerdict, LedgerStats, PendingCallsReport, UnreceiptedCall } from '../../src/ledger/index.js';
import type { TreeVerdict } from '../../src/projections/checkpoints/index.js';
import type { GlobalArgs } from '../options.js';
import { externalNotes, ledgerTreeCommands, runTreeVerify, treeReport } from './ledger-tree.js';
import { copyCommand, readOnPostgres } from './ledger-pg.js';
import {
  isPostgresUrl,
  ledgerStatsPg,
  openPgLedger,
  rebuildProjectionsPg,
  shownLocation,
} from '../../src/ledger/pg/index.js';
import { asArray, parseSeconds, trustedKeys } from '../options.js';
import { isoTime, out, outJson, setExit, table } from '../output.js';
import { progressBar } from '../progress.js';

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** Default --pending-max-age: a tool call still without its receipt after 15 minutes did not finish. */
const DEFAULT_PENDING_MAX_AGE = 900;

interface VerifyArgs extends GlobalArgs {
  signatures: boolean;
  'trusted-kernel-pubkey'?: string[];
  checkpoint?: string[];
  'anchor-file'?: string[];
  'pending-max-age': number;
}

/** SQLite's messages quote names from the file's schema: no control character reaches the terminal. */
const printable = (s: string) =>
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters it escapes
  s.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** 45s, 12m 05s, 3h 07m, 2d 04h. */
function age(seconds: number): string {
  const s = Math.abs(seconds);
  const pad = (n: number) => String(n).padStart(2, '0');
  const text =
    s < 60
      ? `${s}s`
      : s < 3600
        ? `${Math.floor(s / 60)}m ${pad(s % 60)}s`
        : s < 86_400
          ? `${Math.floor(s / 3600)}h ${pad(Math.floor(s / 60) % 60)}m`
          : `${Math.floor(s / 86_400)}d ${pad(Math.floor(s / 3600) % 24)}h`;
  return seconds < 0 ? `${text} in the future` : `${text} ago`;
}

/** One reservation on one line. Every value came from the file: JSON-quoted so none can fake a line. */
function callLine(c: UnreceiptedCall): string {
  const target =
    c.toolServer === null && c.toolName === null
      ? ''
      : `  tool ${JSON.stringify(`${c.toolServer ?? '?'}/${c.toolName ?? '?'}`)}`;
  const when =
    c.reservedAt === null ? 'reserved_at unreadable' : `reserved ${isoTime(c.reservedAt)}, ${age(c.ageSeconds!)}`;
  return `  request ${JSON.stringify(c.requestId)}  capability ${JSON.stringify(c.capabilityId)}  owner ${JSON.stringify(c.owner)}${target}  ${when}`;
}

function callJson(c: UnreceiptedCall) {
  return {
    request_id: c.requestId,
    capability_id: c.capabilityId,
    grant_index: c.grantIndex,
    owner: c.owner,
    tool_server: c.toolServer,
    tool_name: c.toolName,
    reserved_at: c.reservedAt,
    reserved_at_iso: c.reservedAt === null ? null : new Date(c.reservedAt * 1000).toISOString().replace('.000Z', 'Z'),
    age_seconds: c.ageSeconds,
  };
}

function pendingFailure(p: PendingCallsReport): string {
  return `${plural(p.withoutReceipt.length, 'dispatched tool call has', 'dispatched tool calls have')} no receipt (reserved more than ${p.maxAgeSeconds} s ago and still in pending_calls)`;
}

function printPending(p: PendingCallsReport): void {
  if (p.inFlight.length > 0) {
    out(
      `in flight: ${plural(p.inFlight.length, 'call', 'calls')} reserved in the last ${p.maxAgeSeconds} s without a receipt yet (not a failure)`,
    );
    for (const c of p.inFlight) out(callLine(c));
  }
  if (p.withoutReceipt.length > 0) {
    out(`FAIL: ${pendingFailure(p)}`);
    for (const c of p.withoutReceipt) out(callLine(c));
  }
}

const verify: CommandModule<GlobalArgs, VerifyArgs> = {
  command: 'verify',
  describe:
    'Verify the file (SQLite quick_check), the whole chain (seqs, hash links, bodies, signatures, session links) and that every dispatched call has its receipt (exit 1 on any failure)',
  builder: (y) =>
    y
      .option('signatures', {
        type: 'boolean',
        default: true,
        describe: 'check every Ed25519 signature (--no-signatures: hashes and links only)',
      })
      .option('trusted-kernel-pubkey', {
        type: 'string',
        array: true,
        describe: 'public key file; every receipt must be signed by one of these',
      })
      .option('pending-max-age', {
        type: 'number',
        default: DEFAULT_PENDING_MAX_AGE,
        describe:
          'seconds after which a reserved call without a receipt is a failure (younger ones are reported as in flight)',
      })
      .option('checkpoint', {
        type: 'string',
        array: true,
        describe:
          'a signed checkpoint note kept elsewhere: the ledger must still hold exactly its tree (repeatable; needs --trusted-kernel-pubkey)',
      })
      .option('anchor-file', {
        type: 'string',
        array: true,
        describe: 'an anchor file: every note in it is checked like --checkpoint (repeatable)',
      }),
  handler: async (args) => {
    const maxAgeSeconds = parseSeconds('pending-max-age', args['pending-max-age']);
    const trusted = trustedKeys(asArray(args['trusted-kernel-pubkey']));
    // Notes kept elsewhere are read (and refused when unreadable) before the ledger is opened.
    const notes = externalNotes(asArray(args.checkpoint) ?? [], asArray(args['anchor-file']) ?? []);
    if (trusted === undefined && notes.external.length + notes.malformed.length > 0) {
      throw new ChioError(
        'CHIO-CLI-USAGE',
        '--checkpoint and --anchor-file need --trusted-kernel-pubkey: a note proves something only under a key you trust',
      );
    }
    const onPg = isPostgresUrl(args['receipt-db']);
    let verdict: ChainVerdict;
    let pending: PendingCallsReport;
    let tree: TreeVerdict;
    if (onPg) {
      ({ verdict, pending, tree } = await readOnPostgres(args['receipt-db'], {
        signatures: args.signatures,
        trusted,
        maxAgeSeconds,
        notes,
      }));
    } else {
      const ledger = openLedger(args['receipt-db'], { readonly: true });
      const progress = progressBar('verifying', process.stderr.isTTY === true && !args.json);
      try {
        const integrity = quickCheck(ledger);
        if (!integrity.ok) {
          // A damaged file is not walked: its rows cannot be trusted to be all the rows.
          const message = `SQLite reports the file damaged (PRAGMA quick_check): ${integrity.problems.map(printable).join('; ')}`;
          if (args.json)
            outJson({
              ok: false,
              seq: null,
              check: 'sqlite_integrity',
              message,
              entriesChecked: 0,
              sqlite_integrity: integrity,
            });
          else out(`FAIL: ledger: sqlite_integrity: ${message}`);
          setExit(EXIT.verificationFailed);
          return;
        }
        verdict = await verifyChainParallel(ledger, {
          signatures: args.signatures,
          trustedKernelKeys: trusted,
          onProgress: progress.update,
        });
        pending = readPendingCalls(ledger, { now: Math.floor(Date.now() / 1000), maxAgeSeconds });
        tree = runTreeVerify(ledger, trusted, notes);
      } finally {
        progress.finish();
        ledger.close();
      }
    }
    const pendingFailed = pending.withoutReceipt.length > 0;
    const treeFailed = !tree.ok;
    const report = treeReport(tree);
    if (args.json) {
      outJson({
        ...verdict,
        ok: verdict.ok && !pendingFailed && !treeFailed,
        ...(verdict.ok && pendingFailed ? { seq: null, check: 'pending_calls', message: pendingFailure(pending) } : {}),
        ...(verdict.ok && !pendingFailed && treeFailed
          ? { seq: null, check: tree.failures[0]!.check, message: tree.failures[0]!.message }
          : {}),
        merkle: report.json,
        ...(onPg ? {} : { sqlite_integrity: { ok: true } }),
        pending_calls: {
          max_age_seconds: pending.maxAgeSeconds,
          checked_at: pending.now,
          without_receipt: pending.withoutReceipt.map(callJson),
          in_flight: pending.inFlight.map(callJson),
        },
      });
    } else if (verdict.ok) {
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
          ...(onPg ? [] : [['sqlite', 'quick_check ok'] as [string, string]]),
          [
            'trust',
            trusted === undefined
              ? 'signatures checked against the key each receipt names; pass --trusted-kernel-pubkey to pin it'
              : `every receipt signed by a trusted key (${trusted.size} given)`,
          ],
        ]).replace(/^/gm, '  '),
      );
    } else {
      out(`FAIL: ${verdict.seq === null ? 'ledger' : `seq ${verdict.seq}`}: ${verdict.check}: ${verdict.message}`);
    }
    if (!args.json) {
      printPending(pending);
      for (const line of report.lines) out(line);
    }
    if (!verdict.ok || pendingFailed || treeFailed) setExit(EXIT.verificationFailed);
  },
};

const stats: CommandModule<GlobalArgs, GlobalArgs> = {
  command: 'stats',
  describe: 'Counts by kind, verdict, kernel key and producer; head of the chain; time span',
  handler: async (args) => {
    let s: LedgerStats;
    let schemaVersion: number;
    let bytes: number;
    const location = args['receipt-db'];
    if (isPostgresUrl(location)) {
      const ledger = await openPgLedger(location, { readonly: true });
      try {
        ({ schemaVersion, databaseBytes: bytes, ...s } = await ledgerStatsPg(ledger));
      } finally {
        await ledger.close();
      }
    } else {
      const ledger = openLedger(location, { readonly: true });
      try {
        s = ledgerStats(ledger);
        schemaVersion = ledger.db.pragma('user_version', { simple: true }) as number;
      } finally {
        ledger.close();
      }
      bytes = statSync(location).size;
    }
    const shown = shownLocation(location);
    if (args.json) {
      outJson({
        path: shown,
        [isPostgresUrl(location) ? 'database_bytes' : 'file_bytes']: bytes,
        schema_version: schemaVersion,
        ...s,
      });
      return;
    }
    const fmt = (r: Record<string, number>) =>
      Object.entries(r)
        .map(([k, n]) => `${k} ${n}`)
        .join(', ') || '—';
    out(
      table([
        ['ledger', `${shown} (${bytes} bytes, schema version ${schemaVersion})`],
        ['entries', String(s.entries)],
        ['head', s.head === null ? '—' : `seq ${s.head.seq} entry_hash ${s.head.entryHash}`],
        ['sessions', String(s.sessions)],
        ['first', isoTime(s.firstTimestamp)],
        ['last', isoTime(s.lastTimestamp)],
        ['receipt kinds', fmt(s.byKind)],
        ['verdicts', fmt(s.byVerdict)],
        ['kernel keys', fmt(s.kernelKeys)],
        ['producers', fmt(s.producers)],
      ]),
    );
  },
};

const rebuild: CommandModule<GlobalArgs, GlobalArgs> = {
  command: 'rebuild-projections',
  describe:
    'Drop and re-derive the projections (sessions, revocations, grant usage, Merkle subtrees) from the entries (the entries and checkpoints are never touched)',
  handler: async (args) => {
    let n: { sessions: number; revocations: number; grants: number; subtrees: number };
    if (isPostgresUrl(args['receipt-db'])) {
      const ledger = await openPgLedger(args['receipt-db']);
      try {
        n = await rebuildProjectionsPg(ledger);
      } finally {
        await ledger.close();
      }
    } else {
      // create: false — only an existing Chio ledger; an empty or table-less file is refused, unchanged.
      const ledger = openLedger(args['receipt-db'], { create: false });
      try {
        n = rebuildProjections(ledger);
      } finally {
        ledger.close();
      }
    }
    if (args.json) outJson(n);
    else
      out(
        `rebuilt projections: ${n.sessions} sessions, ${n.revocations} revoked capabilities, ${n.grants} grant usage rows, ${n.subtrees} Merkle subtrees`,
      );
  },
};

export const ledgerCommand: CommandModule<GlobalArgs, GlobalArgs> = {
  command: 'ledger',
  describe: 'Verify and summarise a receipt ledger',
  builder: (y) =>
    y
      .command(verify)
      .command(stats)
      .command(rebuild)
      .command(copyCommand)
      .command(ledgerTreeCommands[0])
      .command(ledgerTreeCommands[1])
      .demandCommand(1, 'name a ledger command'),
  handler: () => {},
};
