/**
 * Long-running child processes for a test file (`chio serve`, `chio mcp serve-http`, …): started
 * with `node <args>`, ready once a line on stderr matches, and all stopped (SIGTERM, awaited)
 * after the file's tests.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { afterAll } from 'vitest';

export interface StartedChild {
  /** The match of the ready pattern (its groups: a URL, a port …). */
  match: RegExpExecArray;
  child: ChildProcess;
  /** Everything the child wrote on stderr so far. */
  stderr(): string;
}

/** Call once at the top of a test file. */
export function childProcesses(): { start(args: string[], ready: RegExp): Promise<StartedChild> } {
  const children: ChildProcess[] = [];
  afterAll(async () => {
    for (const c of children) {
      if (c.exitCode !== null || c.signalCode !== null) continue;
      const exited = new Promise((r) => c.once('exit', r));
      c.kill('SIGTERM');
      await exited;
    }
  });
  return {
    start(args, ready) {
      const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
      children.push(child);
      let err = '';
      return new Promise((resolve, reject) => {
        child.stderr!.on('data', (d) => {
          err += d;
          const match = ready.exec(err);
          if (match !== null) resolve({ match, child, stderr: () => err });
        });
        child.once('exit', (code) => reject(new Error(`node ${args.slice(0, 3).join(' ')} … exited ${code}: ${err}`)));
      });
    },
  };
}
