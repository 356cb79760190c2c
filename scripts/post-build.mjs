// Copies the SQL migrations next to the compiled code (dist/migrations, dist/migrations-pg) so that
// dist/src/ledger/migrate.js finds them at ../../migrations (and pg/migrate.js at ../../../migrations-pg), marks the CLI executable, and puts the
// web explorer's page, stylesheet and bundled uPlot beside its compiled scripts (dist/explorer).
import { chmodSync, copyFileSync, cpSync, mkdirSync, rmSync } from 'node:fs';

rmSync('dist/migrations', { recursive: true, force: true });
cpSync('migrations', 'dist/migrations', { recursive: true });
rmSync('dist/migrations-pg', { recursive: true, force: true });
cpSync('migrations-pg', 'dist/migrations-pg', { recursive: true });
chmodSync('dist/cli/main.js', 0o755);

const web = 'src/projections/explorer/web';
for (const file of ['index.html', 'style.css', 'favicon.svg']) copyFileSync(`${web}/${file}`, `dist/explorer/${file}`);
mkdirSync('dist/explorer/vendor', { recursive: true });
for (const file of ['uPlot.iife.min.js', 'uPlot.min.css'])
  copyFileSync(`node_modules/uplot/dist/${file}`, `dist/explorer/vendor/${file}`);
copyFileSync('node_modules/uplot/LICENSE', 'dist/explorer/vendor/uPlot.LICENSE.txt');
