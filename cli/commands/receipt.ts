/**
 * `chio receipt list | show | verify`: reading receipts out of a ledger, and checking receipt
 * files on their own (no ledger needed for verify). The disclosure commands (redaction-key,
 * disclose-salt, check-disclosure) live in receipt-disclosure.ts.
 * Owns: receipt presentation. Reads through src/ledger and src/receipt only.
 */
import type { CommandModule } from 'yargs';
import { z } from 'zod';
import { ChioError, EXIT } from '../../src/errors.js';
import { readInputFile, readInputStdin } from '../../src/input-file.js';
import { findEntry, listEntries } from '../../src/ledger/index.js';
import {
  closeAnyLedger,
  findEntryPg,
  isPg,
  listEntriesPg,
  openAnyLedger,
  shownLocation,
} from '../../src/ledger/pg/index.js';
import { verifyReceipt } from '../../src/receipt/index.js';
import type { GlobalArgs } from '../options.js';
import { asArray, parseFlag, parseTime, trustedKeys } from '../options.js';
import { checkDisclosureCommand, discloseSaltCommand, redactionKeyCommand } from './receipt-disclosure.js';
import { isoTime, out, outJson, setExit, table, writeErr } from '../output.js';

interface ListArgs extends GlobalArgs {
  'tool-server'?: string;
  'tool-name'?: string;
  outcome?: string;
  'session-id'?: string;
  capability?: string;
  since?: string;
  until?: string;
  limit: number;
  cursor?: number;
}

const list: CommandModule<GlobalArgs, ListArgs> = {
  command: 'list',
  describe: 'Signed receipts as JSON Lines on stdout, in ledger order; `next_cursor=… total_count=…` on stderr',
  builder: (y) =>
    y
      .option('tool-server', { type: 'string' })
      .option('tool-name', { type: 'string' })
      .option('outcome', { type: 'string', choices: ['allow', 'deny', 'cancelled', 'incomplete'] })
      .option('session-id', { type: 'string' })
      .option('capability', { type: 'string', describe: 'capability id' })
      .option('since', { type: 'string', describe: 'Unix seconds or ISO 8601, inclusive' })
      .option('until', { type: 'string', describe: 'Unix seconds or ISO 8601, inclusive' })
      .option('limit', { type: 'number', default: 50, describe: 'receipts per page (1–10000)' })
      .option('cursor', { type: 'number', describe: 'next_cursor of the previous page' }),
  handler: async (args) => {
    const limit = parseFlag('limit', z.number().int().min(1).max(10_000), args.limit);
    const cursor =
      args.cursor === undefined ? undefined : parseFlag('cursor', z.number().int().nonnegative(), args.cursor);
    const filter = {
      toolServer: args['tool-server'],
      toolName: args['tool-name'],
      outcome: args.outcome,
      sessionId: args['session-id'],
      capabilityId: args.capability,
      since: parseTime('since', args.since),
      until: parseTime('until', args.until),
    };
    const ledger = await openAnyLedger(args['receipt-db'], { readonly: true });
    try {
      const page = isPg(ledger)
        ? await listEntriesPg(ledger, filter, { limit, cursor })
        : listEntries(ledger, filter, { limit, cursor });
      for (const entry of page.entries) out(entry.body);
      writeErr(`next_cursor=${page.nextCursor ?? 'none'} total_count=${page.totalCount}\n`);
    } finally {
      await closeAnyLedger(ledger);
    }
  },
};

interface ShowArgs extends GlobalArgs {
  id: string;
}

