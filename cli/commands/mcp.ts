/**
 * `chio mcp serve [--policy] [--kernel-seed-file] [--redaction-key-file] [--trusted-kernel-pubkey]… [--server-id] [--] <upstream command …>` (or
 * `--upstream-url <url>`): an MCP server on stdio in front of an existing MCP server, and
 * `chio mcp serve-http --listen host:port …` the same over Streamable HTTP. Every tools/call goes
 * through the kernel and leaves a signed receipt before the response leaves. On stdio, stdout
 * carries MCP messages only; everything else goes to stderr.
 * Owns: wiring CLI flags to the edge. Goes through src/edges/mcp and src/kernel.
 */
import type { CommandModule } from 'yargs';
// The edge (and the MCP SDK under it) is loaded when an mcp command runs, not on every CLI start.
import {
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SESSION_IDLE_TIMEOUT_MS,
  sessionLimits,
} from '../../src/edges/mcp/http-sessions.js';
import type { ConnectUpstream, UpstreamTarget } from '../../src/edges/mcp/index.js';
import { ChioError } from '../../src/errors.js';
import { closeAnyLedger, openAnyLedger, shownLocation } from '../../src/ledger/pg/index.js';
import { defaultPolicy, Kernel, loadPolicy } from '../../src/kernel/index.js';
import type { GlobalArgs } from '../options.js';
import { checkpointOptions, checkpointSchedule } from '../checkpoint-options.js';
import type { CheckpointArgs } from '../checkpoint-options.js';
import { asArray, trustedKeys } from '../options.js';

interface ServeArgs extends GlobalArgs, CheckpointArgs {
  policy?: string;
  'kernel-seed-file'?: string;
  'redaction-key-file'?: string;
  'trusted-kernel-pubkey'?: string[];
  'server-id': string;
  'upstream-url'?: string;
  'max-message-bytes': number;
  'reservation-sync': 'full' | 'normal';
  '--'?: Array<string | number>;
}

interface ServeHttpArgs extends ServeArgs {
  listen: string;
  'auth-token'?: string;
  'allowed-origin'?: string[];
  'session-idle-timeout': number;
  'max-sessions': number;
}

function upstreamTarget(args: ServeArgs): UpstreamTarget {
  const command = (args['--'] ?? []).map(String);
  if (args['upstream-url'] !== undefined) {
    if (command.length > 0)
      throw new ChioError(
        'CHIO-CLI-USAGE',
        `give either --upstream-url or an upstream command, not both (got the command ${JSON.stringify(command[0])})`,
      );
    return { url: args['upstream-url'] };
  }
  if (command.length === 0)
    throw new ChioError(
      'CHIO-CLI-USAGE',
      'name the upstream MCP server: chio mcp serve [options] [--] <command …> (or --upstream-url <url>)',
    );
  return {
    command: command[0]!,
    args: command.slice(1),
    env: Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined)),
  };
}

/** Opens the kernel, connects the upstream, runs `body`, and always closes both. */
type McpEdge = typeof import('../../src/edges/mcp/index.js');

