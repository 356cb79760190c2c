/**
 * `chio cert generate | verify | inspect`: compliance certificates over one session.
 * Output follows the product's documented behaviour: generate writes the file and prints nothing
 * with --output (and no --json); verify prints one line and exits 0 pass / 1 fail / 2 bad input;
 * inspect prints the body's thirteen lines without checking anything.
 * --output never overwrites an existing file without --force, and never the command's own inputs
 * (output-file.ts); every input file is read through the size-capped reader (src/input-file.ts).
 * generate signs with a key the user names (--kernel-seed-file or --authority-seed-file) and never
 * creates one: a key no verifier knows would make a certificate nobody can trust. verify accepts
 * only a signer the user trusts (--trusted-kernel-pubkey, --trusted-authority-pubkey).
 * Owns: certificate presentation. Goes through src/projections/certificate.
 */
import type { CommandModule } from 'yargs';
import { z } from 'zod';
import { parseSeed, signerFromSeed } from '../../src/crypto/index.js';
import { ChioError, EXIT } from '../../src/errors.js';
import { closeAnyLedger, isPostgresUrl, openAnyLedger } from '../../src/ledger/pg/index.js';
import {
  CertificateSchema,
  generateCertificateOn,
  verifyCertificateOn,
} from '../../src/projections/certificate/index.js';
import type { Certificate, CertificateSigner } from '../../src/projections/certificate/index.js';
import { readInputFile } from '../../src/input-file.js';
import { describeIssues } from '../../src/validation.js';
import type { GlobalArgs } from '../options.js';
import { asArray, parseFlag, readTextFile, trustedKeys } from '../options.js';
import { checkOutputPath, writeOutputFile } from '../output-file.js';
import type { OutputTarget } from '../output-file.js';
import { out, outJson, setExit } from '../output.js';
import { progressBar } from '../progress.js';

/** --receipt-db has a default for every other command; the cert commands need it named. */
function receiptDbGiven(): boolean {
  return process.argv.some((a) => a === '--receipt-db' || a.startsWith('--receipt-db='));
}

/** The seed file the user named for the certificate's signer, and its role; refused when none or both are named. */
function signerFile(args: GenerateArgs): { role: CertificateSigner['role']; path: string; what: string } {
  const kernel = args['kernel-seed-file'];
  const authority = args['authority-seed-file'];
  if (kernel !== undefined && authority !== undefined)
    throw new ChioError(
      'CHIO-CLI-USAGE',
      'pass one of --kernel-seed-file and --authority-seed-file, not both: a certificate has one signer',
    );
  if (kernel !== undefined) return { role: 'kernel', path: kernel, what: 'kernel seed file' };
  if (authority !== undefined) return { role: 'authority', path: authority, what: 'authority seed file' };
  throw new ChioError(
    'CHIO-CLI-CERT-SIGNER-REQUIRED',
    'cert generate needs a signing key: --kernel-seed-file (the kernel that signed the session) or --authority-seed-file; it never creates one',
  );
}

function readCertificate(path: string): Certificate {
  let value: unknown;
  try {
    value = JSON.parse(readTextFile(path, 'certificate'));
  } catch (e) {
    if (e instanceof ChioError) throw e;
    throw new ChioError('CHIO-CERT-INVALID', `${path} is not JSON: ${(e as Error).message}`);
  }
  const parsed = CertificateSchema.safeParse(value);
  if (!parsed.success)
    throw new ChioError(
      'CHIO-CERT-INVALID',
      `${path} is not a compliance certificate: ${describeIssues(parsed.error).join('; ')}`,
    );
  return parsed.data;
}

interface GenerateArgs extends GlobalArgs {
  'session-id': string;
  'budget-limit': number;
  'authorized-scope'?: string[];
  'required-guard'?: string[];
  'trusted-kernel-pubkey'?: string[];
  'kernel-seed-file'?: string;
  'authority-seed-file'?: string;
  output?: string;
  force: boolean;
}