const show: CommandModule<GlobalArgs, ShowArgs> = {
  command: 'show <id>',
  describe: 'One receipt and its place in the chain (id or a unique prefix of at least 8 hex characters)',
  builder: (y) => y.positional('id', { type: 'string', demandOption: true }),
  handler: async (args) => {
    const ledger = await openAnyLedger(args['receipt-db'], { readonly: true });
    let found;
    try {
      found = isPg(ledger) ? await findEntryPg(ledger, args.id) : findEntry(ledger, args.id);
    } finally {
      await closeAnyLedger(ledger);
    }
    if (found.entry === null) {
      throw new ChioError(
        'CHIO-CLI-RECEIPT-NOT-FOUND',
        found.matches > 1
          ? `receipt id prefix ${args.id} matches more than one receipt`
          : `no receipt ${args.id} in ${shownLocation(args['receipt-db'])}`,
      );
    }
    const e = found.entry;
    const receipt = JSON.parse(e.body) as Record<string, unknown>;
    const verdict = verifyReceipt(receipt);
    const position = {
      seq: e.seq,
      session_id: e.sessionId,
      session_prev_seq: e.sessionPrevSeq,
      prev_hash: e.prevHash,
      entry_hash: e.entryHash,
      producer: e.producer,
    };
    if (args.json) {
      outJson({ ...position, valid: verdict.ok, ...(verdict.ok ? {} : { failed_check: verdict.check }), receipt });
      return;
    }
    const decision = receipt.decision as { verdict: string; reason?: string; guard?: string } | undefined;
    out(
      table([
        ['receipt', e.receiptId],
        [
          'seq',
          `${e.seq}${e.sessionId === null ? '' : ` (session ${e.sessionId}, previous in session: ${e.sessionPrevSeq ?? 'none'})`}`,
        ],
        ['time', isoTime(e.timestamp)],
        ['tool', `${e.toolServer} / ${e.toolName}`],
        [
          'decision',
          decision === undefined
            ? `none (${e.receiptKind})`
            : `${decision.verdict}${decision.reason === undefined ? '' : `: ${decision.reason}`}${decision.guard === undefined ? '' : ` [${decision.guard}]`}`,
        ],
        ['kind', `${e.receiptKind} / ${String(receipt.boundary_class)} / ${e.trustLevel}`],
        ['kernel key', e.kernelKey],
        ['signature', verdict.ok ? 'valid' : `INVALID (${verdict.check}: ${verdict.message})`],
        ['entry hash', e.entryHash],
      ]),
    );
    out(JSON.stringify(receipt, null, 2));
  },
};

interface VerifyArgs extends GlobalArgs {
  file: string;
  'trusted-kernel-pubkey'?: string[];
}

/** One JSON receipt, a JSON array of receipts, or JSON Lines. Attacker-controlled text. */
function parseReceipts(text: string, source: string): unknown[] {
  const trimmed = text.trim();
  if (trimmed === '') throw new ChioError('CHIO-CLI-BAD-JSON', `${source} is empty`);
  try {
    const whole = JSON.parse(trimmed) as unknown;
    return Array.isArray(whole) ? whole : [whole];
  } catch {
    return trimmed
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((line, i) => {
        try {
          return JSON.parse(line) as unknown;
        } catch (e) {
          throw new ChioError('CHIO-CLI-BAD-JSON', `${source} line ${i + 1} is not JSON: ${(e as Error).message}`);
        }
      });
  }
}

const verify: CommandModule<GlobalArgs, VerifyArgs> = {
  command: 'verify <file>',
  describe:
    'Verify receipts in a file (or - for stdin): one JSON receipt, a JSON array, or JSON Lines; exit 1 if any fails',
  builder: (y) =>
    y.positional('file', { type: 'string', demandOption: true }).option('trusted-kernel-pubkey', {
      type: 'string',
      array: true,
      describe: 'public key file; receipts must be signed by one of these',
    }),
  handler: (args) => {
    const trusted = trustedKeys(asArray(args['trusted-kernel-pubkey']));
    // yargs hands a lone "-" positional over as "".
    const fromStdin = args.file === '-' || args.file === '';
    // Size-capped, regular files only (a pipe is fine on stdin): src/input-file.ts.
    const text = (
      fromStdin ? readInputStdin('receipts') : readInputFile(args.file, 'receipts', 'receipts file')
    ).toString('utf8');
    const receipts = parseReceipts(text, fromStdin ? 'stdin' : args.file);
    const results = receipts.map((r, i) => {
      const v = verifyReceipt(r, { trustedKernelKeys: trusted });
      return v.ok
        ? { index: i, ok: true as const, id: v.id, kernel_key: v.receipt.kernel_key }
        : { index: i, ok: false as const, id: v.id ?? null, check: v.check, message: v.message };
    });
    const failed = results.filter((r) => !r.ok).length;
    if (args.json) {
      outJson({ ok: failed === 0, verified: results.length, failed, results });
    } else {
      for (const r of results) {
        out(
          r.ok
            ? `OK: receipt ${r.id} (kernel_key ${r.kernel_key})`
            : `FAIL: receipt ${r.id ?? `#${r.index + 1}`}: ${r.check}: ${r.message}`,
        );
      }
      if (results.length > 1) out(`${results.length} receipts: ${results.length - failed} valid, ${failed} invalid`);
    }
    if (failed > 0) setExit(EXIT.verificationFailed);
  },
};

export const receiptCommand: CommandModule<GlobalArgs, GlobalArgs> = {
  command: 'receipt',
  describe: 'List, show and verify signed receipts; disclose and check the salt of a redacted one',
  builder: (y) =>
    y
      .command(list)
      .command(show)
      .command(verify)
      .command(redactionKeyCommand)
      .command(discloseSaltCommand)
      .command(checkDisclosureCommand)
      .demandCommand(1, 'name a receipt command'),
  handler: () => {},
};
