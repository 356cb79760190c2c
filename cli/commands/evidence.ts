/**
 * `chio evidence export | verify` (DESIGN §10): one session as an evidence bundle an auditor checks
 * offline with only public keys. export takes the checkpoint and certificate it needs: made on the
 * spot with --kernel-seed-file (a checkpoint of the ledger as it is, and a certificate signed by
 * that kernel), else the latest stored checkpoint that covers the session and --certificate.
 * verify prints one line: PASS, or FAIL naming what failed and where; exit 0 pass, 1 fail, 2 bad input.
 * Owns: presenting bundles. Goes through src/projections/evidence.
 */
import type { Argv, CommandModule } from 'yargs';
import { parseSeed, signerFromSeed } from '../../src/crypto/index.js';
import { ChioError, EXIT } from '../../src/errors.js';
import { readInputFile, readInputText } from '../../src/input-file.js';
import { createCheckpoint, openLedger } from '../../src/ledger/index.js';
import type { StoredCheckpoint } from '../../src/ledger/index.js';
import { createCheckpointPg, isPostgresUrl, openPgLedger } from '../../src/ledger/pg/index.js';
import {
  CertificateSchema,
  generateCertificate,
  generateCertificateOn,
} from '../../src/projections/certificate/index.js';
import type { Certificate } from '../../src/projections/certificate/index.js';
import { exportEvidence, exportEvidencePg, verifyEvidenceBundle } from '../../src/projections/evidence/index.js';
import { describeIssues } from '../../src/validation.js';
import type { GlobalArgs } from '../options.js';
import { asArray, trustedKeys } from '../options.js';
import { writeOutputFile } from '../output-file.js';
import { out, outJson, setExit } from '../output.js';

interface ExportArgs extends GlobalArgs {
  'session-id': string;
  output: string;
  force: boolean;
  'kernel-seed-file'?: string;
  certificate?: string;
}

function readJson(path: string, kind: 'certificate' | 'evidence' | 'proof', what: string): unknown {
  const text = readInputText(path, kind, what);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ChioError('CHIO-CLI-BAD-JSON', `${path} is not JSON: ${(e as Error).message}`);
  }
}

const exportCommand: CommandModule<GlobalArgs, ExportArgs> = {
  command: 'export',
  describe: 'Write one session as an evidence bundle (entries, inclusion proofs, checkpoint, certificate)',
  builder: (y) =>
    y
      .option('session-id', { type: 'string', demandOption: true })
      .option('output', {
        type: 'string',
        demandOption: true,
        describe: 'the bundle file (an existing one is refused without --force)',
      })
      .option('force', { type: 'boolean', default: false })
      .option('kernel-seed-file', {
        type: 'string',
        describe: 'make a checkpoint and a certificate now, signed by this kernel key',
      })
      .option('certificate', {
        type: 'string',
        describe: "without --kernel-seed-file: the session's certificate (the latest stored checkpoint is used)",
      }) as Argv<ExportArgs>,
  handler: async (args) => {
    const seedFile = args['kernel-seed-file'];
    if (seedFile === undefined && args.certificate === undefined) {
      throw new ChioError(
        'CHIO-CLI-USAGE',
        'a bundle needs a certificate: give --kernel-seed-file (checkpoint and certificate made now) or --certificate cert.json',
      );
    }
    const onPg = isPostgresUrl(args['receipt-db']);
    const target = {
      path: args.output,
      force: args.force,
      inputs: [
        ...(onPg ? [] : [{ path: args['receipt-db'], what: 'receipt database', ledger: true }]),
        ...(seedFile === undefined ? [] : [{ path: seedFile, what: 'kernel seed file' }]),
      ],
    };
    let certificate: Certificate | undefined;
    if (args.certificate !== undefined) {
      const parsed = CertificateSchema.safeParse(readJson(args.certificate, 'certificate', 'certificate'));
      if (!parsed.success)
        throw new ChioError(
          'CHIO-CERT-INVALID',
          `${args.certificate} is not a compliance certificate: ${describeIssues(parsed.error).join('; ')}`,
        );
      certificate = parsed.data;
    }
    const signer =
      seedFile === undefined
        ? undefined
        : signerFromSeed(parseSeed(readInputFile(seedFile, 'seed', 'kernel seed file')));
    const sessionId = args['session-id'];
    let bundle;
    if (onPg) {
      const ledger = await openPgLedger(args['receipt-db'], { readonly: signer === undefined });
      try {
        const checkpoint = signer === undefined ? undefined : (await createCheckpointPg(ledger, signer)).checkpoint;
        if (signer !== undefined)
          certificate ??= await generateCertificateOn(ledger, { sessionId, signer: { role: 'kernel', key: signer } });
        bundle = await exportEvidencePg(ledger, { sessionId, certificate: certificate!, checkpoint });
      } finally {
        await ledger.close();
      }
    } else {
      const ledger = openLedger(args['receipt-db'], signer === undefined ? { readonly: true } : { create: false });
      try {
        let checkpoint: StoredCheckpoint | undefined;
        if (signer !== undefined) {
          checkpoint = createCheckpoint(ledger, signer).checkpoint;
          certificate ??= generateCertificate(ledger, { sessionId, signer: { role: 'kernel', key: signer } });
        }
        bundle = exportEvidence(ledger, { sessionId, certificate: certificate!, checkpoint });
      } finally {
        ledger.close();
      }
    }
    writeOutputFile(target, `${JSON.stringify(bundle)}\n`);
    if (args.json)
      outJson({
        output: args.output,
        session_id: bundle.session_id,
        receipts: bundle.entries.length,
        checkpoint_size: bundle.proofs[0]?.tree_size ?? null,
      });
    else
      out(
        `wrote ${args.output}: session ${bundle.session_id}, ${bundle.entries.length} receipts, proofs against the checkpoint of ${bundle.proofs[0]?.tree_size} entries`,
      );
  },
};

