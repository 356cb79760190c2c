/**
 * What a real editor does with the terminals that reach it: spawn the command (no shell) with its
 * arguments, cwd and env entries on top of the editor's own environment, collect its output, and
 * report its exit. Used by the SDK editor in the ACP proxy tests, so that a hostile command the
 * proxy let through would really run (and leave its marker file).
 */
import { spawn } from 'node:child_process';

interface Running {
  output: string;
  exit: Promise<{ exitCode: number | null; signal: string | null }>;
}

export class TerminalRunner {
  private readonly terminals = new Map<string, Running>();
  private next = 0;

  create(params: {
    command: string;
    args?: string[];
    cwd?: string | null;
    env?: Array<{ name: string; value: string }>;
  }): { terminalId: string } {
    const terminalId = `run-${++this.next}`;
    const env = { ...process.env, ...Object.fromEntries((params.env ?? []).map((e) => [e.name, e.value])) };
    const running: Running = { output: '', exit: Promise.resolve({ exitCode: null, signal: null }) };
    running.exit = new Promise((resolve) => {
      const child = spawn(params.command, params.args ?? [], {
        cwd: params.cwd ?? undefined,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout.on('data', (d) => (running.output += d));
      child.stderr.on('data', (d) => (running.output += d));
      child.once('error', (e) => {
        running.output += `spawn failed: ${e.message}`;
        resolve({ exitCode: null, signal: null });
      });
      child.once('close', (exitCode, signal) => resolve({ exitCode, signal }));
    });
    this.terminals.set(terminalId, running);
    return { terminalId };
  }

  async output(
    terminalId: string,
  ): Promise<{ output: string; truncated: boolean; exitStatus?: { exitCode: number | null; signal: string | null } }> {
    const t = this.terminals.get(terminalId);
    if (t === undefined) return { output: '', truncated: false };
    const exitStatus = await t.exit;
    return { output: t.output, truncated: false, exitStatus };
  }

  async waitForExit(terminalId: string): Promise<{ exitCode: number | null; signal: string | null }> {
    return (await this.terminals.get(terminalId)?.exit) ?? { exitCode: null, signal: null };
  }

  /** Every terminal started so far has exited. */
  async settled(): Promise<void> {
    await Promise.all([...this.terminals.values()].map((t) => t.exit));
  }
}
