/** Runs the built `chio` binary (dist/cli/main.js) as a real child process. */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const CHIO_BIN = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function chio(args: string[], options: { input?: string; cwd?: string } = {}): CliResult {
  const r = spawnSync(process.execPath, [CHIO_BIN, ...args], {
    encoding: 'utf8',
    input: options.input,
    cwd: options.cwd,
    env: { ...process.env, FORCE_COLOR: '0' },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** DESIGN §8: error[CODE]: message / help / code / docs, on stderr. */
export const ERROR_SHAPE =
  /^error\[(CHIO-[A-Z0-9-]+)\]: .+\n {2}help: .+\n {2}code: urn:chio:error:[a-z0-9:-]+\n {2}docs: https:\/\/chio\.computer\/docs\/reference\/errors#error-[a-z0-9-]+\n$/;

export function errorCode(stderr: string): string | undefined {
  return ERROR_SHAPE.exec(stderr)?.[1];
}
