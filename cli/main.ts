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
import { acpCommand } from './commands/acp.js';
import { keysCommand } from './commands/keys.js';
import { ledgerCommand } from './commands/ledger.js';
import { capabilityCommand } from './commands/capability.js';
import { certCommand } from './commands/cert.js';
import { evidenceCommand } from './commands/evidence.js';
import { proofCommand } from './commands/proof.js';
import { mcpCommand, upstreamAfterSeparator } from './commands/mcp.js';
import { checkCommand, policyCommand } from './commands/policy.js';
import { receiptCommand } from './commands/receipt.js';
import { serveCommand } from './commands/serve.js';
import { sqlCommand } from './commands/sql.js';
import { DEFAULT_RECEIPT_DB } from './options.js';
import { reportError } from './output.js';

export interface GlobalArgs {
  'receipt-db': string;
  json: boolean;
}

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

export async function main(argv: string[]): Promise<void> {
  // `chio mcp serve <upstream …>` without `--`: the upstream's flags are not chio's (commands/mcp.ts).
  const cli = yargs(upstreamAfterSeparator(argv))
    .scriptName('chio')
    .usage('$0 <command> [options]\n\nGoverned tool calls with signed, hash-chained receipts.')
    .option('receipt-db', { type: 'string', default: DEFAULT_RECEIPT_DB, global: true, describe: 'the receipt ledger (SQLite file)' })
    .option('json', { type: 'boolean', default: false, global: true, describe: 'print data as JSON' })
    .command(keysCommand)
    .command(ledgerCommand)
    .command(receiptCommand)
    .command(sqlCommand)
    .command(policyCommand)
    .command(checkCommand)
    .command(capabilityCommand)
    .command(mcpCommand)
    .command(acpCommand)
    .command(certCommand)
    .command(proofCommand)
    .command(evidenceCommand)
    .command(serveCommand)
    .demandCommand(1, 'name a command')
    .strict()
    .parserConfiguration({ 'populate--': true })
    .version(version())
    .help()
    .wrap(Math.min(110, process.stdout.columns ?? 110))
    .fail((message, error) => {
      throw error ?? new ChioError('CHIO-CLI-USAGE', message);
    });
  await cli.parseAsync();
}

main(hideBin(process.argv)).catch(reportError);
