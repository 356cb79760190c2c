// The intact-token cache of verifyCapability (src/capability/verify.ts): a token whose bytes passed
// once skips canonicalisation and signature checks when presented again, but only with exactly
// those bytes. Hostile cases: a token changed after it was cached (in the caller's object, in its
// JSON text, in its delegation chain, in the verdict's own copy) is checked in full and refused;
// every check that depends on the call or the clock still runs on a hit; junk and endless distinct
// tokens cannot grow the cache past its bound.
import { beforeEach, describe, expect, it } from 'vitest';
import {
  capabilityCacheStats,
  clearCapabilityCache,
  delegateCapability,
  issueCapability,
  verifyCapability,
} from '../../src/capability/index.js';
import type { CallTarget, CapabilityToken } from '../../src/capability/index.js';
import { fromHex, signerFromSeed } from '../../src/crypto/index.js';

const kernel = signerFromSeed(fromHex('41'.repeat(32)));
const agent = signerFromSeed(fromHex('42'.repeat(32)));
const helper = signerFromSeed(fromHex('43'.repeat(32)));
const trustedIssuers = new Set([kernel.publicKeyHex]);
const NOW = 1_800_000_000;
const TTL = 3600;

const root = issueCapability(kernel, {
  subject: agent.publicKeyHex,
  scope: {
    grants: [
      {
        server_id: 'fs',
        tool_name: 'read_file',
        operations: ['invoke'],
        constraints: [{ type: 'path_prefix', value: '/workspace' }],
        max_invocations: 10,
      },
    ],
  },
  ttlSeconds: TTL,
  now: NOW,
});
const child = delegateCapability(root, agent, {
  delegatee: helper.publicKeyHex,
  scope: {
    grants: [
      {
        server_id: 'fs',
        tool_name: 'read_file',
        operations: ['invoke'],
        constraints: [{ type: 'path_prefix', value: '/workspace/docs' }],
        max_invocations: 3,
      },
    ],
  },
  now: NOW,
});
const read = (path: string): CallTarget => ({
  serverId: 'fs',
  toolName: 'read_file',
  operation: 'invoke',
  arguments: { path },
});
const verify = (
  t: unknown,
  extra: { now?: number; caller?: string; target?: CallTarget; trusted?: ReadonlySet<string> } = {},
) =>
  verifyCapability(t, {
    target: extra.target ?? read('/workspace/docs/a.md'),
    caller: extra.caller ?? agent.publicKeyHex,
    trustedIssuers: extra.trusted ?? trustedIssuers,
    now: extra.now ?? NOW + 10,
  });
const copy = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

beforeEach(() => clearCapabilityCache());

describe('a token presented again is served from the cache', () => {
  it('the second verification of the same bytes is a hit, as a new object or the same one', () => {
    expect(verify(root).ok).toBe(true);
    expect(capabilityCacheStats()).toMatchObject({ size: 1, hits: 0, misses: 1 });
    expect(verify(copy(root)).ok).toBe(true);
    expect(verify(root).ok).toBe(true);
    expect(capabilityCacheStats()).toMatchObject({ size: 1, hits: 2, misses: 1 });
  });

  it('a token that failed is never remembered', () => {
    expect(verify(root, { now: NOW + TTL })).toMatchObject({ ok: false, check: 'expired' });
    expect(verify(root, { caller: helper.publicKeyHex })).toMatchObject({ ok: false, check: 'subject' });
    expect(capabilityCacheStats().size).toBe(0);
  });
});

describe('a token changed after a cached success is checked in full and refused', () => {
  it('the caller mutates the very object that verified: widened scope, longer life, other signature', () => {
    const token = copy(root);
    expect(verify(token).ok).toBe(true);
    token.scope.grants[0]!.constraints = [{ type: 'path_prefix', value: '/' }];
    expect(verify(token, { target: read('/etc/passwd') })).toMatchObject({ ok: false, check: 'signature' });
    const later = copy(root);
    later.expires_at += 1;
    expect(verify(later)).toMatchObject({ ok: false, check: 'signature' });
    const resigned = copy(root);
    resigned.signature = `${resigned.signature.slice(0, -1)}${resigned.signature.endsWith('0') ? '1' : '0'}`;
    expect(verify(resigned)).toMatchObject({ ok: false, check: 'signature' });
    // The original bytes still verify (and are still a hit).
    const hits = capabilityCacheStats().hits;
    expect(verify(root).ok).toBe(true);
    expect(capabilityCacheStats().hits).toBe(hits + 1);
  });

  it("every one-character alteration of a cached token's JSON text is refused", () => {
    expect(verify(root).ok).toBe(true);
    const text = JSON.stringify(root);
    let judged = 0;
    for (let i = 0; i < text.length; i++) {
      const replacement = ['0', '1', 'a', 'f'].find((c) => c !== text[i])!;
      let altered: unknown;
      try {
        altered = JSON.parse(text.slice(0, i) + replacement + text.slice(i + 1));
      } catch {
        continue; // not JSON: never reaches a verifier
      }
      judged++;
      const verdict = verify(altered, {
        target: {
          ...read('/workspace/docs/a.md'),
          serverId:
            (altered as { scope?: { grants?: Array<{ server_id?: string }> } }).scope?.grants?.[0]?.server_id ?? 'fs',
        },
      });
      expect(verdict.ok, `altered at ${i}: ${text.slice(Math.max(0, i - 10), i + 10)}`).toBe(false);
    }
    expect(judged).toBeGreaterThan(text.length / 2);
    expect(capabilityCacheStats().size).toBe(1);
  });

  it("an ancestor in the delegation chain (not covered by the token's own signature) changed after a hit", () => {
    expect(verify(child, { caller: helper.publicKeyHex }).ok).toBe(true);
    expect(verify(child, { caller: helper.publicKeyHex }).ok).toBe(true);
    expect(capabilityCacheStats().hits).toBe(1);
    const widened = copy(child);
    widened.delegation_chain![0]!.scope.grants[0]!.max_invocations = 1_000_000;
    expect(verify(widened, { caller: helper.publicKeyHex })).toMatchObject({
      ok: false,
      check: 'delegation',
      reason: expect.stringMatching(/invalid signature/),
    });
    const dropped = copy(child);
    delete dropped.delegation_chain;
    expect(verify(dropped, { caller: helper.publicKeyHex })).toMatchObject({ ok: false, check: 'delegation' });
  });

  it("changing the verdict's token does not change what the cache vouches for", () => {
    const verdict = verify(copy(root));
    if (!verdict.ok) throw new Error('expected the token to verify');
    verdict.token.scope.grants[0]!.operations.push('delegate');
    verdict.token.expires_at += 10_000;
    expect(verify(verdict.token)).toMatchObject({ ok: false, check: 'signature' });
    expect(verify(root).ok).toBe(true);
    expect(verify(root, { now: NOW + TTL })).toMatchObject({ ok: false, check: 'expired' });
  });
});

