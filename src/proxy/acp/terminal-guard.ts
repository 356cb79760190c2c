/**
 * TerminalGuard (upstream chio-acp-proxy terminal_guard): may the agent start this
 * terminal? In order:
 *  1. the command equals an allowed entry exactly;
 *  2. no argument carries a NUL or shell metacharacters that would matter if the client ran it
 *     through a shell: a backtick, `$(`, `|`, `;`, a newline or a carriage return;
 *  3. no `env` entry sets a variable that loads code or moves configuration (terminal-env.ts),
 *     unless `--allow-env` names it;
 *  4. the cwd passes FsGuard (prefixes and forbidden paths);
 *  5. the command's option forms (the option table in kernel/guards/shell/options), directories
 *     they name judged like a cwd;
 *  6. a wrapper (env, nice, timeout, sudo…, the same table) is judged through: the command
 *     it runs must be allowed too and pass 2–6 with the wrapper's environment and directory
 *     (at most 4 wrappers deep);
 *  7. the checks the interceptor plugs in (`TerminalCheck`: the kernel's guard pipeline first,
 *     kernel-terminal-check.ts, then any the caller adds), each on the argv as asked for, in
 *     order; the first refusal wins.
 * Owns: the order and the messages (the option table answers with findings; this guard refuses
 * every form in it). Imports the proxy's path guard and environment table, and the kernel's option
 * table. Commands, arguments, environment and cwd are attacker-controlled.
 */
import { posix } from 'node:path';
import { optionFindings, unwrap, WRAPPERS } from '../../kernel/guards/shell/options/index.js';
import { FsGuard } from './fs-guard.js';
import { envRefusal } from './terminal-env.js';
import { allow, FS_GUARD, refuse, TERMINAL_GUARD } from './verdict.js';
import type { GuardVerdict } from './verdict.js';

/** An extra judgement of a terminal request (its guard name goes on the deny receipt). */
export type TerminalCheck = (command: string, args: readonly string[], cwd: string | undefined) => GuardVerdict;

export interface TerminalGuardOptions {
  /** Judges the cwd and directories options name. Without it every path is refused (no prefixes). */
  fs?: FsGuard;
  /** Environment variable names `--allow-env` opens, exactly. */
  allowedEnv?: readonly string[];
  checks?: readonly TerminalCheck[];
}

export interface TerminalEnv {
  name: string;
  value: string;
}

const SUSPICIOUS = ['`', '$(', '|', ';', '\n', '\r', '\0'];
/** Words `sh -c` takes literally (for `watch` without -x, which joins its words for the shell). */
const SHELL_SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;
const MAX_WRAPPERS = 4;

const denied = (message: string) => refuse(TERMINAL_GUARD, `access denied: terminal denied: ${message}`);

export class TerminalGuard {
  private readonly fs: FsGuard;
  private readonly allowedEnv: ReadonlySet<string>;
  private readonly checks: readonly TerminalCheck[];

  constructor(
    private readonly commands: readonly string[],
    options: TerminalGuardOptions = {},
  ) {
    this.fs = options.fs ?? new FsGuard([]);
    this.allowedEnv = new Set(options.allowedEnv ?? []);
    this.checks = options.checks ?? [];
  }

  check(
    command: string,
    args: readonly string[],
    request: { cwd?: string | null; env?: readonly TerminalEnv[] } = {},
  ): GuardVerdict {
    if (this.commands.length === 0) return denied('no allowed commands configured');
    if (command.trim() === '') return denied('empty command');
    if (!this.commands.includes(command)) return denied(`command not allowed: ${command}`);
    const bad = args.find((a) => SUSPICIOUS.some((s) => a.includes(s)));
    if (bad !== undefined) return denied(`suspicious argument: ${bad}`);
    const env = this.envVerdict(request.env ?? []);
    if (!env.ok) return env;
    const cwd = request.cwd ?? undefined;
    if (cwd !== undefined) {
      const v = this.fs.check('cwd', cwd);
      if (!v.ok) return v;
    }
    const inner = this.judge(command, args, cwd, 0);
    if (!inner.ok) return inner;
    for (const check of this.checks) {
      const v = check(command, args, cwd);
      if (!v.ok) return v;
    }
    return allow();
  }

  private envVerdict(env: readonly TerminalEnv[]): GuardVerdict {
    for (const { name } of env) {
      const r = envRefusal(name, this.allowedEnv);
      if (r !== undefined) return denied(`environment variable not allowed: ${name}: ${r.why}`);
    }
    return allow();
  }

  /** A path an option names: absolute, or relative to `base` (refused without one, or with a `..` segment). */
  private path(op: 'cwd' | 'write', value: string, base: string | undefined): GuardVerdict {
    if (value.startsWith('/')) return this.fs.check(op, value);
    if (base === undefined)
      return refuse(FS_GUARD, `access denied: fs ${op} denied: relative path without a terminal cwd: ${value}`);
    if (value.split('/').includes('..')) return refuse(FS_GUARD, `path traversal detected: ${value}`);
    return this.fs.check(op, posix.join(base, value));
  }

  /** The option table's findings, in order: the first refused form, path an option names that FsGuard refuses, or environment variable the table refuses. */
  private options(name: string, command: string, args: readonly string[], cwd: string | undefined): GuardVerdict {
    for (const f of optionFindings(command, args, cwd)) {
      // `npx <package>` is what allowing npx allowed; every option form is refused.
      if (f.kind === 'refused' && f.commandItself === true) continue;
      // The readers say "the guard" where a reason names the reader itself; here that is the proxy.
      if (f.kind === 'refused')
        return denied(
          `option not allowed: ${name} ${f.arg} (${f.why.replace('the guard cannot', 'the proxy cannot')})`,
        );
      if (f.kind === 'path') {
        const v = this.path(f.op, f.value, f.base);
        if (!v.ok) return v;
        continue;
      }
      const why = envRefusal(f.name, this.allowedEnv)?.why;
      if (why !== undefined) return denied(`option not allowed: ${name} ${f.arg} (${f.why}: ${why})`);
    }
    return allow();
  }

  private judge(command: string, args: readonly string[], cwd: string | undefined, depth: number): GuardVerdict {
    const name = posix.basename(command);
    const options = this.options(name, command, args, cwd);
    if (!options.ok) return options;
    const spec = Object.hasOwn(WRAPPERS, name) ? WRAPPERS[name]! : undefined;
    if (spec === undefined) return allow();
    const u = unwrap(spec, args);
    if (u.kind === 'refused') return denied(`option not allowed: ${name} ${u.arg} (${u.why})`);
    if (u.kind === 'none') return allow();
    if (depth + 1 > MAX_WRAPPERS) return denied(`more than ${MAX_WRAPPERS} wrappers: ${name} ${u.command}`);
    const env = this.envVerdict(u.env);
    if (!env.ok) return env;
    let inner = cwd;
    if (u.chdir !== undefined) {
      const v = this.path('cwd', u.chdir, cwd);
      if (!v.ok) return v;
      inner = u.chdir.startsWith('/') ? u.chdir : posix.join(cwd!, u.chdir);
    }
    if (u.shell) {
      const unsafe = [u.command, ...u.args].find((w) => !SHELL_SAFE.test(w));
      if (unsafe !== undefined)
        return denied(`${name} runs its words with sh -c (no -x): shell syntax not allowed: ${unsafe}`);
    }
    if (!this.commands.includes(u.command)) return denied(`command not allowed: ${u.command} (run by ${name})`);
    return this.judge(u.command, u.args, inner, depth + 1);
  }
}
