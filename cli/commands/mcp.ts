/**
 * `chio mcp serve [--policy] [--kernel-seed-file] [--server-id] -- <upstream command …>` (or
 * `--upstream-url <url>`): an MCP server on stdio in front of an existing MCP server; every
 * tools/call goes through the kernel and leaves a signed receipt before the response leaves.
 * stdout carries MCP messages only; everything else goes to stderr.
 * Owns: wiring CLI flags to the edge. Goes through src/edges/mcp and src/kernel.
 */
import type { CommandModule } from 'yargs';
import { McpSession, serveStdio, UpstreamMcpServer } from '../../src/edges/mcp/index.js';
import type { UpstreamTarget } from '../../src/edges/mcp/index.js';
import { ChioError } from '../../src/errors.js';
import { defaultPolicy, Kernel, loadPolicy } from '../../src/kernel/index.js';
import type { GlobalArgs } from '../main.js';

interface ServeArgs extends GlobalArgs {
  policy?: string;
  'kernel-seed-file'?: string;
  'server-id': string;
  'upstream-url'?: string;
  'max-message-bytes': number;
  '--'?: Array<string | number>;
}

const serve: CommandModule<GlobalArgs, ServeArgs> = {
  command: 'serve',
  describe: 'Serve MCP on stdio in front of an upstream MCP server (`-- <command …>` or --upstream-url), governing every tool call',
  builder: (y) =>
    y
      .option('policy', { type: 'string', describe: 'policy file (default: the built-in secure defaults)' })
      .option('kernel-seed-file', { type: 'string', describe: 'kernel key; a new one is generated (and its public key printed to stderr) when absent' })
      .option('server-id', { type: 'string', default: 'mcp', describe: 'tool server id recorded in receipts' })
      .option('upstream-url', { type: 'string', describe: 'wrap a Streamable HTTP MCP server instead of a command' })
      .option('max-message-bytes', { type: 'number', default: 4 * 1024 * 1024, describe: 'larger messages are refused' }),
  handler: async (args) => {
    const command = (args['--'] ?? []).map(String);
    let target: UpstreamTarget;
    if (args['upstream-url'] !== undefined) {
      if (command.length > 0) throw new ChioError('CHIO-CLI-USAGE', 'give either --upstream-url or a command after --, not both');
      target = { url: args['upstream-url'] };
    } else {
      if (command.length === 0) throw new ChioError('CHIO-CLI-USAGE', 'name the upstream MCP server: chio mcp serve -- <command …> (or --upstream-url <url>)');
      target = { command: command[0]!, args: command.slice(1), env: Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined)) };
    }
    const kernel = Kernel.open({
      ledgerPath: args['receipt-db'],
      ...(args['kernel-seed-file'] === undefined ? {} : { seedFile: args['kernel-seed-file'] }),
      policy: args.policy === undefined ? defaultPolicy() : loadPolicy(args.policy),
      producer: 'mcp-edge',
    });
    if (kernel.keyGenerated) {
      process.stderr.write(`chio: generated kernel key ${kernel.publicKeyHex} for this run (receipts in ${args['receipt-db']}); pass --kernel-seed-file to keep one\n`);
    }
    let upstream: UpstreamMcpServer | undefined;
    try {
      upstream = await UpstreamMcpServer.connect(target, args['server-id']);
      kernel.registerToolServer(upstream);
      await serveStdio(new McpSession({ kernel }), process.stdin, process.stdout, { maxMessageBytes: args['max-message-bytes'] });
    } finally {
      await upstream?.close().catch(() => {});
      await kernel.close();
    }
  },
};

export const mcpCommand: CommandModule<GlobalArgs, GlobalArgs> = {
  command: 'mcp',
  describe: 'The MCP edge',
  builder: (y) => y.command(serve).demandCommand(1, 'name an mcp command'),
  handler: () => {},
};
