/**
 * `chio mcp serve` as a real child process in front of a real upstream, reached by the real MCP SDK
 * client over stdio: the start-up the MCP edge tests share. Nothing here reaches into the edge.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CHIO_BIN } from './cli.js';

export interface GovernedMcp {
  /** The receipt ledger (`--receipt-db`). */
  db: string;
  /** The kernel seed file (`--kernel-seed-file`); without it chio generates a key for the run. */
  seedFile?: string;
  /** `--server-id`. */
  serverId?: string;
  /** Any other flags of `chio mcp serve`, before the `--`. */
  flags?: string[];
  /** The upstream's command line after the `--` (its first word the program to run). */
  upstream: string[];
  /** chio's working directory (the upstream inherits it). */
  cwd?: string;
}

/** The stdio transport that starts `chio mcp serve … -- <upstream>` (stderr piped, not shown). */
export function governedMcpTransport(o: GovernedMcp): StdioClientTransport {
  return new StdioClientTransport({
    command: process.execPath,
    args: [
      CHIO_BIN,
      'mcp',
      'serve',
      '--receipt-db',
      o.db,
      ...(o.seedFile === undefined ? [] : ['--kernel-seed-file', o.seedFile]),
      ...(o.serverId === undefined ? [] : ['--server-id', o.serverId]),
      ...(o.flags ?? []),
      '--',
      ...o.upstream,
    ],
    ...(o.cwd === undefined ? {} : { cwd: o.cwd }),
    stderr: 'pipe',
  });
}

/** An SDK client connected (initialize done) to `chio mcp serve` started as `o` says. */
export async function connectGovernedMcp(o: GovernedMcp, name = 'chio-test'): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' }, { capabilities: {} });
  await client.connect(governedMcpTransport(o));
  return client;
}
