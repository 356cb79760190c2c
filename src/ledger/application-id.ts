/**
 * The ledger file's identity in its SQLite header, on its own so that code which only needs to
 * recognise a ledger (the WAL backfill thread) loads nothing else.
 * Owns: the constant. Imports nothing.
 */

/** 'Chio' in ASCII: SQLite header bytes 68–71 (https://sqlite.org/fileformat.html §1.3.17). */
export const CHIO_APPLICATION_ID = 0x4368696f;