interface VerifyArgs extends GlobalArgs {
  bundle: string;
  'trusted-kernel-pubkey'?: string[];
  'trusted-authority-pubkey'?: string[];
}

const verifyCommand: CommandModule<GlobalArgs, VerifyArgs> = {
  command: 'verify <bundle>',
  describe:
    'Check an evidence bundle offline (no ledger): receipts, entry hashes, session chain, inclusion proofs, checkpoint, certificate',
  builder: (y) =>
    y
      .positional('bundle', { type: 'string', demandOption: true })
      .option('trusted-kernel-pubkey', {
        type: 'string',
        array: true,
        demandOption: true,
        describe: 'public key file of a trusted kernel (repeatable)',
      })
      .option('trusted-authority-pubkey', {
        type: 'string',
        array: true,
        describe: 'public key file of a trusted certifying authority (repeatable)',
      }) as Argv<VerifyArgs>,
  handler: (args) => {
    const kernels = trustedKeys(asArray(args['trusted-kernel-pubkey']));
    if (kernels === undefined)
      throw new ChioError(
        'CHIO-CLI-USAGE',
        '--trusted-kernel-pubkey is required: a bundle proves something only under a key you trust',
      );
    const authorities = trustedKeys(asArray(args['trusted-authority-pubkey']));
    const v = verifyEvidenceBundle(readJson(args.bundle, 'evidence', 'evidence bundle'), {
      trustedKernelKeys: kernels,
      trustedAuthorityKeys: authorities,
    });
    if (args.json) outJson(v);
    else if (v.ok)
      out(
        `PASS: session ${v.sessionId}: ${v.receipts} receipts, each in the checkpoint of ${v.treeSize} entries (root ${v.root}); certificate signed by ${v.certificateSigner}`,
      );
    else out(`FAIL: ${v.check}${v.seq === undefined ? '' : ` at seq ${v.seq}`}: ${v.reason}`);
    if (!v.ok) setExit(EXIT.verificationFailed);
  },
};

export const evidenceCommand: CommandModule<GlobalArgs, GlobalArgs> = {
  command: 'evidence',
  describe: 'Export and verify offline evidence bundles of one session',
  builder: (y) => y.command(exportCommand).command(verifyCommand).demandCommand(1, 'name an evidence command'),
  handler: () => {},
};
