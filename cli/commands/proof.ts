/**
 * `chio proof verify <proof.json> --checkpoint note.txt… --trusted-kernel-pubkey k.pub` (DESIGN §10):
 * checks an inclusion proof (one checkpoint of its tree size) or a consistency proof (checkpoints
 * of both sizes) offline, with no ledger. One line; exit 0 pass, 1 fail, 2 bad input.
 * Owns: presenting proof verdicts. Goes through src/projections/checkpoints.
 */
import type { Argv, CommandModule } from 'yargs';
import { ChioError, EXIT } from '../../src/errors.js';
import { readInputText } from '../../src/input-file.js';
import { verifyProof } from '../../src/projections/checkpoints/index.js';
import type { GlobalArgs } from '../options.js';
import { asArray, trustedKeys } from '../options.js';
import { out, outJson, setExit } from '../output.js';

interface VerifyArgs extends GlobalArgs {
  proof: string;
  checkpoint: string[];
  'trusted-kernel-pubkey': string[];
}

const verify: CommandModule<GlobalArgs, VerifyArgs> = {
  command: 'verify <proof>',
  describe: 'Check an inclusion or consistency proof against signed checkpoints, offline',
  builder: (y) =>
    y
      .positional('proof', { type: 'string', demandOption: true })
      .option('checkpoint', {
        type: 'string',
        array: true,
        demandOption: true,
        describe: 'a signed checkpoint note file (repeatable: a consistency proof needs both sizes)',
      })
      .option('trusted-kernel-pubkey', {
        type: 'string',
        array: true,
        demandOption: true,
        describe: 'public key file of a kernel trusted to sign checkpoints (repeatable)',
      }) as Argv<VerifyArgs>,
  handler: (args) => {
    const keys = trustedKeys(asArray(args['trusted-kernel-pubkey']));
    if (keys === undefined) throw new ChioError('CHIO-CLI-USAGE', '--trusted-kernel-pubkey is required');
    const notes = (asArray(args.checkpoint) ?? []).map((f) => readInputText(f, 'checkpoint', 'checkpoint note'));
    let proof: unknown;
    try {
      proof = JSON.parse(readInputText(args.proof, 'proof', 'proof file'));
    } catch (e) {
      if (e instanceof ChioError) throw e;
      throw new ChioError('CHIO-CLI-BAD-JSON', `${args.proof} is not JSON: ${(e as Error).message}`);
    }
    const v = verifyProof(proof, notes, [...keys]);
    if (args.json) outJson(v);
    else if (!v.ok) out(`FAIL: ${v.reason}`);
    else if (v.kind === 'inclusion')
      out(`PASS: entry seq ${v.seq} is in the tree of ${v.treeSize} entries signed by ${v.signerKey}`);
    else
      out(
        `PASS: the tree of ${v.newSize} entries extends the tree of ${v.oldSize} (checkpoints signed by ${v.signerKey})`,
      );
    if (!v.ok) setExit(EXIT.verificationFailed);
  },
};

export const proofCommand: CommandModule<GlobalArgs, GlobalArgs> = {
  command: 'proof',
  describe: 'Check Merkle proofs offline',
  builder: (y) => y.command(verify).demandCommand(1, 'name a proof command'),
  handler: () => {},
};
