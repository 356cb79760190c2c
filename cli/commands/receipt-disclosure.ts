/**
 * Opening a redacted receipt's salted parameter_hash for an auditor (docs/receipts.md, what an
 * auditor can prove):
 *   chio receipt redaction-key --out <file>                         a new operator redaction key
 *   chio receipt disclose-salt <id> --redaction-key-file <file>     the operator: one receipt's salt
 *   chio receipt check-disclosure <id> --salt <hex> --parameters '<json>' | --parameters-file <file>
 *                                                                   the auditor: exit 0 if it opens, 1 if not
 * Owns: these commands. Reads receipts through src/ledger and checks them through src/receipt; the
 * key comes from src/kernel. Receipt ids, salts and parameters are user input; ledger rows are
 * attacker-controlled until verified.
 */
import { closeSync, existsSync, openSync, writeSync } from 'node:fs';
import type { CommandModule } from 'yargs';
import { ChioError, EXIT } from '../../src/errors.js';
import { readInputText } from '../../src/input-file.js';
import { RedactionKey } from '../../src/kernel/redaction-key.js';
import { findEntry, listEntries } from '../../src/ledger/index.js';
import type { EntryFilter, EntryPage } from '../../src/ledger/index.js';
import {
  closeAnyLedger,
  findEntryPg,
  isPg,
  listEntriesPg,
  openAnyLedger,
  shownLocation,
} from '../../src/ledger/pg/index.js';
import type { AnyLedger } from '../../src/ledger/pg/index.js';
import { checkDisclosure, parameterSaltMarker, saltInputOf, verifyReceipt } from '../../src/receipt/index.js';
import type { Receipt } from '../../src/receipt/index.js';
import type { GlobalArgs } from '../options.js';
import { asArray, trustedKeys } from '../options.js';
import { out, outJson, setExit, table } from '../output.js';

type Verified = { ok: true; receipt: Receipt } | { ok: false; message: string };

/** A page of entries from either store. */
const pageOf = async (
  ledger: AnyLedger,
  filter: EntryFilter,
  page: { limit: number; cursor?: number | undefined },
): Promise<EntryPage> => (isPg(ledger) ? listEntriesPg(ledger, filter, page) : listEntries(ledger, filter, page));

