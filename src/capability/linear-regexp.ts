/**
 * Regular expressions from capability tokens run on V8's linear-time engine (the `l` flag,
 * `--enable-experimental-regexp-engine`), never on the backtracking one. A token's regex_match
 * pattern and glob are chosen by whoever signs the token — any delegating holder, or anyone at all
 * before the chain is checked — and the kernel runs them on arguments the caller chooses: on the
 * backtracking engine `^(a+)+$` against a long run of `a`s followed by `!` holds the event loop
 * (and every other call the process governs) for as long as the attacker likes. The linear engine
 * bounds every match by pattern size × input size. A pattern it cannot run (backreferences,
 * lookaround, and — in the V8 of Node 20 — `u`-flag syntax such as `\p{…}`) throws
 * CHIO-CAPABILITY-INVALID, so the constraint is unusable and the call is denied.
 * Owns: compiling token-supplied patterns. Imports node:v8 only.
 */
import { setFlagsFromString } from 'node:v8';
import { ChioError } from '../errors.js';

// The flag is read when a RegExp with `l` is compiled, so setting it at load time is enough.
setFlagsFromString('--enable-experimental-regexp-engine');

/** Longest pattern accepted from a token (its compiled automaton grows with it). */
export const MAX_TOKEN_PATTERN_CHARS = 4096;

/** `source` compiled for the linear-time engine with `flags` (`s` may be given; `u`, `i`, `g`, `y` are not supported). */
export function linearRegExp(source: string, flags = ''): RegExp {
  if (source.length > MAX_TOKEN_PATTERN_CHARS)
    throw new ChioError(
      'CHIO-CAPABILITY-INVALID',
      `a pattern longer than ${MAX_TOKEN_PATTERN_CHARS} characters is not run`,
    );
  try {
    return new RegExp(source, `${flags}l`);
  } catch (e) {
    throw new ChioError(
      'CHIO-CAPABILITY-INVALID',
      `the pattern cannot be run in linear time (${(e as Error).message}); backreferences, lookaround and \\p{…} are not supported`,
    );
  }
}
