/**
 * Prepared statements kept per connection: a statement the hot path runs on every call (a
 * reservation's inserts, the revocation lookup, budget counts) is compiled once per connection,
 * not once per call (better-sqlite3's `prepare` parses the SQL each time, tens of µs).
 * Keyed by the connection object and the SQL text; a closed connection's statements go with it.
 * Owns: that cache. Imports better-sqlite3 types only.
 */
import type { Database, Statement } from 'better-sqlite3';

const cache = new WeakMap<Database, Map<string, Statement>>();

/** The connection's statement for `sql`, prepared on first use. */
export function statement(db: Database, sql: string): Statement {
  let byText = cache.get(db);
  if (byText === undefined) {
    byText = new Map();
    cache.set(db, byText);
  }
  let s = byText.get(sql);
  if (s === undefined) {
    s = db.prepare(sql);
    byText.set(sql, s);
  }
  return s;
}
