// Member names in tool arguments are chosen by the agent. Canonicalizing a value must not keep any
// of it alive once the value is gone: otherwise a client that sends calls whose arguments have
// large, distinct member names (each message up to the edge's 4 MiB limit) grows the kernel's heap
// call after call until it runs out of memory.
// Measured in a fresh process (the built module, this Node): a test worker's heap also holds the
// runner's own allocations, which move by tens of MB between runs on some Node lines.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const CRYPTO = new URL('../../dist/src/crypto/index.js', import.meta.url).href;

/** MB of heap still used, after a full GC, once 48 argument objects with distinct 1 MiB member names are gone. */
const PROGRAM = `
const { canonicalJson } = await import(${JSON.stringify(CRYPTO)});
const canonicalize = process.argv[1] === 'canonicalize';
gc();
const before = process.memoryUsage().heapUsed;
for (let i = 0; i < 48; i++) {
  // One call's arguments as the edge parses them: one member with a large, distinct name.
  const args = JSON.parse('{"' + i + 'x'.repeat(1 << 20) + '":1}');
  if (canonicalize) canonicalJson(args);
}
gc();
console.log((process.memoryUsage().heapUsed - before) / 1e6);
`;

function retainedMb(mode: 'parse only' | 'canonicalize'): number {
  const r = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', PROGRAM, mode], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(r.status, r.stderr).toBe(0);
  return Number(r.stdout.trim());
}

describe('canonicalization keeps nothing of the values it was given', () => {
  it('the heap does not grow with the member names of arguments already canonicalized', () => {
    const parsed = retainedMb('parse only');
    const canonicalized = retainedMb('canonicalize');
    // 48 calls × 1 MiB names: a cache of names and their "name": prefixes would keep ~100 MB.
    expect(canonicalized - parsed).toBeLessThan(16);
  });
});
