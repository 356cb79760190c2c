/**
 * A corpus case: one tool call an agent might make, and what the guards must say about it.
 * Owns: the case shape. Imports nothing.
 */
export interface CorpusCase {
  /** Unique, kebab-case. */
  id: string;
  tool: string;
  /** The call's arguments; `{{ws}}` stands for the workspace directory, `{{home}}` for the home directory. */
  arguments: unknown;
  /** What the call is: the attack it tries, or the ordinary work it does. */
  about: string;
  /** Hostile cases: the guard that must deny it. */
  guard?: string;
  /** Judged with no base for relative paths (no roots, no upstream directories, no path_base). */
  noBase?: boolean;
}

export interface Corpus {
  hostile: readonly CorpusCase[];
  harmless: readonly CorpusCase[];
}