const generate: CommandModule<GlobalArgs, GenerateArgs> = {
  command: 'generate',
  describe: 'Sign a compliance certificate for one session (fails, never certifies a failure)',
  builder: (y) =>
    y
      .option('session-id', { type: 'string', demandOption: true })
      .option('budget-limit', { type: 'number', default: 0, describe: 'most allowed receipts (0 = unlimited)' })
      .option('authorized-scope', {
        type: 'string',
        array: true,
        describe: 'tool-name prefix an allowed call must have (repeatable)',
      })
      .option('required-guard', {
        type: 'string',
        array: true,
        describe: 'guard that must have passed on every allowed call (repeatable)',
      })
      .option('trusted-kernel-pubkey', { type: 'string', array: true, describe: 'public key file of a trusted kernel' })
      .option('kernel-seed-file', {
        type: 'string',
        describe:
          'sign with this kernel key: the key that signed every receipt of the session (or --authority-seed-file)',
      })
      .option('authority-seed-file', {
        type: 'string',
        describe:
          'sign with this certifying authority key (verifiers pass its public key with --trusted-authority-pubkey)',
      })
      .option('output', {
        type: 'string',
        describe: 'write the certificate here (prints nothing unless --json); an existing file is refused',
      })
      .option('force', {
        type: 'boolean',
        default: false,
        describe:
          'replace an existing --output file (never the receipt database or a seed or key file this command reads)',
      }),
  handler: async (args) => {
    if (!receiptDbGiven())
      throw new ChioError('CHIO-CLI-USAGE', '--receipt-db is required: name the store that holds the session');
    // Before anything is read, opened or written: with no signer named there is nothing to do.
    const signerSeed = signerFile(args);
    const budgetLimit = parseFlag('budget-limit', z.number().int().nonnegative(), args['budget-limit']);
    const output: OutputTarget | undefined =
      args.output === undefined
        ? undefined
        : {
            path: args.output,
            force: args.force,
            inputs: [
              ...(isPostgresUrl(args['receipt-db'])
                ? []
                : [{ path: args['receipt-db'], what: 'receipt database', ledger: true }]),
              { path: signerSeed.path, what: signerSeed.what },
              ...(asArray(args['trusted-kernel-pubkey']) ?? []).map((p) => ({
                path: p,
                what: 'trusted kernel public key file',
              })),
            ],
          };
    // Refused before anything is generated or signed; checked again when the file is written.
    if (output !== undefined) checkOutputPath(output);
    const trusted = trustedKeys(asArray(args['trusted-kernel-pubkey']));
    const signer: CertificateSigner = {
      role: signerSeed.role,
      key: signerFromSeed(parseSeed(readInputFile(signerSeed.path, 'seed', signerSeed.what))),
    };
    const ledger = await openAnyLedger(args['receipt-db'], { readonly: true });
    const progress = progressBar('certifying', process.stderr.isTTY === true && !args.json);
    let cert: Certificate;
    try {
      cert = await generateCertificateOn(ledger, {
        sessionId: args['session-id'],
        budgetLimit,
        authorizedScopes: asArray(args['authorized-scope']) ?? [],
        requiredGuards: asArray(args['required-guard']) ?? [],
        trustedKernelKeys: trusted,
        signer,
        onProgress: progress.update,
      });
    } finally {
      progress.finish();
      await closeAnyLedger(ledger);
    }
    const text = `${JSON.stringify(cert, null, 2)}\n`;
    if (output !== undefined) writeOutputFile(output, text);
    if (args.json) outJson(cert);
    else if (output === undefined) out(text);
  },
};

interface VerifyArgs extends GlobalArgs {
  certificate: string;
  'trusted-kernel-pubkey'?: string[];
  'trusted-authority-pubkey'?: string[];
  full: boolean;
}

