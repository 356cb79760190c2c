// Every error code the product can emit is registered, with its URN and docs anchor (rule 7, DESIGN §8).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildErrorRegistry } from '../src/error-registry.js';
import { ERROR_CATALOGUE, errorDocsUrl, errorUrn } from '../src/errors.js';

const registry = JSON.parse(readFileSync('spec/errors/chio-error-registry.v1.json', 'utf8'));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

describe('error registry', () => {
  it('the committed registry is exactly the one generated from the catalogue', () => {
    expect(registry).toEqual(JSON.parse(JSON.stringify(buildErrorRegistry())));
  });

  it('every CHIO-* code written anywhere in src/, cli/ or examples/ is registered', () => {
    const registered = new Set(registry.codes.map((c: { code: string }) => c.code));
    const used = new Set<string>();
    for (const file of [...sourceFiles('src'), ...sourceFiles('cli'), ...sourceFiles('examples')]) {
      for (const m of readFileSync(file, 'utf8').matchAll(/'(CHIO-[A-Z0-9-]+)'/g)) used.add(m[1]!);
    }
    expect(used.size).toBeGreaterThan(10);
    expect([...used].filter((c) => !registered.has(c))).toEqual([]);
  });

  it('every JSON-RPC error code the wire surfaces define is registered', () => {
    const registered = new Set(registry.wire_codes.map((c: { code: number }) => c.code));
    const defined = new Set<number>();
    for (const file of [...sourceFiles('src/wire'), ...sourceFiles('src/edges'), ...sourceFiles('src/proxy')]) {
      for (const m of readFileSync(file, 'utf8').matchAll(/\b[A-Z_]+ = (-32\d{3});/g)) defined.add(Number(m[1]));
    }
    expect(defined.size).toBeGreaterThanOrEqual(7);
    expect([...defined].filter((c) => !registered.has(c))).toEqual([]);
  });

  it('URNs and docs anchors follow DESIGN §8', () => {
    expect(errorUrn('CHIO-CLI-SESSION-EMPTY')).toBe('urn:chio:error:cli:session-empty');
    expect(errorDocsUrl('CHIO-CLI-SESSION-EMPTY')).toBe(
      'https://chio.computer/docs/reference/errors#error-cli-session-empty',
    );
    for (const entry of registry.codes) {
      expect(entry.urn).toBe(errorUrn(entry.code));
      expect(entry.docs).toBe(errorDocsUrl(entry.code));
      expect(entry.help.length).toBeGreaterThan(10);
      expect([1, 2, 3]).toContain(entry.exit_code);
    }
    expect(registry.codes.length).toBe(Object.keys(ERROR_CATALOGUE).length);
  });
});
