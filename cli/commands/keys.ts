/**
 * `chio keys generate`: a new Ed25519 kernel seed in a file only its owner can read.
 * Owns: key files on disk. Never overwrites: files are created with O_EXCL ('wx').
 */
import { closeSync, existsSync, openSync, writeSync } from 'node:fs';
import type { CommandModule } from 'yargs';
import { generateSeed, signerFromSeed, toHex } from '../../src/crypto/index.js';
import { ChioError } from '../../src/errors.js';
import { out, outJson, table } from '../output.js';
import type { GlobalArgs } from '../options.js';

function createExclusive(path: string, contents: string, mode: number): void {
  let fd: number;
  try {
    fd = openSync(path, 'wx', mode);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new ChioError('CHIO-CLI-FILE-EXISTS', `${path} already exists; chio never overwrites a key file`);
    }
    throw new ChioError('CHIO-CLI-IO', `cannot create ${path}: ${(e as Error).message}`, { cause: e });
  }
  try {
    writeSync(fd, contents);
  } finally {
    closeSync(fd);
  }
}

interface GenerateArgs extends GlobalArgs {
  out: string;
  'pub-out'?: string;
}

const generate: CommandModule<GlobalArgs, GenerateArgs> = {
  command: 'generate',
  describe: 'Generate an Ed25519 kernel key: the seed file (mode 0600) and optionally the public key file',
  builder: (y) =>
    y
      .option('out', {
        type: 'string',
        demandOption: true,
        describe: 'seed file to create (64 hex characters); never overwritten',
      })
      .option('pub-out', { type: 'string', describe: 'public key file to create (64 hex characters)' }),
  handler: (args) => {
    const pubOut = args['pub-out'];
    for (const path of [args.out, pubOut]) {
      if (path !== undefined && existsSync(path)) {
        throw new ChioError('CHIO-CLI-FILE-EXISTS', `${path} already exists; chio never overwrites a key file`);
      }
    }
    const seed = generateSeed();
    const publicKey = signerFromSeed(seed).publicKeyHex;
    createExclusive(args.out, `${toHex(seed)}\n`, 0o600);
    seed.fill(0);
    if (pubOut !== undefined) createExclusive(pubOut, `${publicKey}\n`, 0o644);
    if (args.json) {
      outJson({ public_key: publicKey, seed_file: args.out, public_key_file: pubOut ?? null });
    } else {
      out(
        table([
          ['seed file', `${args.out} (mode 0600; keep it secret)`],
          ...(pubOut === undefined ? [] : [['public key file', pubOut] as [string, string]]),
          ['public key', publicKey],
        ]),
      );
    }
  },
};

export const keysCommand: CommandModule<GlobalArgs, GlobalArgs> = {
  command: 'keys',
  describe: 'Manage Ed25519 kernel keys',
  builder: (y) => y.command(generate).demandCommand(1, 'name a keys command'),
  handler: () => {},
};
