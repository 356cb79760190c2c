// A co-producer's key given in trustedKernelKeys counts: its revocations deny, its receipts use
// budgets. A key given as the library user read it (a trailing newline from a key file, or
// surrounding spaces) counts like the key itself; anything that is not a key is refused before the
// ledger is opened — the kernel never runs with a trusted key that silently matches nothing.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fromHex, signerFromSeed } from '../../src/crypto/index.js';
import { Kernel } from '../../src/kernel/index.js';
import { tempDir } from '../helpers/tmp.js';
import { CountingToolServer } from '../helpers/tool-server.js';

const SEED_A = fromHex('5a'.repeat(32));
const SEED_B = fromHex('5b'.repeat(32));
const agent = signerFromSeed(fromHex('61'.repeat(32)));
const dir = tempDir();
let n = 0;
const opened: Kernel[] = [];
afterEach(async () => {
  for (const k of opened.splice(0)) await k.close();
});

describe("a trusted co-producer's revocation counts", () => {
  for (const spelling of ['\n', ' ', '\r\n']) {
    it(`with the key written as ${JSON.stringify(`<key>${spelling}`)}`, async () => {
      const path = join(dir, `t-${++n}.sqlite`);
      const b = Kernel.open({ ledgerPath: path, seed: SEED_B });
      opened.push(b);
      const a = Kernel.open({ ledgerPath: path, seed: SEED_A, trustedKernelKeys: [`${b.publicKeyHex}${spelling}`] });
      opened.push(a);
      a.registerToolServer(new CountingToolServer());
      const token = a.issueCapability({
        subject: agent.publicKeyHex,
        scope: { grants: [{ server_id: 'fs', tool_name: 'read_file', operations: ['invoke'] }] },
      });
      await b.revokeCapability(token.id);
      const r = await a.evaluateToolCall({
        capability: token,
        caller: agent.publicKeyHex,
        serverId: 'fs',
        toolName: 'read_file',
        arguments: { path: '/workspace/a' },
      });
      expect(r.ok ? 'allowed' : r.guard).toBe('revocation');
    });
  }
});

describe('a trusted kernel key that is not a key', () => {
  for (const bad of ['', 'not-a-key', '5b'.repeat(31), `${'5b'.repeat(32)}00`]) {
    it(`${JSON.stringify(bad.length > 20 ? `${bad.slice(0, 8)}…(${bad.length} chars)` : bad)} is refused with CHIO-CRYPTO-BAD-KEY before the ledger file exists`, () => {
      const path = join(dir, `bad-${++n}.sqlite`);
      expect(() => Kernel.open({ ledgerPath: path, seed: SEED_A, trustedKernelKeys: [bad] })).toThrow(
        expect.objectContaining({ code: 'CHIO-CRYPTO-BAD-KEY' }),
      );
      expect(existsSync(path)).toBe(false);
    });
  }
});
