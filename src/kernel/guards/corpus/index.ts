/**
 * The guard corpora: hostile calls that must be denied and harmless ones that must be allowed,
 * the workspace they are judged in, and the runner (`chio policy test`, and the tests).
 */
export { HOSTILE_CORPUS } from './hostile.js';
export { HARMLESS_CORPUS } from './harmless.js';
export { createCorpusWorkspace, WORKSPACE_FILES, WORKSPACE_LINKS } from './workspace.js';
export { materialize, runCorpora } from './run.js';
export type { CaseResult, CorpusRun } from './run.js';
export type { CorpusCase, Corpus } from './types.js';
export { FAKE_KEYS } from './fake-keys.js';
