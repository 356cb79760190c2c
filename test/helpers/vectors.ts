/** Loads the golden vectors in test/vectors (never ../shared: tests read only the repo). */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export function loadVector<T = any>(relative: string): T {
  return JSON.parse(readFileSync(fileURLToPath(new URL(`../vectors/${relative}`, import.meta.url)), 'utf8')) as T;
}
