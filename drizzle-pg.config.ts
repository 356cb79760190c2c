/**
 * drizzle-kit configuration for the PostgreSQL ledger (DESIGN §11): generates `migrations-pg/`
 * from `src/ledger/pg/schema.ts`. Triggers and auditor views are a custom migration there
 * (`drizzle-kit generate --config drizzle-pg.config.ts --custom`). A merged migration is never edited.
 */
import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: './src/ledger/pg/schema.ts',
  out: './migrations-pg',
});
