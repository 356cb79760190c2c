// Member names in tool arguments are chosen by the agent. Canonicalizing a value must not keep any
// of it alive once the value is gone: otherwise a client that sends calls whose arguments have
// large, distinct member names (each message up to the edge's 4 MiB limit) grows the kernel's heap
// call after call until it runs out of memory.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/crypto/index.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

describe('canonicalization keeps nothing of the values it was given', () => {
  it('the heap does not grow with the member names of arguments already canonicalized', () => {
    const calls = 48;
    const nameBytes = 1 << 20;
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < calls; i++) {
      // One call's arguments as the edge parses them: one member with a large, distinct name.
      const args = JSON.parse(`{"${i}${'x'.repeat(nameBytes)}":1}`) as unknown;
      canonicalJson(args);
    }
    gc();
    const retainedMb = (process.memoryUsage().heapUsed - before) / 1e6;
    // 48 calls × 1 MiB names: a cache of names and their "name": prefixes would keep ~100 MB.
    expect(retainedMb).toBeLessThan(16);
  });
});
