/**
 * `chio acp proxy [--allow-path <abs prefix>]… [--allow-command <name>]… [--allow-env <name>]… [--server-id <id>]
 * [--receipt-db <file>] [--kernel-seed-file <file>] [--redaction-key-file <file>] [--policy <file>] [--attestation
 * required|optional] [--enforce-capabilities] -- <agent command> [args…]`: the ACP proxy between
 * an editor (this process's stdin/stdout) and an agent it spawns. stdout carries ACP messages
 * only; diagnostics go to stderr. Arguments after `--` reach the agent exactly as given.
 * Owns: wiring CLI flags to src/proxy/acp. Goes through src/proxy and src/kernel.
 */
import { shownLocation } from '../../src/ledger/pg/index.js';
import type { CommandModule } from 'yargs';
import { ChioError } from '../../src/errors.js';
import { defaultPolicy, Kernel, loadPolicy } from '../../src/kernel/index.js';
import {
  ACP_MAX_MESSAGE_BYTES,
  AcpProxy,
  AcpProxyConfig,
  DEFAULT_SERVER_ID,
  KernelCapabilityChecker,
} from '../../src/proxy/acp/index.js';
import type { GlobalArgs } from '../options.js';
import { checkpointOptions, checkpointSchedule } from '../checkpoint-options.js';
import type { CheckpointArgs } from '../checkpoint-options.js';
import { asArray, trustedKeys } from '../options.js';

interface ProxyArgs extends GlobalArgs, CheckpointArgs {
  'allow-path'?: string[];
  'allow-command'?: string[];
  'allow-env'?: string[];
  'server-id': string;
  'kernel-seed-file'?: string;
  'redaction-key-file'?: string;
  'trusted-kernel-pubkey'?: string[];
  policy?: string;
  attestation: 'required' | 'optional';
  'enforce-capabilities': boolean;
  'max-message-bytes': number;
}

/** The words after the first `--`, untouched by the option parser (yargs would turn `007` into 7). */
function agentCommand(): string[] {
  const argv = process.argv.slice(2);
  const i = argv.indexOf('--');
  return i < 0 ? [] : argv.slice(i + 1);
}

const proxy: CommandModule<GlobalArgs, ProxyArgs> = {
  command: 'proxy',
  describe:
    "Run an ACP agent behind Chio: `chio acp proxy [options] -- <agent command …>` (configure this as the editor's agent)",
  builder: (y) =>
    y
      .option('allow-path', {
        type: 'string',
        array: true,
        describe: 'absolute path prefix the agent may read, write and run terminals in (repeatable; none: all denied)',
      })
      .option('allow-command', {
        type: 'string',
        array: true,
        describe: 'command the agent may run, matched exactly (repeatable; none: all denied)',
      })
      .option('allow-env', {
        type: 'string',
        array: true,
        describe:
          'environment variable terminal/create may set although it loads code or moves configuration (repeatable, exact name)',
      })
      .option('server-id', {
        type: 'string',
        default: DEFAULT_SERVER_ID,
        describe: 'tool server id recorded in receipts',
      })
      .option('kernel-seed-file', {
        type: 'string',
        describe: 'kernel key that signs receipts; generated for the run when absent',
      })
      .option('policy', {
        type: 'string',
        describe: 'policy for the kernel checker (default: the built-in secure defaults)',
      })
      .option('redaction-key-file', {
        type: 'string',
        describe: 'operator redaction key (`chio receipt redaction-key`); required when the policy redacts',
      })
      .option('trusted-kernel-pubkey', {
        type: 'string',
        array: true,
        describe:
          'public key file of another kernel sharing the ledger whose receipts count towards budgets and revocations (repeatable)',
      })
      .option('attestation', {
        choices: ['required', 'optional'] as const,
        default: 'optional' as const,
        describe: 'required: a tool-call update whose receipt cannot be written is not forwarded',
      })
      .option('enforce-capabilities', {
        type: 'boolean',
        default: false,
        describe: 'install the kernel checker: fs/terminal requests must present a kernel-issued capability token',
      })
      .option('max-message-bytes', {
        type: 'number',
        default: ACP_MAX_MESSAGE_BYTES,
        describe: "larger messages are refused (default 32 MiB, the ACP SDK's own limit)",
      })
      .options(checkpointOptions),
  handler: async (args) => {
    const command = agentCommand();
    if (command.length === 0)
      throw new ChioError('CHIO-CLI-USAGE', 'name the agent: chio acp proxy [options] -- <agent command …>');
    let config = AcpProxyConfig.new(command[0]!, command.slice(1))
      .withServerId(args['server-id'])
      .withAttestation(args.attestation);
    for (const p of args['allow-path'] ?? []) config = config.withAllowedPathPrefix(p);
    for (const c of args['allow-command'] ?? []) config = config.withAllowedCommand(c);
    for (const e of args['allow-env'] ?? []) config = config.withAllowedEnv(e);
    const kernel = await Kernel.connect({
      ledgerPath: args['receipt-db'],
      ...(args['kernel-seed-file'] === undefined ? {} : { seedFile: args['kernel-seed-file'] }),
      ...(args['redaction-key-file'] === undefined ? {} : { redactionKeyFile: args['redaction-key-file'] }),
      trustedKernelKeys: [...(trustedKeys(asArray(args['trusted-kernel-pubkey'])) ?? [])],
      checkpoints: checkpointSchedule(args),
      policy: args.policy === undefined ? defaultPolicy() : loadPolicy(args.policy),
      producer: 'acp-proxy',
    });
    if (kernel.keyGenerated)
      process.stderr.write(
        `chio: generated kernel key ${kernel.publicKeyHex} for this run (receipts in ${shownLocation(args['receipt-db'])}); pass --kernel-seed-file to keep one\n`,
      );
    try {
      const checker = args['enforce-capabilities'] ? new KernelCapabilityChecker(kernel, config.serverId) : undefined;
      const running = AcpProxy.start({
        config,
        kernel,
        ...(checker === undefined ? {} : { checker }),
        input: process.stdin,
        output: process.stdout,
        maxMessageBytes: args['max-message-bytes'],
      });
      await running.closed;
    } finally {
      await kernel.close();
    }
  },
};

export const acpCommand: CommandModule<GlobalArgs, GlobalArgs> = {
  command: 'acp',
  describe: 'The ACP proxy',
  builder: (y) => y.command(proxy).demandCommand(1, 'name an acp command'),
  handler: () => {},
};
