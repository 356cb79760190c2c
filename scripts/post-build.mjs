// Copies the SQL migrations next to the compiled code (dist/migrations, dist/migrations-pg) so that
// dist/src/ledger/migrate.js finds them at ../../migrations (and pg/migrate.js at ../../../migrations-pg), marks the CLI executable, and puts the
// web explorer's page, stylesheet and bundled uPlot beside its compiled scripts (dist/explorer), and
// bundles the ledger's two doors to drizzle-orm (src/ledger/drizzle.ts, src/ledger/pg/drizzle.ts) in
// place, their shared core in one chunk beside them: a ledger command then loads 3 modules of
// drizzle's instead of 112, which Node 22 and 24 make costly (the doors' comments say why); last,
// bundles the command line (scripts/bundle-cli.mjs).
import { chmodSync, copyFileSync, cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';
import { bundleCli } from './bundle-cli.mjs';

rmSync('dist/migrations', { recursive: true, force: true });
cpSync('migrations', 'dist/migrations', { recursive: true });
rmSync('dist/migrations-pg', { recursive: true, force: true });
cpSync('migrations-pg', 'dist/migrations-pg', { recursive: true });

const web = 'src/projections/explorer/web';
for (const file of ['index.html', 'style.css', 'favicon.svg']) copyFileSync(`${web}/${file}`, `dist/explorer/${file}`);
mkdirSync('dist/explorer/vendor', { recursive: true });
for (const file of ['uPlot.iife.min.js', 'uPlot.min.css'])
  copyFileSync(`node_modules/uplot/dist/${file}`, `dist/explorer/vendor/${file}`);
copyFileSync('node_modules/uplot/LICENSE', 'dist/explorer/vendor/uPlot.LICENSE.txt');

const ledgerOut = 'dist/src/ledger';
const bundled = await build({
  entryPoints: { drizzle: `${ledgerOut}/drizzle.js`, 'pg/drizzle': `${ledgerOut}/pg/drizzle.js` },
  outdir: ledgerOut,
  allowOverwrite: true,
  bundle: true,
  splitting: true,
  chunkNames: 'drizzle-core-[hash]',
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Loaded by drizzle's own modules as the application would: the native SQLite binding and the PostgreSQL driver.
  external: ['better-sqlite3', 'pg'],
  banner: {
    js: '// drizzle-orm (Apache-2.0, see drizzle-orm.LICENSE.txt beside this file), bundled by scripts/post-build.mjs',
  },
  metafile: true,
  logLevel: 'warning',
});
// Chunks of an earlier build are removed only now: a second post-build over already bundled doors
// reads the chunk they import.
const written = new Set(Object.keys(bundled.metafile.outputs).map((f) => f.split('/').pop()));
for (const f of readdirSync(ledgerOut))
  if (f.startsWith('drizzle-core-') && !written.has(f)) rmSync(`${ledgerOut}/${f}`);
// drizzle-orm's npm package carries no licence file; its package.json names the licence and the source.
const drizzlePackage = JSON.parse(readFileSync('node_modules/drizzle-orm/package.json', 'utf8'));
writeFileSync(
  `${ledgerOut}/drizzle-orm.LICENSE.txt`,
  `drizzle-orm ${drizzlePackage.version}, bundled into drizzle.js, pg/drizzle.js and drizzle-core-*.js in this folder.\n` +
    `Licence: ${drizzlePackage.license} (https://www.apache.org/licenses/LICENSE-2.0).\n` +
    `Source: ${drizzlePackage.repository?.url ?? drizzlePackage.homepage ?? 'https://github.com/drizzle-team/drizzle-orm'}\n`,
);
// tsc's source maps describe the files before bundling.
for (const f of ['drizzle.js.map', 'pg/drizzle.js.map']) rmSync(`${ledgerOut}/${f}`, { force: true });

// Last: the command line, bundled in place from the files above (scripts/bundle-cli.mjs says why).
await bundleCli();
chmodSync('dist/cli/main.js', 0o755);
