/** A ledger file at an older schema: the first `count` migrations applied as chio did when they were the newest (no entries yet). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { CHIO_APPLICATION_ID } from '../../src/ledger/index.js';

const MIGRATIONS = new URL('../../migrations/', import.meta.url).pathname;

export function oldSchema(path: string, count: number): Database.Database {
  const journal = JSON.parse(readFileSync(join(MIGRATIONS, 'meta', '_journal.json'), 'utf8')) as {
    entries: Array<{ tag: string }>;
  };
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  for (const e of journal.entries.slice(0, count)) {
    for (const statement of readFileSync(join(MIGRATIONS, `${e.tag}.sql`), 'utf8').split('--> statement-breakpoint'))
      if (statement.trim() !== '') db.exec(statement);
  }
  db.pragma(`application_id = ${CHIO_APPLICATION_ID}`);
  db.pragma(`user_version = ${count}`);
  return db;
}
