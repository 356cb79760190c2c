// Copies the SQL migrations next to the compiled code (dist/migrations) so that
// dist/src/ledger/migrate.js finds them at ../../migrations, and marks the CLI executable.
import { chmodSync, cpSync, rmSync } from 'node:fs';

rmSync('dist/migrations', { recursive: true, force: true });
cpSync('migrations', 'dist/migrations', { recursive: true });
chmodSync('dist/cli/main.js', 0o755);
