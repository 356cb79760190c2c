/**
 * drizzle-kit configuration: generates the SQL in `migrations/` from the ledger's table
 * definitions in `src/ledger/schema.ts`. Triggers and auditor views cannot be expressed in the
 * schema DSL, so they live in a custom migration (`drizzle-kit generate --custom`).
 * A migration that has been merged is never edited; a change is a new migration.
 */
import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'sqlite',
  schema: './src/ledger/schema.ts',
  out: './migrations',
});
