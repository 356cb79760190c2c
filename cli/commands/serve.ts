/**
 * `chio serve --listen host:port --service-token T --receipt-db F`: the audit API (DESIGN §12) on
 * a read-only connection to the ledger, and the web explorer at `/`, until SIGINT or SIGTERM.
 * Owns: the service's flags and its lifetime. The HTTP API itself is src/projections/query.
 */
import { createServer } from 'node:http';
import type { CommandModule } from 'yargs';
import { z } from 'zod';
import { parseSeed, signerFromSeed } from '../../src/crypto/index.js';
import { ChioError } from '../../src/errors.js';
import { readInputFile } from '../../src/input-file.js';
import { closeAnyLedger, openAnyLedger, shownLocation } from '../../src/ledger/pg/index.js';
import type { CertificateSigner } from '../../src/projections/certificate/index.js';
import { explorerSite } from '../../src/projections/explorer/index.js';
import { auditApi } from '../../src/projections/query/index.js';
import { applyServerTimeouts, closeServer } from '../../src/wire/index.js';
import type { GlobalArgs } from '../options.js';
import { readTextFile } from '../options.js';

interface ServeArgs extends GlobalArgs {
  listen: string;
  'service-token'?: string | undefined;
  'service-token-file'?: string | undefined;
  'kernel-seed-file'?: string | undefined;
  'authority-seed-file'?: string | undefined;
}

/** The key /v1/sessions/{id}/certificate signs with, if one was named (never created). */
function certificateSigner(args: ServeArgs): CertificateSigner | undefined {
  const kernel = args['kernel-seed-file'];
  const authority = args['authority-seed-file'];
  if (kernel !== undefined && authority !== undefined)
    throw new ChioError(
      'CHIO-CLI-SERVICE-OPTIONS',
      'pass one of --kernel-seed-file and --authority-seed-file, not both: a certificate has one signer',
    );
  const path = kernel ?? authority;
  if (path === undefined) return undefined;
  const what = kernel !== undefined ? 'kernel seed file' : 'authority seed file';
  return {
    role: kernel !== undefined ? 'kernel' : 'authority',
    key: signerFromSeed(parseSeed(readInputFile(path, 'seed', what))),
  };
}

/**
 * A token short enough to guess in a few tries is refused (the API shows every receipt); under 16
 * characters the service starts with a warning (documentation examples use `demo-token`).
 */
const TokenSchema = z
  .string()
  .min(8, 'at least 8 characters')
  .max(4096)
  .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces');

function serviceToken(args: ServeArgs): string {
  const given = [args['service-token'], args['service-token-file']].filter((v) => v !== undefined);
  if (given.length !== 1)
    throw new ChioError('CHIO-CLI-SERVICE-OPTIONS', 'pass exactly one of --service-token and --service-token-file');
  const text = args['service-token'] ?? readTextFile(args['service-token-file']!, 'service token').trim();
  const parsed = TokenSchema.safeParse(text);
  if (!parsed.success)
    throw new ChioError('CHIO-CLI-SERVICE-OPTIONS', `the service token: ${parsed.error.issues[0]!.message}`);
  return parsed.data;
}

export const serveCommand: CommandModule<GlobalArgs, ServeArgs> = {
  command: 'serve',
  describe:
    'Serve the web explorer at / and the read-only audit API (GET /v1/receipts/query, /v1/receipts/{id}[/proof], /v1/sessions, /v1/sessions/{id}/receipts|certificate, /v1/ledger/head|checkpoint, /v1/denials) over the ledger',
  builder: (y) =>
    y
      .option('listen', { type: 'string', default: '127.0.0.1:8940', describe: 'host:port (port 0 picks a free one)' })
      .option('service-token', {
        type: 'string',
        describe:
          'the bearer token clients must send (visible to other local users in the process list: prefer --service-token-file)',
      })
      .option('service-token-file', { type: 'string', describe: 'a file holding the bearer token' })
      .option('kernel-seed-file', {
        type: 'string',
        describe: 'sign session certificates with this kernel key (the key that signed the sessions)',
      })
      .option('authority-seed-file', {
        type: 'string',
        describe: 'sign session certificates with this certifying authority key',
      }),
  handler: async (args) => {
    const token = serviceToken(args);
    if (token.length < 16)
      process.stderr.write(
        'chio: warning: the service token is shorter than 16 characters; use a long random one (e.g. `openssl rand -hex 32`) beyond a demo\n',
      );
    const signer = certificateSigner(args);
    const m = /^(.*):(\d{1,5})$/.exec(args.listen);
    if (m === null || Number(m[2]) > 65_535)
      throw new ChioError('CHIO-CLI-SERVICE-OPTIONS', `--listen ${args.listen}: expected host:port`);
    const ledger = await openAnyLedger(args['receipt-db'], { readonly: true });
    const api = auditApi({ ledger, token, certificateSigner: signer });
    const site = explorerSite();
    const server = createServer((req, res) => {
      if (!site(req, res)) api(req, res);
    });
    applyServerTimeouts(server);
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', (e) =>
          reject(
            new ChioError('CHIO-CLI-SERVICE-OPTIONS', `cannot listen on ${args.listen}: ${e.message}`, { cause: e }),
          ),
        );
        server.listen(Number(m[2]), m[1]!.replace(/^\[|\]$/g, ''), resolve);
      });
      const address = server.address() as { address: string; port: number };
      const host = address.address.includes(':') ? `[${address.address}]` : address.address;
      process.stderr.write(
        `chio: audit API at http://${host}:${address.port}/ (read-only: ${shownLocation(args['receipt-db'])}; the explorer is at /)\n`,
      );
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
    } finally {
      await closeServer(server);
      await closeAnyLedger(ledger);
    }
  },
};