/** The receipt `id` (or a unique prefix) names in the ledger, verified (and signed by a trusted key when keys are given). */
async function readReceipt(
  ledger: AnyLedger,
  db: string,
  id: string,
  trusted: ReadonlySet<string> | undefined,
): Promise<Verified> {
  const found = isPg(ledger) ? await findEntryPg(ledger, id) : findEntry(ledger, id);
  if (found.entry === null) {
    throw new ChioError(
      'CHIO-CLI-RECEIPT-NOT-FOUND',
      found.matches > 1
        ? `receipt id prefix ${id} matches more than one receipt`
        : `no receipt ${id} in ${shownLocation(db)}`,
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(found.entry.body);
  } catch (e) {
    return { ok: false, message: `its stored body is not JSON: ${(e as Error).message}` };
  }
  const v = verifyReceipt(body, { trustedKernelKeys: trusted });
  return v.ok ? { ok: true, receipt: v.receipt } : { ok: false, message: `${v.check}: ${v.message}` };
}

interface KeyArgs extends GlobalArgs {
  out: string;
}

const redactionKey: CommandModule<GlobalArgs, KeyArgs> = {
  command: 'redaction-key',
  describe:
    'Create an operator redaction key (mode 0600, never overwritten): salts the parameter_hash of redacted receipts',
  builder: (y) =>
    y.option('out', {
      type: 'string',
      demandOption: true,
      describe: 'key file to create (64 hex characters); keep it, and keep it apart from the policy',
    }),
  handler: (args) => {
    if (existsSync(args.out))
      throw new ChioError('CHIO-CLI-FILE-EXISTS', `${args.out} already exists; chio never overwrites a key file`);
    const key = RedactionKey.generate();
    let fd: number;
    try {
      fd = openSync(args.out, 'wx', 0o600); // O_EXCL: a file or symlink planted at the path is refused, not followed
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST')
        throw new ChioError('CHIO-CLI-FILE-EXISTS', `${args.out} already exists; chio never overwrites a key file`);
      throw new ChioError('CHIO-CLI-IO', `cannot create ${args.out}: ${(e as Error).message}`, { cause: e });
    }
    try {
      writeSync(fd, `${key.exportHex()}\n`);
    } finally {
      closeSync(fd);
    }
    if (args.json) outJson({ key_file: args.out, key_id: key.id });
    else
      out(
        table([
          ['redaction key file', `${args.out} (mode 0600; keep it secret, keep a copy)`],
          ['key id', key.id],
        ]),
      );
  },
};

interface DiscloseArgs extends GlobalArgs {
  id: string;
  'redaction-key-file': string;
  'trusted-kernel-pubkey'?: string[];
}

const discloseSalt: CommandModule<GlobalArgs, DiscloseArgs> = {
  command: 'disclose-salt <id>',
  describe:
    "Print the parameter salt of one redacted receipt (id or unique prefix), derived from the operator's redaction key; no other receipt's salt is revealed",
  builder: (y) =>
    y
      .positional('id', { type: 'string', demandOption: true })
      .option('redaction-key-file', {
        type: 'string',
        demandOption: true,
        describe: 'the redaction key the producer ran with',
      })
      .option('trusted-kernel-pubkey', {
        type: 'string',
        array: true,
        describe: 'public key file; the receipt must be signed by one of these',
      }),
  handler: async (args) => {
    const key = RedactionKey.fromFile(args['redaction-key-file']);
    const trusted = trustedKeys(asArray(args['trusted-kernel-pubkey']));
    const ledger = await openAnyLedger(args['receipt-db'], { readonly: true });
    try {
      const v = await readReceipt(ledger, args['receipt-db'], args.id, trusted);
      if (!v.ok)
        throw new ChioError(
          'CHIO-REDACTION-RECEIPT-REFUSED',
          `receipt ${args.id} fails verification (${v.message}); no salt is disclosed for it`,
        );
      const r = v.receipt;
      const marker = parameterSaltMarker(r);
      if (marker === undefined) {
        throw new ChioError(
          'CHIO-REDACTION-NOT-SALTED',
          r.redaction_mode === 'none'
            ? `receipt ${r.id} is not redacted (redaction_mode none): its parameter_hash has no salt`
            : `receipt ${r.id} (redaction_mode ${r.redaction_mode}) carries no metadata.chio_parameter_salt: its parameter_hash was not salted`,
        );
      }
      if (marker.key_id !== key.id) {
        throw new ChioError(
          'CHIO-REDACTION-KEY-MISMATCH',
          `receipt ${r.id} was salted under redaction key ${marker.key_id}; ${args['redaction-key-file']} is key ${key.id}`,
        );
      }
      const input = saltInputOf(r);
      if (input === undefined)
        throw new ChioError(
          'CHIO-REDACTION-RECEIPT-REFUSED',
          `receipt ${r.id} has no signing nonce to derive its salt from`,
        );
      // A receipt forged to copy another one's capability, timestamp and nonce would get that
      // receipt's salt: disclose only for a receipt that names its salt input alone.
      let sharing = 0;
      let cursor: number | undefined;
      do {
        const page = await pageOf(
          ledger,
          { capabilityId: input.capabilityId, since: input.timestamp, until: input.timestamp },
          { limit: 1000, cursor },
        );
        for (const e of page.entries) {
          let nonce: unknown;
          try {
            nonce = (JSON.parse(e.body) as { metadata?: Record<string, unknown> }).metadata?.chio_receipt_signing_nonce;
          } catch {
            continue;
          }
          if (nonce === input.signingNonce) sharing += 1;
        }
        cursor = page.nextCursor ?? undefined;
      } while (cursor !== undefined);
      if (sharing !== 1) {
        throw new ChioError(
          'CHIO-REDACTION-RECEIPT-REFUSED',
          `${sharing} receipts in ${shownLocation(args['receipt-db'])} share receipt ${r.id}'s salt input (capability, timestamp, signing nonce); no salt is disclosed for them`,
        );
      }
      const salt = key.salt(input);
      if (args.json)
        outJson({ receipt_id: r.id, redaction_mode: r.redaction_mode, key_id: key.id, scheme: marker.scheme, salt });
      else out(salt);
    } finally {
      await closeAnyLedger(ledger);
    }
  },
};

interface CheckArgs extends GlobalArgs {
  id: string;
  salt: string;
  parameters?: string;
  'parameters-file'?: string;
  'trusted-kernel-pubkey'?: string[];
}

function disclosedParameters(args: CheckArgs): unknown {
  const inline = args.parameters;
  const file = args['parameters-file'];
  if ((inline === undefined) === (file === undefined))
    throw new ChioError(
      'CHIO-CLI-USAGE',
      'give the disclosed parameters with exactly one of --parameters <json> and --parameters-file <file>',
    );
  const text = inline ?? readInputText(file!, 'receipts', 'parameters file');
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new ChioError('CHIO-CLI-BAD-JSON', `the disclosed parameters are not JSON: ${(e as Error).message}`);
  }
}

