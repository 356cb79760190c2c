// vitest global setup: one throwaway PostgreSQL server for the whole run (scripts/postgres-cluster.mjs:
// Debian's binaries, a cluster in a temporary directory on a free 127.0.0.1 port, run as a
// non-root user), unless CHIO_TEST_PG_URL names a server already running. Tests get its URL with
// inject('pgAdminUrl') and make their own databases (test/helpers/postgres.ts).
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  const given = process.env.CHIO_TEST_PG_URL;
  if (given !== undefined && given !== '') {
    project.provide('pgAdminUrl', given);
    return () => {};
  }
  // @ts-expect-error: a plain .mjs script without type declarations
  const { startCluster } = (await import('../../scripts/postgres-cluster.mjs')) as {
    startCluster: () => Promise<{ url: string; stop(): void }>;
  };
  const cluster = await startCluster();
  project.provide('pgAdminUrl', cluster.url);
  return () => cluster.stop();
}
