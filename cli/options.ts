/**
 * Parsing and validating CLI input with zod: times, limits, key files. Everything here is user
 * input and gets a CHIO-CLI-USAGE (or CHIO-CLI-IO) error naming the flag.
 * Owns: flag value formats, and the global flags' type every command module takes (here, not in
 * main.ts, which loads the command modules: no import circle). Imports src/errors, src/crypto and
 * src/input-file only.
 */
import { z } from 'zod';
import { parsePublicKeyHex } from '../src/crypto/index.js';
import { ChioError } from '../src/errors.js';
import { readInputText } from '../src/input-file.js';
import type { InputKind } from '../src/input-file.js';

/** The flags every command takes (cli/main.ts declares them): the ledger and the output format. */
export interface GlobalArgs {
  'receipt-db': string;
  json: boolean;
}

export const DEFAULT_RECEIPT_DB = './receipts.sqlite';

/** Unix seconds, or an ISO 8601 date/time. */
const TimeSchema = z.union([
  z
    .string()
    .regex(/^\d{1,15}$/)
    .transform(Number),
  z
    .string()
    .refine((s) => /^\d{4}-\d{2}-\d{2}/.test(s) && !Number.isNaN(Date.parse(s)), 'not an ISO 8601 time')
    .transform((s) => Math.floor(Date.parse(s) / 1000)),
]);

export function parseFlag<T>(flag: string, schema: z.ZodType<T>, value: unknown): T {
  const r = schema.safeParse(value);
  if (!r.success) {
    throw new ChioError(
      'CHIO-CLI-USAGE',
      `--${flag} ${JSON.stringify(value)}: ${r.error.issues.map((i) => i.message).join('; ')}`,
    );
  }
  return r.data;
}

export function parseTime(flag: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  return parseFlag(flag, TimeSchema, String(value));
}

/** A file the user named, read whole through the size-capped reader (regular files only). */
export function readTextFile(path: string, kind: InputKind): string {
  return readInputText(path, kind);
}

/** Public keys from `--trusted-kernel-pubkey` files (64 hex characters each). */
export function trustedKeys(files: readonly string[] | undefined): Set<string> | undefined {
  if (files === undefined || files.length === 0) return undefined;
  return new Set(files.map((f) => parsePublicKeyHex(readTextFile(f, 'public key'))));
}

/** A non-negative whole number of seconds. */
export function parseSeconds(flag: string, value: unknown): number {
  return parseFlag(flag, z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER), value);
}

export function asArray(value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  return (Array.isArray(value) ? value : [value]).map(String);
}