describe('a hit still runs every check that depends on the call or the clock', () => {
  it('expiry and not-before against the time of each call', () => {
    expect(verify(root, { now: NOW + 10 }).ok).toBe(true);
    expect(verify(root, { now: NOW + TTL - 1 }).ok).toBe(true);
    expect(verify(root, { now: NOW + TTL })).toMatchObject({ ok: false, check: 'expired' });
    expect(verify(root, { now: NOW - 1 })).toMatchObject({ ok: false, check: 'not_yet_valid' });
    expect(capabilityCacheStats().hits).toBeGreaterThanOrEqual(3);
  });

  it('subject, issuer trust, scope and constraints against each call', () => {
    expect(verify(root).ok).toBe(true);
    expect(verify(root, { caller: helper.publicKeyHex })).toMatchObject({ ok: false, check: 'subject' });
    expect(verify(root, { trusted: new Set() })).toMatchObject({ ok: false, check: 'untrusted_issuer' });
    expect(verify(root, { trusted: new Set([helper.publicKeyHex]) })).toMatchObject({
      ok: false,
      check: 'untrusted_issuer',
    });
    expect(verify(root, { target: { ...read('/workspace/a'), toolName: 'write_file' } })).toMatchObject({
      ok: false,
      check: 'scope',
    });
    expect(verify(root, { target: read('/etc/shadow') })).toMatchObject({ ok: false, check: 'constraint' });
    expect(capabilityCacheStats().hits).toBe(5);
  });

  it('a cached delegated token whose root is no longer trusted is refused', () => {
    expect(verify(child, { caller: helper.publicKeyHex }).ok).toBe(true);
    expect(verify(child, { caller: helper.publicKeyHex, trusted: new Set([agent.publicKeyHex]) })).toMatchObject({
      ok: false,
      check: 'delegation',
    });
    expect(verify(child, { caller: helper.publicKeyHex, target: read('/workspace/src/a.ts') })).toMatchObject({
      ok: false,
      check: 'constraint',
    });
    expect(verify(child, { caller: helper.publicKeyHex, now: root.expires_at })).toMatchObject({
      ok: false,
      check: 'expired',
    });
    expect(capabilityCacheStats().hits).toBe(3);
  });
});

describe('the cache is bounded', () => {
  it('10,000 distinct valid tokens leave it at its limit, least recently used out first', () => {
    const { limit } = capabilityCacheStats();
    expect(limit).toBeLessThanOrEqual(4096);
    let first: CapabilityToken | undefined;
    for (let i = 0; i < 10_000; i++) {
      const t = issueCapability(kernel, {
        subject: agent.publicKeyHex,
        scope: { grants: [{ server_id: 'fs', tool_name: 'read_file', operations: ['invoke'] }] },
        ttlSeconds: TTL + i,
        now: NOW,
      });
      first ??= t;
      expect(verify(t).ok).toBe(true);
      if (i === 0) expect(verify(root).ok).toBe(true);
      // `root` kept in use: it stays while the others come and go.
      if (i % 500 === 0) expect(verify(root).ok).toBe(true);
    }
    expect(capabilityCacheStats().size).toBe(limit);
    const before = capabilityCacheStats();
    expect(verify(root).ok).toBe(true);
    expect(capabilityCacheStats().hits).toBe(before.hits + 1);
    // The first of them was evicted: checked in full again, and still good.
    expect(verify(first).ok).toBe(true);
    expect(capabilityCacheStats()).toMatchObject({ size: limit, misses: before.misses + 1 });
  }, 120_000);

  it('tokens that fail (junk, bad signatures, self-signed) add nothing', () => {
    const rogue = signerFromSeed(fromHex('44'.repeat(32)));
    for (let i = 0; i < 2000; i++) {
      const forged = copy(root);
      forged.expires_at = NOW + TTL + 1 + i;
      expect(verify(forged).ok).toBe(false);
      const selfSigned = issueCapability(rogue, {
        subject: agent.publicKeyHex,
        scope: { grants: [{ server_id: 'fs', tool_name: '*', operations: ['invoke'] }] },
        ttlSeconds: TTL + i,
        now: NOW,
      });
      expect(verify(selfSigned)).toMatchObject({ ok: false, check: 'untrusted_issuer' });
      expect(verify({ junk: i }).ok).toBe(false);
    }
    expect(capabilityCacheStats().size).toBe(0);
  }, 120_000);
});
