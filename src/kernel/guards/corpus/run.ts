/**
 * Runs the corpora against a set of guards: each case judged as the kernel would judge it (the
 * workspace as the base for relative paths, unless the case says there is none), nothing invoked,
 * nothing signed, nothing written. A hostile case passes when it is denied by the guard it names; a
 * harmless one when it is allowed.
 * Owns: materialising cases and the pass rule. Imports the guard pipeline.
 */
import { homedir } from 'node:os';
import { runGuards } from '../pipeline.js';
import type { Guard } from '../types.js';
import { HARMLESS_CORPUS } from './harmless.js';
import { HOSTILE_CORPUS } from './hostile.js';
import type { CorpusCase } from './types.js';

export interface CaseResult {
  id: string;
  corpus: 'hostile' | 'harmless';
  tool: string;
  about: string;
  verdict: 'allow' | 'deny';
  guard: string | null;
  reason: string | null;
  /** Hostile: denied (by the expected guard, when `strictGuards`). Harmless: allowed. */
  pass: boolean;
  expectedGuard: string | null;
}

/** The case's arguments with `{{ws}}` and `{{home}}` filled in. */
export function materialize(c: CorpusCase, workspace: string, home: string = homedir()): unknown {
  return JSON.parse(
    JSON.stringify(c.arguments).replaceAll('{{ws}}', workspace).replaceAll('{{home}}', home),
  ) as unknown;
}

export interface CorpusRun {
  results: CaseResult[];
  hostileAllowed: number;
  harmlessDenied: number;
}

/**
 * @param extraBases   the policy's path_base, added to the workspace
 * @param strictGuards a hostile case must be denied by the guard it names (the product's own
 *                     tests); a user's policy may deny it by another guard, which still protects
 */
export function runCorpora(
  guards: readonly Guard[],
  workspace: string,
  options: { extraBases?: readonly string[]; strictGuards?: boolean } = {},
): CorpusRun {
  const judge = (c: CorpusCase, corpus: 'hostile' | 'harmless'): CaseResult => {
    const pathBases = c.noBase === true ? [...(options.extraBases ?? [])] : [workspace, ...(options.extraBases ?? [])];
    const d = runGuards(
      guards,
      { serverId: 'corpus', toolName: c.tool, arguments: materialize(c, workspace) },
      { pathBases },
    );
    const denied = d.verdict === 'deny';
    const pass = corpus === 'harmless' ? !denied : denied && (options.strictGuards !== true || d.guard === c.guard);
    return {
      id: c.id,
      corpus,
      tool: c.tool,
      about: c.about,
      verdict: d.verdict,
      guard: denied ? d.guard : null,
      reason: denied ? d.reason : null,
      pass,
      expectedGuard: c.guard ?? null,
    };
  };
  const results = [
    ...HOSTILE_CORPUS.map((c) => judge(c, 'hostile')),
    ...HARMLESS_CORPUS.map((c) => judge(c, 'harmless')),
  ];
  return {
    results,
    hostileAllowed: results.filter((r) => r.corpus === 'hostile' && r.verdict === 'allow').length,
    harmlessDenied: results.filter((r) => r.corpus === 'harmless' && r.verdict === 'deny').length,
  };
}
