/**
 * The built `chio` is a bundle (scripts/bundle-cli.mjs): dist/cli/main.js and its chunks beside it.
 * What the bundle must keep from the unbundled modules: every path a module computes from its own
 * location (migrations, worker threads, the explorer's assets, createRequire) still names the file
 * it named, and no module of ours is loaded twice (once inside the bundle, once from dist/src),
 * which would split a class such as ChioError into two that `instanceof` tells apart.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const CLI_DIR = new URL('../../dist/cli/', import.meta.url);
const bundleFiles = readdirSync(CLI_DIR).filter((f) => f === 'main.js' || /^bundle-.*\.js$/.test(f));
const texts = bundleFiles.map((f) => ({ file: f, text: readFileSync(new URL(f, CLI_DIR), 'utf8') }));

/** `new URL("<own twin>", import.meta.url).href`, the plugin's rewrite of `import.meta.url`. */
const OWN_URL = /new URL\("(\.\.\/src\/[^"]+)", import\.meta\.url\)\.href/g;
/** `new URL("<path>", new URL("<own twin>", import.meta.url).href)`: a path relative to the twin. */
const FROM_TWIN = /new URL\("([^"]+)", new URL\("(\.\.\/src\/[^"]+)", import\.meta\.url\)\.href\)/g;

describe('the bundled command line', () => {
  it('is what dist/cli/main.js holds, in more than one chunk (commands load their own)', () => {
    expect(texts.find((t) => t.file === 'main.js')?.text).toContain("chio's command line, bundled by");
    expect(bundleFiles.length).toBeGreaterThan(10);
    expect(existsSync(new URL('bundle-LICENSES.txt', CLI_DIR))).toBe(true);
    const licences = readFileSync(new URL('bundle-LICENSES.txt', CLI_DIR), 'utf8');
    for (const name of ['yargs', 'zod', 'yaml', '@modelcontextprotocol/sdk']) expect(licences).toContain(`\n${name} `);
  });

  it("rewrites each of our modules' own URL to its twin in dist/src, and every twin exists", () => {
    const twins = new Set(texts.flatMap(({ text }) => [...text.matchAll(OWN_URL)].map((m) => m[1]!)));
    // The ledger's migrations and worker threads, the explorer's assets, the guards' createRequire.
    for (const expected of [
      '../src/ledger/migrate.js',
      '../src/ledger/pg/migrate.js',
      '../src/ledger/wal-backfill.js',
      '../src/projections/explorer/site.js',
      '../src/kernel/guards/addresses.js',
    ])
      expect(twins).toContain(expected);
    for (const twin of twins) expect(existsSync(new URL(twin, CLI_DIR)), twin).toBe(true);
  });

  it('every path computed from a twin names a file or folder that the build wrote', () => {
    const targets = texts.flatMap(({ text }) =>
      [...text.matchAll(FROM_TWIN)].map((m) => fileURLToPath(new URL(m[1]!, new URL(m[2]!, CLI_DIR)))),
    );
    const names = targets.map((t) => t.slice(t.indexOf('/dist/')));
    expect(names).toEqual(
      expect.arrayContaining([
        '/dist/migrations/',
        '/dist/migrations-pg/',
        '/dist/src/ledger/wal-backfill-thread.js',
        '/dist/src/ledger/writer-thread.js',
        '/dist/src/projections/explorer/',
      ]),
    );
    // (The other arm of the worker URLs, taken only when the module runs as TypeScript under vitest,
    // names dist/ from src/: from a twin in dist/src it reads dist/dist/ and is never taken.)
    for (const target of targets.filter((t) => !t.includes('/dist/dist/')))
      expect(existsSync(target), target).toBe(true);
  });

  it('imports no module of ours from outside the bundle', () => {
    for (const { file, text } of texts) {
      const outside = [...text.matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g)]
        .map((m) => m[1]!)
        .filter((s) => s.startsWith('.') && !/^\.\/bundle-[\w-]+\.js$/.test(s));
      expect(outside, file).toEqual([]);
    }
  });
});
