#!/usr/bin/env node
/**
 * The `chio` command line: one yargs program, one thin module per command group in commands/.
 * Owns: global flags, usage errors and the exit code. Handlers parse input, call src/, print.
 * Exit codes (DESIGN §8): 0 success, 1 verification failed, 2 bad input or usage, 3 fault.
 */
import { readFileSync } from 'node:fs';
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { ChioError } from '../src/errors.js';
import type { CommandModule } from 'yargs';
import { DEFAULT_RECEIPT_DB } from './options.js';
import type { GlobalArgs } from './options.js';
import { out, reportError } from './output.js';

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

// Command modules take different argument types; yargs accepts them all.
// biome-ignore lint/suspicious/noExplicitAny: each command module has its own argv type; this list holds them all
type AnyCommand = CommandModule<GlobalArgs, any>;

/**
 * Each command group's module, loaded only when its command runs: a command module imports what
 * its handlers need (the kernel, the MCP SDK, the ACP proxy …), and a CLI start-up that loaded
 * every one cost ~0.25 s more for a `chio ledger verify`. Order is the help's order.
 */
const COMMANDS: Record<string, () => Promise<AnyCommand[]>> = {
  keys: async () => [(await import('./commands/keys.js')).keysCommand],
  ledger: async () => [(await import('./commands/ledger.js')).ledgerCommand],
  receipt: async () => [(await import('./commands/receipt.js')).receiptCommand],
  sql: async () => [(await import('./commands/sql.js')).sqlCommand],
  policy: async () => [(await import('./commands/policy.js')).policyCommand],
  check: async () => [(await import('./commands/policy.js')).checkCommand],
  capability: async () => [(await import('./commands/capability.js')).capabilityCommand],
  mcp: async () => [(await import('./commands/mcp.js')).mcpCommand],
  acp: async () => [(await import('./commands/acp.js')).acpCommand],
  cert: async () => [(await import('./commands/cert.js')).certCommand],
  proof: async () => [(await import('./commands/proof.js')).proofCommand],
  evidence: async () => [(await import('./commands/evidence.js')).evidenceCommand],
  serve: async () => [(await import('./commands/serve.js')).serveCommand],
};

/** The first word that is not a global option or its value: the command group asked for, if any. */
function commandWord(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === '--') return undefined;
    if (token.startsWith('-')) {
      if (token === '--receipt-db') i++;
      continue;
    }
    return token;
  }
  return undefined;
}

/**
 * yargs renders the whole help text of a command each time it runs one (usage.cacheHelpMessage),
 * in case the handler asks for it later; this CLI never does (`.fail` throws and `reportError`
 * prints the error), and the rendering took ~30 ms of every start. Left as it is if yargs ever
 * stops having the method.
 */
function skipHelpCache(cli: unknown): void {
  const usage = (cli as { getInternalMethods?: () => { getUsageInstance?: () => { cacheHelpMessage?: unknown } } })
    .getInternalMethods?.()
    ?.getUsageInstance?.();
  if (typeof usage?.cacheHelpMessage === 'function') usage.cacheHelpMessage = () => {};
}

export async function main(argv: string[]): Promise<void> {
  // `chio --version` alone needs no command module (yargs would print the same line).
  if (argv.length === 1 && argv[0] === '--version') return out(version());
  const word = commandWord(argv);
  // A known command loads its own module; anything else (help, a typo) loads them all, so yargs
  // lists every command and names the unknown one as before.
  const only = word !== undefined && Object.hasOwn(COMMANDS, word) ? COMMANDS[word] : undefined;
  const commands =
    only !== undefined ? await only() : (await Promise.all(Object.values(COMMANDS).map((load) => load()))).flat();
  // `chio mcp serve <upstream …>` without `--`: the upstream's flags are not chio's (commands/mcp.ts).
  const args = word === 'mcp' ? (await import('./commands/mcp.js')).upstreamAfterSeparator(argv) : argv;
  let cli = yargs(args)
    .scriptName('chio')
    .usage('$0 <command> [options]\n\nGoverned tool calls with signed, hash-chained receipts.')
    .option('receipt-db', {
      type: 'string',
      default: DEFAULT_RECEIPT_DB,
      global: true,
      describe: 'the receipt ledger: an SQLite file, or a postgres:// URL (every command)',
    })
    .option('json', { type: 'boolean', default: false, global: true, describe: 'print data as JSON' });
  for (const command of commands) cli = cli.command(command);
  cli = cli
    .demandCommand(1, 'name a command')
    .strict()
    .parserConfiguration({ 'populate--': true })
    .version(version())
    .help()
    .wrap(Math.min(110, process.stdout.columns ?? 110))
    .fail((message, error) => {
      throw error ?? new ChioError('CHIO-CLI-USAGE', message);
    });
  skipHelpCache(cli);
  await cli.parseAsync();
}

main(hideBin(process.argv)).catch(reportError);