const verify: CommandModule<GlobalArgs, VerifyArgs> = {
  command: 'verify',
  describe:
    'Verify a certificate (one line; exit 0 pass, 1 fail, 2 bad input); --full re-verifies it against the receipt store',
  builder: (y) =>
    y
      .option('certificate', { type: 'string', demandOption: true })
      .option('trusted-kernel-pubkey', {
        type: 'string',
        array: true,
        describe:
          'public key file of a trusted kernel (repeatable): it may sign certificates for its own sessions, and pins the kernel key',
      })
      .option('trusted-authority-pubkey', {
        type: 'string',
        array: true,
        describe:
          'public key file of a trusted certifying authority (repeatable): it may sign certificates for any session',
      })
      .option('full', {
        type: 'boolean',
        default: false,
        describe: 're-verify every receipt, the session chain, the count and ledger_binding',
      }),
  handler: async (args) => {
    if (args.full && !receiptDbGiven()) {
      throw new ChioError(
        'CHIO-CLI-RECEIPT-STORE-REQUIRED',
        'full-bundle verification re-verifies every receipt signature and needs the receipt store',
      );
    }
    const kernelFiles = asArray(args['trusted-kernel-pubkey']) ?? [];
    const authorityFiles = asArray(args['trusted-authority-pubkey']) ?? [];
    if (kernelFiles.length === 0 && authorityFiles.length === 0) {
      throw new ChioError(
        'CHIO-CLI-USAGE',
        'pass --trusted-kernel-pubkey or --trusted-authority-pubkey (each repeatable): a certificate verifies only under a signer you trust, never under the key it names',
      );
    }
    if (args.full && kernelFiles.length === 0) {
      throw new ChioError(
        'CHIO-CLI-USAGE',
        '--full re-verifies every receipt under a trusted kernel key: pass --trusted-kernel-pubkey',
      );
    }
    const cert = readCertificate(args.certificate);
    const trusted = trustedKeys(kernelFiles);
    const authorities = trustedKeys(authorityFiles);
    const ledger = args.full ? await openAnyLedger(args['receipt-db'], { readonly: true }) : undefined;
    const progress = progressBar('verifying', process.stderr.isTTY === true && !args.json);
    let verdict;
    try {
      const options = { trustedKernelKeys: trusted, trustedAuthorityKeys: authorities, onProgress: progress.update };
      verdict = await verifyCertificateOn(cert, { ...options, ledger });
    } finally {
      progress.finish();
      if (ledger !== undefined) await closeAnyLedger(ledger);
    }
    if (args.json) outJson(verdict);
    else if (verdict.passed)
      out(
        `PASS: certificate for session ${cert.body.session_id} verified (${cert.body.receipt_count} receipts${verdict.full ? ', every receipt re-verified against the store' : ', signature and body only'})`,
      );
    else out(`FAIL: verification failed: ${verdict.reason}`);
    if (!verdict.passed) setExit(EXIT.verificationFailed);
  },
};

interface InspectArgs extends GlobalArgs {
  certificate: string;
}

/**
 * The documented layout of `chio cert inspect` (upstream chio-cli cert.rs): each label padded to a
 * fixed 16 columns, times as the body's Unix seconds (what the signature covers, not a rendering of
 * it), the anomalies block only when there are anomalies, between Guards and Signer key.
 */
const LABEL_WIDTH = 16;

const inspect: CommandModule<GlobalArgs, InspectArgs> = {
  command: 'inspect',
  describe: 'Print a certificate body (no signature check)',
  builder: (y) => y.option('certificate', { type: 'string', demandOption: true }),
  handler: (args) => {
    const { body: b, signer_key } = readCertificate(args.certificate);
    if (args.json) {
      outJson(b);
      return;
    }
    const line = (k: string, v: string) => `${k.padEnd(LABEL_WIDTH)}${v}`;
    const lines = [
      line('Session ID:', b.session_id),
      line('Schema:', b.schema),
      line('Issued at:', String(b.issued_at)),
      line('Receipt count:', String(b.receipt_count)),
      line('First receipt:', String(b.first_receipt_at)),
      line('Last receipt:', String(b.last_receipt_at)),
      line('Signatures:', b.all_signatures_valid ? 'valid' : 'INVALID'),
      line('Chain:', b.chain_continuous ? 'continuous' : 'BROKEN'),
      line('Scope:', b.scope_compliant ? 'compliant' : 'VIOLATED'),
      line('Budget:', b.budget_compliant ? 'compliant' : 'EXCEEDED'),
      line('Guards:', b.guards_compliant ? 'compliant' : 'BYPASSED'),
    ];
    if (b.anomalies.length > 0) {
      lines.push('Anomalies:');
      for (const a of b.anomalies) lines.push(`  - ${a}`);
    }
    lines.push(line('Signer key:', signer_key), line('Kernel key:', b.kernel_key));
    out(lines.join('\n'));
  },
};

export const certCommand: CommandModule<GlobalArgs, GlobalArgs> = {
  command: 'cert',
  describe: 'Compliance certificates over one session',
  builder: (y) => y.command(generate).command(verify).command(inspect).demandCommand(1, 'name a cert command'),
  handler: () => {},
};
