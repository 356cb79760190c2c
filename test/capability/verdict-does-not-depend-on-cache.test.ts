// verifyCapability answers every input with a verdict (never a throw), and the same verdict whether
// or not the same token was verified before: the intact-token cache only saves work. A token object
// with a member explicitly set to undefined (possible in-process, never in JSON) is the same token
// text as one without it, so the cache must not make one of them pass where the other throws.
import { beforeEach, describe, expect, it } from 'vitest';
import { clearCapabilityCache, issueCapability, verifyCapability } from '../../src/capability/index.js';
import { fromHex, signerFromSeed } from '../../src/crypto/index.js';

const kernel = signerFromSeed(fromHex('41'.repeat(32)));
const agent = signerFromSeed(fromHex('42'.repeat(32)));
const NOW = 1_800_000_000;
const token = issueCapability(kernel, {
  subject: agent.publicKeyHex,
  scope: { grants: [{ server_id: 'fs', tool_name: 'read_file', operations: ['invoke'] }] },
  ttlSeconds: 3600,
  now: NOW,
});
const options = {
  target: { serverId: 'fs', toolName: 'read_file', operation: 'invoke' as const, arguments: {} },
  caller: agent.publicKeyHex,
  trustedIssuers: new Set([kernel.publicKeyHex]),
  now: NOW + 10,
};
const judge = (t: unknown) => {
  try {
    const v = verifyCapability(t, options);
    return v.ok ? 'ok' : v.check;
  } catch (e) {
    return `threw: ${(e as Error).message}`;
  }
};

beforeEach(() => clearCapabilityCache());

describe('the verdict on a token does not depend on what was verified before', () => {
  for (const [name, variant] of [
    ['parent_id: undefined', { ...token, parent_id: undefined }],
    [
      'a grant with max_invocations: undefined',
      { ...token, scope: { grants: [{ ...token.scope.grants[0]!, max_invocations: undefined }] } },
    ],
  ] as const) {
    it(`${name}: a verdict, and the same one cold and after the plain token was verified`, () => {
      const cold = judge(variant);
      expect(cold).not.toMatch(/^threw/);
      clearCapabilityCache();
      expect(judge(token)).toBe('ok');
      expect(judge(variant)).toBe(cold);
    });
  }
});