async function withEdge(
  args: ServeArgs,
  body: (kernel: Kernel, upstream: ConnectUpstream, edge: McpEdge) => Promise<void>,
): Promise<void> {
  const target = upstreamTarget(args);
  const mcp = await import('../../src/edges/mcp/index.js');
  const { upstreamPathBases, UpstreamMcpServer } = mcp;
  const kernel = await Kernel.connect({
    ledgerPath: args['receipt-db'],
    ...(args['kernel-seed-file'] === undefined ? {} : { seedFile: args['kernel-seed-file'] }),
    ...(args['redaction-key-file'] === undefined ? {} : { redactionKeyFile: args['redaction-key-file'] }),
    trustedKernelKeys: [...(trustedKeys(asArray(args['trusted-kernel-pubkey'])) ?? [])],
    checkpoints: checkpointSchedule(args),
    policy: args.policy === undefined ? defaultPolicy() : loadPolicy(args.policy),
    producer: 'mcp-edge',
    reservationSync: args['reservation-sync'],
    pathBases: upstreamPathBases(target),
  });
  if (kernel.keyGenerated) {
    process.stderr.write(
      `chio: generated kernel key ${kernel.publicKeyHex} for this run (receipts in ${shownLocation(args['receipt-db'])}); pass --kernel-seed-file to keep one\n`,
    );
  }
  // Refused before anyone is served (exit 2), not at each client's initialize.
  try {
    kernel.assertCanGovern();
  } catch (e) {
    await kernel.close();
    throw e;
  }
  // Each MCP session connects its own upstream when its client initializes, declaring that
  // client's capabilities (a stdio edge has one session; each HTTP session starts its own).
  const serverId = args['server-id'];
  try {
    const connect: ConnectUpstream = async (side) => {
      try {
        return await UpstreamMcpServer.connect(target, serverId, side);
      } catch (e) {
        // The client's initialize gets the error; the operator reads it here.
        process.stderr.write(`chio: ${e instanceof ChioError ? `${e.code}: ${e.message}` : String(e)}\n`);
        throw e;
      }
    };
    await body(kernel, connect, mcp);
  } finally {
    await kernel.close();
  }
}

const edgeOptions = {
  policy: { type: 'string', describe: 'policy file (default: the built-in secure defaults)' },
  'kernel-seed-file': {
    type: 'string',
    describe: 'kernel key; a new one is generated (and its public key printed to stderr) when absent',
  },
  'redaction-key-file': {
    type: 'string',
    describe:
      'operator redaction key (`chio receipt redaction-key`); required when the policy redacts: salts the parameter_hash of redacted receipts',
  },
  'trusted-kernel-pubkey': {
    type: 'string',
    array: true,
    describe:
      "public key file of another kernel sharing the ledger whose receipts count towards budgets and revocations (repeatable; this kernel's own key always counts)",
  },
  'server-id': { type: 'string', default: 'mcp', describe: 'tool server id recorded in receipts' },
  'upstream-url': { type: 'string', describe: 'wrap a Streamable HTTP MCP server instead of a command' },
  'max-message-bytes': { type: 'number', default: 4 * 1024 * 1024, describe: 'larger messages are refused' },
  'reservation-sync': {
    type: 'string',
    choices: ['full', 'normal'],
    default: 'full',
    describe:
      "full: a call's reservation is fsynced before the tool runs (survives a power loss); normal: it survives the process dying, not a power loss, and each call costs one fsync instead of two. Receipts are always fsynced",
  },
  ...checkpointOptions,
} as const;

const httpOptions = {
  listen: { type: 'string', default: '127.0.0.1:8931', describe: 'host:port (port 0 picks a free one)' },
  'auth-token': { type: 'string', describe: 'require Authorization: Bearer <token>' },
  'allowed-origin': {
    type: 'string',
    array: true,
    describe: "browser origins allowed to call (default: this server's loopback origins)",
  },
  'session-idle-timeout': {
    type: 'number',
    default: DEFAULT_SESSION_IDLE_TIMEOUT_MS / 1000,
    describe: 'seconds without a request after which a session is ended (later requests on it get 404)',
  },
  'max-sessions': {
    type: 'number',
    default: DEFAULT_MAX_SESSIONS,
    describe: 'live sessions at most; an initialize past it gets HTTP 503 with Retry-After',
  },
} as const;

/** Options that take no value (yargs' own and the global ones included); every other option takes exactly one. */
const FLAG_OPTIONS = new Set([
  'help',
  'version',
  'json',
  ...Object.entries({ ...edgeOptions, ...httpOptions })
    .filter(([, o]) => o.type === 'boolean')
    .map(([k]) => k),
]);

/**
 * Puts the `--` before the upstream command of `chio mcp serve`/`serve-http` when the user left it
 * out (MCP clients such as the Inspector strip it): `mcp serve [options] <command> args…` becomes
 * `mcp serve [options] -- <command> args…`, so the upstream's own arguments — which may look like
 * chio flags (`--policy`, `--help`) — reach the upstream untouched instead of being parsed by chio.
 * yargs cannot do this itself: halt-at-non-option would halt at the word `mcp`.
 * The upstream command is the first word after `serve` that is neither an option nor an option's
 * value; each value-taking option takes exactly one value here (repeat an array option such as
 * --trusted-kernel-pubkey per value). Argv that already has a `--` before the command, or that is
 * not an mcp serve command, is returned unchanged.
 */
