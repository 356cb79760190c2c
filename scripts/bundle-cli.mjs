// Bundles the `chio` command line in place: dist/cli/main.js (tsc's output) becomes one module
// that holds what every command needs, plus one chunk per command group and shared chunks beside
// it, loaded by the same dynamic imports main.ts makes. Node 20 resolves, reads and links every
// ES module of a start-up one by one; a `chio receipt list` loaded ~400 files (our ~140, zod's 99,
// yaml's 73, yargs' ~60) and spent ~0.45 s starting, where `node -e 0` takes ~0.1 s.
//
// What must not change:
//  - Paths that modules compute from their own location (the migrations folders, worker scripts,
//    the explorer's assets, createRequire): each of our modules keeps its `import.meta.url`, rewritten
//    to the URL of its unbundled twin in dist/src, which stays where tsc wrote it. A worker thread
//    (the ledger's writer, the WAL backfill) therefore loads dist/src as before.
//  - Third-party modules keep the bundle's own URL: where a dependency is installed is not known
//    at build time. yargs then finds no locale files and prints its built-in English strings.
//  - Native and optional drivers stay outside: better-sqlite3 (a .node binding) and pg.
// The unbundled dist/cli/commands/*.js stay in place for tests and readers; main.js no longer loads them.
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { build } from 'esbuild';

const CLI_OUT = 'dist/cli';
/** Chunk files are named `bundle-<name>-<hash>.js`, so stale ones can be told from tsc's files. */
const CHUNK_PREFIX = 'bundle-';

/** Rewrites `import.meta.url` in our own compiled modules to the URL of the file itself. */
const ownModuleUrls = {
  name: 'own-module-urls',
  setup(b) {
    const dist = resolve('dist');
    const outDir = resolve(CLI_OUT);
    // Our modules declare and export; none is imported for what its top level does. Marked free of
    // side effects, a module whose exports a command never uses is left out of that command's chunks
    // (the kernel and yaml out of `chio receipt`, for one).
    // Only files tsc compiled from src/ or cli/ are marked: a bundle's chunks (drizzle's, or this
    // bundle's own when the build runs twice) are imported for their top level.
    b.onResolve({ filter: /^\./ }, (args) => {
      if (!args.importer.startsWith(dist + sep)) return undefined;
      const path = resolve(args.resolveDir, args.path);
      const source = relative(dist, path).replace(/\.js$/, '.ts');
      return path.startsWith(dist + sep) && existsSync(source) ? { path, sideEffects: false } : undefined;
    });
    b.onLoad({ filter: /\.js$/ }, (args) => {
      if (!args.path.startsWith(dist + sep)) return undefined;
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      // Every output file sits directly in dist/cli, so the way from a chunk to the twin is fixed.
      const fromOut = relative(outDir, args.path).split(sep).join('/');
      const own = `new URL(${JSON.stringify(fromOut.startsWith('.') ? fromOut : `./${fromOut}`)}, import.meta.url).href`;
      return { contents: text.replaceAll('import.meta.url', own), loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};

/** The licence of every package whose code went into the bundle, with its licence file when it ships one. */
function writeLicences(metafile) {
  // Folder → name; a nested copy (cliui's own string-width) is a package of its own.
  const packages = new Map();
  for (const input of Object.keys(metafile.inputs)) {
    const m = /^(.*node_modules\/((?:@[^/]+\/)?[^/]+)\/)/.exec(input);
    if (m !== null) packages.set(m[1], m[2]);
  }
  const sections = [...packages]
    .sort(([a, an], [b, bn]) => (an === bn ? (a < b ? -1 : 1) : an < bn ? -1 : 1))
    .map(([dir, name]) => {
      const pkg = JSON.parse(readFileSync(`${dir}package.json`, 'utf8'));
      const file = readdirSync(dir).find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f));
      const text = file === undefined ? '' : `\n${readFileSync(`${dir}${file}`, 'utf8').trim()}\n`;
      return `${name} ${pkg.version} — ${pkg.license ?? 'see its package'}${text}`;
    });
  writeFileSync(
    `${CLI_OUT}/bundle-LICENSES.txt`,
    `Third-party code bundled into dist/cli/main.js and dist/cli/${CHUNK_PREFIX}*.js:\n\n${sections.join('\n\n')}\n`,
  );
}

const BANNER_FIRST_LINE = "// chio's command line, bundled by scripts/bundle-cli.mjs";

/**
 * zod's namespace carries every locale it ships (`z.locales`, 64 modules, half of zod's bundled
 * bytes), and evaluating them took ~50 ms of each start. Nothing here reads `z.locales`; zod
 * itself loads English (its default) from locales/en.js directly, which stays.
 */
const englishOnlyZod = {
  name: 'english-only-zod',
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (args) => ({
      contents: "export { default as en } from './en.js';\n",
      loader: 'js',
      resolveDir: dirname(args.path),
    }));
  },
};

export async function bundleCli() {
  // tsc rewrites main.js on every build; a main.js that is already the bundle (post-build run
  // twice) was bundled from the same compiled files and is left as it is.
  if (readFileSync(`${CLI_OUT}/main.js`, 'utf8').includes(BANNER_FIRST_LINE)) return 0;
  const result = await build({
    entryPoints: { main: `${CLI_OUT}/main.js` },
    outdir: CLI_OUT,
    allowOverwrite: true,
    bundle: true,
    splitting: true,
    chunkNames: `${CHUNK_PREFIX}[name]-[hash]`,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: ['better-sqlite3', 'pg', 'pg-native'],
    // CommonJS dependencies (ajv, through the MCP SDK) call require(); an ES module has none.
    banner: {
      js: `${BANNER_FIRST_LINE}; third-party licences in bundle-LICENSES.txt beside it.\nimport { createRequire as __chioRequire } from 'node:module'; const require = __chioRequire(import.meta.url);`,
    },
    plugins: [ownModuleUrls, englishOnlyZod],
    metafile: true,
    logLevel: 'warning',
  });
  writeLicences(result.metafile);
  const written = new Set(Object.keys(result.metafile.outputs).map((f) => f.split('/').pop()));
  for (const f of readdirSync(CLI_OUT))
    if (f.startsWith(CHUNK_PREFIX) && f.endsWith('.js') && !written.has(f)) rmSync(`${CLI_OUT}/${f}`);
  // tsc's source map describes main.js before bundling.
  rmSync(`${CLI_OUT}/main.js.map`, { force: true });
  return written.size;
}
