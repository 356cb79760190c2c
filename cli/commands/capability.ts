/**
 * `chio capability revoke <capability-id>`: appends a kernel-signed revocation to the ledger; the
 * kernel then denies that token and every token delegated from it, in every process that reads
 * this ledger. Signing needs the kernel's seed: only the kernel key the ledger's readers trust
 * can revoke.
 * Owns: the CLI surface of revocation. Goes through src/kernel.
 */
import type { CommandModule } from 'yargs';
import { ChioError } from '../../src/errors.js';
import { defaultPolicy, Kernel, loadPolicy } from '../../src/kernel/index.js';
import type { GlobalArgs } from '../options.js';
import { out, outJson, table } from '../output.js';

interface RevokeArgs extends GlobalArgs {
  'capability-id': string;
  'kernel-seed-file': string;
  reason?: string;
  policy?: string;
}

const revoke: CommandModule<GlobalArgs, RevokeArgs> = {
  command: 'revoke <capability-id>',
  describe: 'Append a kernel-signed revocation of a capability (and so of every token delegated from it)',
  builder: (y) =>
    y
      .positional('capability-id', { type: 'string', demandOption: true })
      .option('kernel-seed-file', {
        type: 'string',
        demandOption: true,
        describe: 'the kernel key that signs the revocation',
      })
      .option('reason', { type: 'string', describe: 'recorded in the revocation' })
      .option('policy', {
        type: 'string',
        describe: 'policy whose hash the revocation records (default: the built-in one)',
      }),
  handler: async (args) => {
    const id = args['capability-id'];
    if (!/^cap-[0-9a-f-]{36}$/.test(id))
      throw new ChioError('CHIO-CLI-USAGE', `${id} is not a capability id (cap-<uuidv7>)`);
    const kernel = await Kernel.connect({
      ledgerPath: args['receipt-db'],
      seedFile: args['kernel-seed-file'],
      policy: args.policy === undefined ? defaultPolicy() : loadPolicy(args.policy),
      producer: 'cli',
    });
    try {
      const { receipt, entry } = await kernel.revokeCapability(id, args.reason);
      if (args.json) outJson({ revoked: id, receipt_id: receipt.id, seq: entry.seq, kernel_key: receipt.kernel_key });
      else
        out(
          table([
            ['revoked', id],
            ['receipt', receipt.id],
            ['seq', String(entry.seq)],
            ['kernel key', receipt.kernel_key],
          ]),
        );
    } finally {
      await kernel.close();
    }
  },
};

export const capabilityCommand: CommandModule<GlobalArgs, GlobalArgs> = {
  command: 'capability',
  describe: 'Manage capability tokens',
  builder: (y) => y.command(revoke).demandCommand(1, 'name a capability command'),
  handler: () => {},
};
