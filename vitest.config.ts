import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import type { Plugin } from 'vitest/config';

const ROOT = dirname(fileURLToPath(import.meta.url));
const DOORS = new Map(
  ['src/ledger/drizzle.js', 'src/ledger/pg/drizzle.js'].map((door) => [
    resolve(ROOT, door),
    resolve(ROOT, 'dist', door),
  ]),
);

/**
 * The ledger's two doors to drizzle-orm (src/ledger/drizzle.ts, src/ledger/pg/drizzle.ts) load as
 * the build bundled them (dist/src/ledger/…, scripts/post-build.mjs), which is what the package
 * runs. Left to the test runner they would load drizzle-orm's own ~110 modules in every test file,
 * and Node 22 and 24 parse drizzle-orm's 179 KB package.json once for each of them (~1 s a file on
 * Node 24; docs/decisions.md, "drizzle-orm is bundled into the build").
 */
const bundledDrizzleDoors: Plugin = {
  name: 'chio-bundled-drizzle-doors',
  enforce: 'pre',
  resolveId(source, importer) {
    if (importer === undefined || !source.endsWith('drizzle.js') || !source.startsWith('.')) return null;
    return DOORS.get(resolve(dirname(importer), source)) ?? null;
  },
};

// Two cores: at most two test files at once. CLI and multi-process tests spawn real children
// against the built dist/, so `npm test` builds first.
export default defineConfig({
  plugins: [bundledDrizzleDoors],
  test: {
    include: ['test/**/*.test.ts'],
    // One throwaway PostgreSQL server for the run (the PostgreSQL ledger's tests).
    globalSetup: ['test/setup/postgres.ts'],
    pool: 'forks',
    maxWorkers: 2,
    // Each worker runs its files one after another in one process, not a fresh process per file:
    // the suite is CPU-bound on two cores, and a fresh fork per file re-imported the SDKs and
    // vitest itself 130 times (import time 90 s → 25 s; the suite 797 s → 722 s on Node 20 in CI).
    // So a test file must leave the process as it found it (CONTRIBUTING.md, "Where the suite's
    // time goes"): no test writes the environment or globals or mocks a module, and each closes
    // the kernels, servers and children it opens.
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // The JSON report lets .ci/run print a plain "N passed, N failed" line.
    reporters: ['default', ['json', { outputFile: '.artifacts/vitest-results.json' }]],
  },
});
