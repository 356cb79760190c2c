/**
 * The ledger's one door to drizzle-orm at run time: the SQLite side, the migrator's file reader
 * and the query operators both backends use. Owns: nothing but re-exports. Imports drizzle-orm only.
 *
 * Why a door: the build bundles this file and pg/drizzle.ts into a handful of modules
 * (scripts/post-build.mjs). Node 22 and 24 re-read a package's whole `exports` map for every module
 * they load from that package; drizzle-orm's package.json is 179 KB and a ledger command loads
 * 112 of its modules, so each `chio` start spent over a second of CPU on it (Node 20 does not).
 * Type-only imports may still name drizzle-orm directly: they leave nothing at run time.
 */
export { and, asc, count, eq, gt, gte, like, lte, max, min, sql } from 'drizzle-orm';
export { drizzle } from 'drizzle-orm/better-sqlite3';
export { readMigrationFiles } from 'drizzle-orm/migrator';
export { blob, check, index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
