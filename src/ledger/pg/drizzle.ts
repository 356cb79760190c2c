/**
 * drizzle-orm's PostgreSQL side at run time (pg-core, node-postgres), through one door for the same
 * reason as ../drizzle.ts: the build bundles both doors, sharing drizzle's core between them, so
 * `sql` and the operators are one implementation whichever backend builds a query.
 * Owns: nothing but re-exports. Imports drizzle-orm only (node-postgres brings the pg driver).
 */
export { drizzle } from 'drizzle-orm/node-postgres';
export { bigint, check, customType, index, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
