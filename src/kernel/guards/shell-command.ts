/**
 * shell-command: denies dangerous shell commands (upstream chio-guards shell_command.rs):
 *  - the upstream patterns: `rm -rf /`, `curl|wget … | sh`, `nc … -e`, `bash -i >& /dev/tcp/…`,
 *    `base64 … | curl|wget|nc`;
 *  - a recursive `rm` of `/` (or `/*`) found after tokenising, through `sudo`, `env`, `command`,
 *    `builtin`, `nice`, `nohup`, `timeout` and `sh|bash|zsh -c "…"` wrappers, up to 4 levels;
 *  - any path-like word, redirection target or `--flag=/path` value (and the cwd) that the
 *    forbidden-path guard forbids, so `cat ~/.ssh/id_rsa` is caught here too.
 * A pattern that fails to compile makes the guard deny everything (fail closed).
 * Owns: the command rules. Imports guard helpers only. The command is attacker-controlled.
 */
import { posix } from 'node:path';
import { z } from 'zod';
import type { ForbiddenPathGuard } from './forbidden-path.js';
import { splitCommands } from './shell-words.js';
import type { SimpleCommand } from './shell-words.js';
import type { Guard, GuardInput, GuardOutcome } from './types.js';

export const DEFAULT_SHELL_PATTERNS = [
  String.raw`\brm\s+(-[a-zA-Z]*\s+)*-[a-zA-Z]*[rR][a-zA-Z]*\s+(-[a-zA-Z]*\s+)*(/|/\*)(\s|$)`,
  String.raw`\b(curl|wget)\b[^|;&\n]*\|\s*(sudo\s+)?(ba|z|da|k)?sh\b`,
  String.raw`\b(nc|ncat|netcat)\b[^|;&\n]*\s-[a-zA-Z]*e\b`,
  String.raw`/dev/(tcp|udp)/`,
  String.raw`\bbase64\b[^;&\n]*\|\s*(curl|wget|nc|ncat|netcat)\b`,
];

export const ShellCommandConfigSchema = z.strictObject({
  enabled: z.boolean().default(true),
  patterns: z.array(z.string().min(1)).default(DEFAULT_SHELL_PATTERNS),
  additional_patterns: z.array(z.string().min(1)).default([]),
});
export type ShellCommandConfig = z.infer<typeof ShellCommandConfigSchema>;

const WRAPPERS = new Set(['sudo', 'doas', 'env', 'command', 'builtin', 'nice', 'nohup', 'timeout', 'exec', 'time', 'xargs']);
const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh']);
const MAX_UNWRAP = 4;

/** The command after its wrappers (and their options, VAR=value assignments, timeout's duration). */
function unwrap(words: string[]): string[] {
  let w = words;
  while (w.length > 0 && (WRAPPERS.has(posix.basename(w[0]!)) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(w[0]!))) {
    const wrapper = posix.basename(w[0]!);
    w = w.slice(1);
    while (w.length > 0 && (w[0]!.startsWith('-') || /^[A-Za-z_][A-Za-z0-9_]*=/.test(w[0]!) || (wrapper === 'timeout' && /^\d/.test(w[0]!)))) w = w.slice(1);
  }
  return w;
}

function isRecursiveRmOfRoot(words: string[]): boolean {
  if (words.length === 0 || posix.basename(words[0]!) !== 'rm') return false;
  const flags = words.slice(1).filter((a) => a.startsWith('-'));
  const recursive = flags.some((f) => f === '--recursive' || (/^-[a-zA-Z]+$/.test(f) && /[rR]/.test(f)));
  const targets = words.slice(1).filter((a) => !a.startsWith('-'));
  return recursive && targets.some((t) => /^\/+\*?$/.test(t) || posix.normalize(t) === '/' || t === '/*');
}

function pathLike(word: string): boolean {
  return word.startsWith('/') || word.startsWith('~') || word.startsWith('./') || word.startsWith('../') || word.includes('/');
}

export class ShellCommandGuard implements Guard {
  readonly name = 'shell-command';
  private readonly regexes: RegExp[] | null;

  constructor(private readonly paths: ForbiddenPathGuard, private readonly config: ShellCommandConfig = ShellCommandConfigSchema.parse({})) {
    try {
      this.regexes = [...config.patterns, ...config.additional_patterns].map((p) => new RegExp(p));
    } catch {
      this.regexes = null;
    }
  }

  evaluate(input: GuardInput): GuardOutcome {
    const a = input.action;
    if (!this.config.enabled || a.kind !== 'shell') return null;
    if (this.regexes === null) return { verdict: 'deny', reason: 'shell-command guard has an invalid pattern and denies everything' };
    const hit = this.regexes.find((re) => re.test(a.command));
    if (hit !== undefined) return { verdict: 'deny', reason: `command matches a dangerous pattern: ${hit.source}`, details: hit.source };
    if (a.cwd !== undefined) {
      const forbidden = this.paths.forbids(a.cwd);
      if (forbidden !== undefined) return { verdict: 'deny', reason: `working directory matches a forbidden pattern: ${forbidden.pattern}`, details: forbidden.pattern };
    }
    return this.inspect(splitCommands(a.command), a.cwd, 0);
  }

  private inspect(commands: SimpleCommand[], cwd: string | undefined, depth: number): GuardOutcome {
    for (const command of commands) {
      const words = unwrap(command.words);
      if (isRecursiveRmOfRoot(words)) return { verdict: 'deny', reason: 'recursive rm of /', details: words.join(' ') };
      if (words.length >= 3 && SHELLS.has(posix.basename(words[0]!)) && words[1] === '-c') {
        if (depth + 1 >= MAX_UNWRAP) return { verdict: 'deny', reason: `shell -c nested deeper than ${MAX_UNWRAP} levels` };
        const inner = this.inspect(splitCommands(words[2]!), cwd, depth + 1);
        if (inner?.verdict === 'deny') return inner;
      }
      const candidates = [
        ...words.filter(pathLike),
        ...words.flatMap((w) => (/^--?[A-Za-z0-9-]+=(.+)$/.exec(w)?.slice(1) ?? [])).filter(pathLike),
        ...command.redirects,
      ];
      for (const path of candidates) {
        const forbidden = this.paths.forbids(path, cwd);
        if (forbidden !== undefined) {
          return { verdict: 'deny', reason: `command touches a forbidden path: ${forbidden.pattern}`, details: forbidden.pattern };
        }
      }
    }
    return { verdict: 'allow' };
  }
}
