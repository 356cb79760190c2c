import { defineConfig } from 'vitest/config';

// Two cores: at most two test files at once. CLI and multi-process tests spawn real children
// against the built dist/, so `npm test` builds first.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One throwaway PostgreSQL server for the run (the PostgreSQL ledger's tests).
    globalSetup: ['test/setup/postgres.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // The JSON report lets .ci/run print a plain "N passed, N failed" line.
    reporters: ['default', ['json', { outputFile: '.artifacts/vitest-results.json' }]],
  },
});