const checkDisclosureCommand: CommandModule<GlobalArgs, CheckArgs> = {
  command: 'check-disclosure <id>',
  describe:
    "Check disclosed parameters and salt against a redacted receipt's parameter_hash: exit 0 if they open it, 1 if not",
  builder: (y) =>
    y
      .positional('id', { type: 'string', demandOption: true })
      .option('salt', {
        type: 'string',
        demandOption: true,
        describe: "the receipt's salt (64 hex), from `chio receipt disclose-salt`",
      })
      .option('parameters', { type: 'string', describe: 'the original parameters, as JSON' })
      .option('parameters-file', { type: 'string', describe: 'a file holding the original parameters as JSON' })
      .option('trusted-kernel-pubkey', {
        type: 'string',
        array: true,
        describe: 'public key file; the receipt must be signed by one of these',
      }),
  handler: async (args) => {
    const salt = String(args.salt);
    if (!/^[0-9a-f]{64}$/.test(salt))
      throw new ChioError('CHIO-CLI-USAGE', '--salt: a salt is 64 lowercase hex characters');
    const parameters = disclosedParameters(args);
    const trusted = trustedKeys(asArray(args['trusted-kernel-pubkey']));
    const ledger = await openAnyLedger(args['receipt-db'], { readonly: true });
    let v: Verified;
    try {
      v = await readReceipt(ledger, args['receipt-db'], args.id, trusted);
    } finally {
      await closeAnyLedger(ledger);
    }
    const report = (ok: boolean, id: string, message: string, extra: Record<string, unknown> = {}) => {
      if (args.json) outJson({ ok, receipt_id: id, ...extra, ...(ok ? {} : { message }) });
      else out(ok ? `OK: ${message}` : `FAIL: ${message}`);
      if (!ok) setExit(EXIT.verificationFailed);
    };
    if (!v.ok)
      return report(false, args.id, `receipt ${args.id} fails verification: ${v.message}`, { check: 'receipt' });
    const r = v.receipt;
    const d = checkDisclosure(r, salt, parameters);
    if (!d.ok && d.reason === 'not_salted') throw new ChioError('CHIO-REDACTION-NOT-SALTED', d.message);
    if (!d.ok) return report(false, r.id, `receipt ${r.id}: ${d.message}`, { check: d.reason });
    report(
      true,
      r.id,
      `receipt ${r.id} (redaction_mode ${r.redaction_mode}): the disclosed parameters and salt hash to its parameter_hash ${d.parameterHash}`,
      { parameter_hash: d.parameterHash },
    );
  },
};

export { redactionKey as redactionKeyCommand, discloseSalt as discloseSaltCommand, checkDisclosureCommand };
