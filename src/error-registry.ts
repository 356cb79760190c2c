/**
 * The error registry document (`spec/errors/chio-error-registry.v1.json`) derived from the code
 * catalogue in errors.ts. `npm run errors:registry` writes it; a test keeps the file identical.
 * Owns: the registry's shape. Imports only errors.ts.
 */
import { ERROR_CATALOGUE, errorDocsUrl, errorUrn, EXIT, WIRE_ERROR_CODES } from './errors.js';

export function buildErrorRegistry(): Record<string, unknown> {
  return {
    schema: 'chio.error-registry.v1',
    description: 'Every error code the chio product emits. Generated from src/errors.ts; do not edit by hand.',
    exit_codes: {
      [EXIT.ok]: 'success',
      [EXIT.verificationFailed]: 'verification failed',
      [EXIT.badInput]: 'bad input or usage',
      [EXIT.fault]: 'fault: I/O, database locked, or a bug',
    },
    codes: Object.entries(ERROR_CATALOGUE).map(([code, entry]) => ({
      code,
      urn: errorUrn(code),
      docs: errorDocsUrl(code),
      domain: code.split('-')[1]!.toLowerCase(),
      exit_code: entry.exit,
      summary: entry.summary,
      help: entry.help,
    })),
    wire_codes: Object.entries(WIRE_ERROR_CODES).map(([code, entry]) => ({ code: Number(code), ...entry })),
  };
}