export function upstreamAfterSeparator(argv: readonly string[]): string[] {
  const words = ['mcp', 'serve|serve-http'];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === '--') break;
    if (token.startsWith('-') && token !== '-') {
      const name = token.replace(/^--?/, '');
      if (name.includes('=') || name.startsWith('no-')) continue;
      if (FLAG_OPTIONS.has(name)) {
        if (argv[i + 1] === 'true' || argv[i + 1] === 'false') i++;
        continue;
      }
      i++; // the option's one value
      continue;
    }
    if (words.length === 0) return [...argv.slice(0, i), '--', ...argv.slice(i)];
    if (!words.shift()!.split('|').includes(token)) break;
  }
  return [...argv];
}

const serve: CommandModule<GlobalArgs, ServeArgs> = {
  command: 'serve',
  describe:
    'Serve MCP on stdio in front of an upstream MCP server (`[--] <command …>` after the options, or --upstream-url), governing every tool call',
  builder: (y) => y.options(edgeOptions),
  handler: (args) =>
    withEdge(args, (kernel, upstream, { McpSession, serveStdio }) =>
      serveStdio(new McpSession({ kernel, upstream }), process.stdin, process.stdout, {
        maxMessageBytes: args['max-message-bytes'],
      }),
    ),
};

const serveHttpCommand: CommandModule<GlobalArgs, ServeHttpArgs> = {
  command: 'serve-http',
  describe:
    'Serve MCP over Streamable HTTP (POST/GET/DELETE /mcp) in front of an upstream MCP server (`[--] <command …>` after the options, or --upstream-url)',
  builder: (y) => y.options(edgeOptions).options(httpOptions),
  handler: (args) => {
    // Checked before the kernel and the upstream start: a bad limit costs nothing.
    const limits = sessionLimits({
      maxSessions: args['max-sessions'],
      sessionIdleTimeoutMs: args['session-idle-timeout'] * 1000,
    });
    return withEdge(args, async (kernel, upstream, { serveHttp }) => {
      const m = /^(.*):(\d{1,5})$/.exec(args.listen);
      if (m === null) throw new ChioError('CHIO-CLI-USAGE', `--listen ${args.listen}: expected host:port`);
      // With a bearer token, the audit API is served beside /mcp under /v1/ (same token, read-only
      // connection): a client's control URL may then be the edge's own. Without one it is not served.
      const api = args['auth-token'] === undefined ? undefined : await import('../../src/projections/query/index.js');
      const reader = api === undefined ? undefined : await openAnyLedger(args['receipt-db'], { readonly: true });
      try {
        const edge = await serveHttp({
          kernel,
          upstream,
          host: m[1]!.replace(/^\[|\]$/g, ''),
          port: Number(m[2]),
          authToken: args['auth-token'],
          allowedOrigins: args['allowed-origin'],
          maxBodyBytes: args['max-message-bytes'],
          ...(api === undefined || reader === undefined
            ? {}
            : { mount: { prefix: '/v1/', handler: api.auditApi({ ledger: reader, token: args['auth-token']! }) } }),
          ...limits,
        });
        process.stderr.write(
          `chio: MCP over Streamable HTTP at ${edge.url}${reader === undefined ? '' : ' (audit API under /v1/)'}\n`,
        );
        await new Promise<void>((resolve) => {
          process.once('SIGINT', resolve);
          process.once('SIGTERM', resolve);
        });
        await edge.close();
      } finally {
        if (reader !== undefined) await closeAnyLedger(reader);
      }
    });
  },
};

export const mcpCommand: CommandModule<GlobalArgs, GlobalArgs> = {
  command: 'mcp',
  describe: 'The MCP edge',
  builder: (y) => y.command(serve).command(serveHttpCommand).demandCommand(1, 'name an mcp command'),
  handler: () => {},
};
