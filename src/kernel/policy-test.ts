/**
 * Attacking a policy with the product's own corpora (`chio policy test`): every hostile case must
 * be denied and every harmless one allowed by the guards the policy configures, judged in a
 * throw-away copy of the corpus workspace (with the policy's path_base as further bases). No tool
 * runs, nothing is signed, the ledger is not opened; the temporary workspace is removed afterwards.
 * Owns: the policy-level run. Imports the guards and their corpora; must not import ledger, edges or cli.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCorpusWorkspace, runCorpora } from './guards/corpus/index.js';
import type { CorpusRun } from './guards/corpus/index.js';
import { buildGuards } from './guards/index.js';
import type { LoadedPolicy } from './policy.js';

export interface PolicyTestReport extends CorpusRun {
  policyHash: string;
  workspace: string;
  hostile: number;
  harmless: number;
  ok: boolean;
}

export function testPolicy(loaded: LoadedPolicy): PolicyTestReport {
  const workspace = mkdtempSync(join(tmpdir(), 'chio-policy-test-'));
  try {
    createCorpusWorkspace(workspace);
    const run = runCorpora(buildGuards(loaded.policy.guards), workspace, { extraBases: loaded.policy.path_base });
    return {
      ...run,
      policyHash: loaded.policyHash,
      workspace,
      hostile: run.results.filter((r) => r.corpus === 'hostile').length,
      harmless: run.results.filter((r) => r.corpus === 'harmless').length,
      ok: run.hostileAllowed === 0 && run.harmlessDenied === 0,
    };
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}
