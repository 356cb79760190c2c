/**
 * `AcpProxyConfig`: the agent command, the allowed path prefixes and commands, the
 * environment variables opened past the terminal table, the server id on receipts, and the
 * attestation mode. Empty allow-lists deny everything (fail closed).
 * Builders return a new config, so a shared base config is never mutated.
 * Owns: proxy configuration and its validation. Imports errors and the env name rule.
 */
import { posix } from 'node:path';
import { ChioError } from '../../errors.js';
import { PORTABLE_ENV_NAME } from './terminal-env.js';

export const DEFAULT_SERVER_ID = 'chio-acp-proxy';

/** `required`: an update whose receipt cannot be signed or appended is not forwarded. `optional`: it is, with a warning. */
export type AttestationMode = 'required' | 'optional';

export interface AcpProxyConfigFields {
  agentCommand: string;
  agentArgs: readonly string[];
  /** Extra environment for the agent, on top of the proxy's own (which is passed through). */
  agentEnv: Readonly<Record<string, string>>;
  allowedPathPrefixes: readonly string[];
  allowedCommands: readonly string[];
  /** Environment variable names terminal/create may set although the proxy's table refuses them. */
  allowedEnv: readonly string[];
  serverId: string;
  attestation: AttestationMode;
}

export class AcpProxyConfig {
  private constructor(readonly fields: AcpProxyConfigFields) {}

  static new(agentCommand: string, agentArgs: readonly string[] = []): AcpProxyConfig {
    if (agentCommand.trim() === '') throw new ChioError('CHIO-CLI-USAGE', 'the ACP proxy needs an agent command');
    return new AcpProxyConfig({
      agentCommand,
      agentArgs: [...agentArgs],
      agentEnv: {},
      allowedPathPrefixes: [],
      allowedCommands: [],
      allowedEnv: [],
      serverId: DEFAULT_SERVER_ID,
      attestation: 'optional',
    });
  }

  /** An absolute directory prefix; reads, writes and terminal cwds share the set. `/` is refused as too broad. */
  withAllowedPathPrefix(prefix: string): AcpProxyConfig {
    if (!posix.isAbsolute(prefix))
      throw new ChioError('CHIO-CLI-USAGE', `an allowed path prefix must be absolute: ${prefix}`);
    if (prefix.split('/').includes('..'))
      throw new ChioError('CHIO-CLI-USAGE', `an allowed path prefix must not contain '..': ${prefix}`);
    if (posix.normalize(prefix) === '/')
      throw new ChioError('CHIO-CLI-USAGE', 'refusing to allow the whole filesystem (--allow-path /)');
    return new AcpProxyConfig({ ...this.fields, allowedPathPrefixes: [...this.fields.allowedPathPrefixes, prefix] });
  }

  /** A command the agent may run, compared exactly (`cargo` does not allow `/usr/bin/cargo`). */
  withAllowedCommand(command: string): AcpProxyConfig {
    if (command.trim() === '') throw new ChioError('CHIO-CLI-USAGE', 'an allowed command must not be empty');
    return new AcpProxyConfig({ ...this.fields, allowedCommands: [...this.fields.allowedCommands, command] });
  }

  /** Opens one environment variable the terminal table refuses (terminal-env.ts), by exact name. */
  withAllowedEnv(name: string): AcpProxyConfig {
    if (!PORTABLE_ENV_NAME.test(name))
      throw new ChioError(
        'CHIO-CLI-USAGE',
        `an allowed environment variable must be a portable name ([A-Za-z_][A-Za-z0-9_]*): ${JSON.stringify(name)}`,
      );
    return new AcpProxyConfig({ ...this.fields, allowedEnv: [...this.fields.allowedEnv, name] });
  }

  withServerId(serverId: string): AcpProxyConfig {
    if (serverId.trim() === '' || serverId.trim() !== serverId)
      throw new ChioError('CHIO-CLI-USAGE', 'a server id is a non-empty string without surrounding whitespace');
    return new AcpProxyConfig({ ...this.fields, serverId });
  }

  withAgentArgs(args: readonly string[]): AcpProxyConfig {
    return new AcpProxyConfig({ ...this.fields, agentArgs: [...args] });
  }

  withAgentEnv(env: Readonly<Record<string, string>>): AcpProxyConfig {
    return new AcpProxyConfig({ ...this.fields, agentEnv: { ...env } });
  }

  withAttestation(mode: AttestationMode): AcpProxyConfig {
    return new AcpProxyConfig({ ...this.fields, attestation: mode });
  }

  get serverId(): string {
    return this.fields.serverId;
  }
}
