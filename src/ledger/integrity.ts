/**
 * SQLite's own structural check of a ledger file (`PRAGMA quick_check`): every b-tree page of
 * every table and index well formed, no page used twice or lost. The hash chain proves the
 * entries; this proves the file they are read from. `chio ledger verify` runs it first, because
 * a damaged index can make queries skip or repeat rows without the chain walk noticing.
 * Owns: running the check and reporting SQLite's words. Read-only; must not import kernel, edges or cli.
 */
import type { Ledger } from './open.js';

/** `problems` are SQLite's lines; they can quote schema names, which come from the file. */
export type IntegrityVerdict = { ok: true } | { ok: false; problems: string[] };

/** Most problems listed (SQLite stops after this many). */
const MAX_PROBLEMS = 5;

const CORRUPTION = /^SQLITE_(CORRUPT|NOTADB|IOERR)/;

export function quickCheck(ledger: Ledger): IntegrityVerdict {
  let problems: string[];
  try {
    const rows = ledger.db.prepare(`PRAGMA quick_check(${MAX_PROBLEMS})`).raw(true).all() as unknown[][];
    // One row may hold several lines ("*** in database main ***" and the problems under it).
    problems = rows
      .flatMap((r) => String(r[0]).split('\n'))
      .map((line) => line.trim())
      .filter((line) => line !== '' && !/^\*\*\* in database \S+ \*\*\*$/.test(line))
      .slice(0, MAX_PROBLEMS);
  } catch (e) {
    // Damage bad enough that the check itself cannot read the file is the answer, not a fault.
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && CORRUPTION.test(code))
      return { ok: false, problems: [`${code}: ${(e as Error).message}`] };
    throw e;
  }
  if (problems.length === 1 && problems[0] === 'ok') return { ok: true };
  return { ok: false, problems };
}
