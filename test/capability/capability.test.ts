// Capability tokens: issued tokens verify for calls in scope; every failed check is named, in DESIGN §7 order; delegation only narrows.
import { describe, expect, it } from 'vitest';
import {
  delegateCapability,
  delegatedCapabilityId,
  issueCapability,
  verifyCapability,
} from '../../src/capability/index.js';
import type { CallTarget, CapabilityToken, Scope } from '../../src/capability/index.js';
import { canonicalJson, fromHex, generateSeed, signerFromSeed, toHex } from '../../src/crypto/index.js';

const kernel = signerFromSeed(fromHex('11'.repeat(32)));
const agent = signerFromSeed(fromHex('22'.repeat(32)));
const helper = signerFromSeed(fromHex('33'.repeat(32)));
const trustedIssuers = new Set([kernel.publicKeyHex]);
const NOW = 1_800_000_000;

const scope: Scope = {
  grants: [
    {
      server_id: 'fs',
      tool_name: 'read_file',
      operations: ['invoke'],
      constraints: [{ type: 'path_prefix', value: '/workspace' }],
    },
    {
      server_id: 'web',
      tool_name: '*',
      operations: ['invoke'],
      constraints: [
        { type: 'domain_glob', value: '*.example.com' },
        { type: 'max_args_size', value: 200 },
      ],
    },
    {
      server_id: 'notes',
      tool_name: 'append',
      operations: ['invoke'],
      constraints: [
        { type: 'regex_match', value: '^note:' },
        { type: 'max_length', value: 20 },
      ],
      max_invocations: 5,
    },
  ],
};
const token = issueCapability(kernel, { subject: agent.publicKeyHex, scope, ttlSeconds: 3600, now: NOW });
const call = (serverId: string, toolName: string, args: unknown): CallTarget => ({
  serverId,
  toolName,
  operation: 'invoke',
  arguments: args,
});
const verify = (t: unknown, target: CallTarget, extra: { now?: number; caller?: string } = {}) =>
  verifyCapability(t, {
    target,
    caller: extra.caller ?? agent.publicKeyHex,
    trustedIssuers,
    now: extra.now ?? NOW + 10,
  });

describe('issue and verify', () => {
  it('a token has the chio.capability.v1 shape and authorises calls within its scope', () => {
    expect(token).toMatchObject({
      schema: 'chio.capability.v1',
      issuer: kernel.publicKeyHex,
      subject: agent.publicKeyHex,
      issued_at: NOW,
      expires_at: NOW + 3600,
    });
    expect(token.id).toMatch(/^cap-[0-9a-f]{8}-[0-9a-f]{4}-7/);
    expect(verify(token, call('fs', 'read_file', { path: '/workspace/src/a.ts' }))).toMatchObject({
      ok: true,
      grantIndexes: [0],
    });
    expect(verify(token, call('web', 'fetch', { url: 'https://api.example.com/v1' }))).toMatchObject({
      ok: true,
      grantIndexes: [1],
    });
    expect(verify(token, call('notes', 'append', { text: 'note: hi' }))).toMatchObject({ ok: true, grantIndexes: [2] });
  });

  it('survives a JSON round trip (the signature is over RFC 8785 bytes, not object identity)', () => {
    expect(verify(JSON.parse(JSON.stringify(token)), call('fs', 'read_file', { path: '/workspace/x' })).ok).toBe(true);
  });
});

describe('each failed check is named', () => {
  const readOk = call('fs', 'read_file', { path: '/workspace/a' });
  const cases: Array<[string, () => unknown, CallTarget, { now?: number; caller?: string }, string]> = [
    ['forged signature', () => ({ ...token, signature: toHex(agent.sign('x')) }), readOk, {}, 'signature'],
    [
      'scope edited after signing',
      () => ({ ...token, scope: { grants: [{ ...scope.grants[0]!, tool_name: '*' }] } }),
      readOk,
      {},
      'signature',
    ],
    ['not yet valid', () => token, readOk, { now: NOW - 1 }, 'not_yet_valid'],
    ['expired', () => token, readOk, { now: NOW + 3600 }, 'expired'],
    ['wrong subject', () => token, readOk, { caller: helper.publicKeyHex }, 'subject'],
    ['tool out of scope', () => token, call('fs', 'write_file', { path: '/workspace/a' }), {}, 'scope'],
    ['server out of scope', () => token, call('shell', 'read_file', { path: '/workspace/a' }), {}, 'scope'],
    ['operation out of scope', () => token, { ...readOk, operation: 'subscribe' }, {}, 'scope'],
    ['path outside the prefix', () => token, call('fs', 'read_file', { path: '/etc/shadow' }), {}, 'constraint'],
    [
      'traversal out of the prefix',
      () => token,
      call('fs', 'read_file', { path: '/workspace/../etc/shadow' }),
      {},
      'constraint',
    ],
    [
      'sibling directory with the same prefix',
      () => token,
      call('fs', 'read_file', { path: '/workspace_evil/a' }),
      {},
      'constraint',
    ],
    ['relative path', () => token, call('fs', 'read_file', { path: 'workspace/a' }), {}, 'constraint'],
    ['no path at all', () => token, call('fs', 'read_file', { mode: 'fast' }), {}, 'constraint'],
    ['domain outside the glob', () => token, call('web', 'fetch', { url: 'https://example.org/' }), {}, 'constraint'],
    [
      'one of two urls outside the glob',
      () => token,
      call('web', 'fetch', { a: 'https://x.example.com', b: 'https://evil.test' }),
      {},
      'constraint',
    ],
    [
      'arguments too large',
      () => token,
      call('web', 'fetch', { url: 'https://a.example.com', pad: 'x'.repeat(300) }),
      {},
      'constraint',
    ],
    ['regex not matched', () => token, call('notes', 'append', { text: 'hello' }), {}, 'constraint'],
    ['string too long', () => token, call('notes', 'append', { text: `note: ${'x'.repeat(30)}` }), {}, 'constraint'],
    ['not a token', () => ({ hello: 'world' }), readOk, {}, 'schema'],
  ];
  for (const [name, make, target, extra, check] of cases) {
    it(`${name} → ${check}`, () => {
      const v = verify(make(), target, extra);
      expect(v).toMatchObject({ ok: false, check });
      expect((v as { reason: string }).reason.length).toBeGreaterThan(10);
    });
  }

  it('a token issued by an untrusted key → untrusted_issuer', () => {
    const rogue = signerFromSeed(generateSeed());
    const t = issueCapability(rogue, { subject: agent.publicKeyHex, scope, ttlSeconds: 60, now: NOW });
    expect(verify(t, readOk)).toMatchObject({ ok: false, check: 'untrusted_issuer' });
  });

  it('an invalid regex in a grant denies (fails closed) rather than throwing', () => {
    const t = issueCapability(kernel, {
      subject: agent.publicKeyHex,
      scope: {
        grants: [
          {
            server_id: 's',
            tool_name: 't',
            operations: ['invoke'],
            constraints: [{ type: 'regex_match', value: '(' }],
          },
        ],
      },
      ttlSeconds: 60,
      now: NOW,
    });
    expect(verify(t, call('s', 't', { a: 'b' }))).toMatchObject({ ok: false, check: 'constraint' });
  });
});

describe('delegation', () => {
  const narrow: Scope = {
    grants: [
      {
        server_id: 'fs',
        tool_name: 'read_file',
        operations: ['invoke'],
        constraints: [
          { type: 'path_prefix', value: '/workspace' },
          { type: 'path_prefix', value: '/workspace/docs' },
        ],
      },
    ],
  };
  const child = delegateCapability(token, agent, { delegatee: helper.publicKeyHex, scope: narrow, now: NOW + 5 });
  const asHelper = (t: unknown, target: CallTarget) => verify(t, target, { caller: helper.publicKeyHex });

  it('a narrowed delegation verifies for the delegatee, and carries its ancestry', () => {
    expect(child).toMatchObject({
      issuer: agent.publicKeyHex,
      subject: helper.publicKeyHex,
      parent_id: token.id,
      expires_at: token.expires_at,
    });
    expect(child.delegation_chain?.map((a) => a.id)).toEqual([token.id]);
    expect(asHelper(child, call('fs', 'read_file', { path: '/workspace/docs/a.md' }))).toMatchObject({
      ok: true,
      ancestorIds: [token.id],
    });
    expect(asHelper(child, call('fs', 'read_file', { path: '/workspace/src/a.ts' }))).toMatchObject({
      ok: false,
      check: 'constraint',
    });
    const grandchild = delegateCapability(child, helper, {
      delegatee: agent.publicKeyHex,
      scope: narrow,
      now: NOW + 6,
    });
    expect(verify(grandchild, call('fs', 'read_file', { path: '/workspace/docs/b.md' }))).toMatchObject({
      ok: true,
      ancestorIds: [token.id, child.id],
    });
  });

  it('delegating a wider scope is refused at the source', () => {
    expect(() =>
      delegateCapability(token, agent, {
        delegatee: helper.publicKeyHex,
        scope: { grants: [{ server_id: 'fs', tool_name: '*', operations: ['invoke'] }] },
      }),
    ).toThrowError(expect.objectContaining({ code: 'CHIO-CAPABILITY-INVALID' }));
    expect(() => delegateCapability(token, helper, { delegatee: helper.publicKeyHex, scope: narrow })).toThrow(
      /only the subject/,
    );
  });

  /** A delegation forged by hand: the holder signs whatever it likes, bypassing delegateCapability's checks. */
  function forge(parent: CapabilityToken, fields: Record<string, unknown>): unknown {
    const { delegation_chain, ...alone } = parent;
    const content = {
      schema: 'chio.capability.v1',
      issuer: agent.publicKeyHex,
      subject: helper.publicKeyHex,
      scope: narrow,
      issued_at: NOW + 5,
      expires_at: parent.expires_at,
      parent_id: parent.id,
      ...fields,
    };
    const body = { id: delegatedCapabilityId(content), ...content, ...('id' in fields ? { id: fields.id } : {}) };
    return {
      ...body,
      signature: toHex(agent.sign(canonicalJson(body))),
      delegation_chain: [...(delegation_chain ?? []), alone],
    };
  }

  it("a child carrying an id its signer chose (another token's, or a fresh uuid) → delegation, before any budget or revocation is keyed by it", () => {
    const victim = issueCapability(kernel, { subject: helper.publicKeyHex, scope: narrow, ttlSeconds: 3600, now: NOW });
    const sibling = delegateCapability(token, agent, { delegatee: helper.publicKeyHex, scope: narrow, now: NOW + 7 });
    for (const id of [
      victim.id,
      sibling.id,
      token.id,
      'cap-01900000-0000-7000-8000-0000000000aa',
      `cap-${'ab'.repeat(32)}`,
    ]) {
      const borrowed = forge(token, { id });
      expect(asHelper(borrowed, call('fs', 'read_file', { path: '/workspace/docs/a' })), id).toMatchObject({
        ok: false,
        check: 'delegation',
        reason: expect.stringContaining('does not carry the id its content gives it'),
      });
    }
    // The same child with its derived id is accepted: the refusal above is the id and nothing else.
    expect(asHelper(forge(token, {}), call('fs', 'read_file', { path: '/workspace/docs/a' }))).toMatchObject({
      ok: true,
    });
  });

  it('a delegation that widens the scope → delegation', () => {
    const wide = forge(token, { scope: { grants: [{ server_id: 'fs', tool_name: '*', operations: ['invoke'] }] } });
    expect(asHelper(wide, call('fs', 'write_file', { path: '/workspace/a' }))).toMatchObject({
      ok: false,
      check: 'delegation',
      reason: expect.stringContaining('widens'),
    });
  });

  it('a delegation that drops a parent constraint → delegation', () => {
    const loose = forge(token, {
      scope: { grants: [{ server_id: 'fs', tool_name: 'read_file', operations: ['invoke'], constraints: [] }] },
    });
    expect(asHelper(loose, call('fs', 'read_file', { path: '/etc/passwd' }))).toMatchObject({
      ok: false,
      check: 'delegation',
    });
  });

  it('a delegation that outlives its parent → delegation', () => {
    expect(
      asHelper(
        forge(token, { expires_at: token.expires_at + 1 }),
        call('fs', 'read_file', { path: '/workspace/docs/a' }),
      ),
    ).toMatchObject({ ok: false, check: 'delegation' });
  });

  it("a delegation signed by someone other than the parent's holder → delegation", () => {
    const { delegation_chain, ...alone } = token;
    const body = {
      schema: 'chio.capability.v1',
      id: child.id,
      issuer: helper.publicKeyHex,
      subject: helper.publicKeyHex,
      scope: narrow,
      issued_at: NOW + 5,
      expires_at: token.expires_at,
      parent_id: token.id,
    };
    const selfIssued = {
      ...body,
      signature: toHex(helper.sign(canonicalJson(body))),
      delegation_chain: [...(delegation_chain ?? []), alone],
    };
    expect(asHelper(selfIssued, call('fs', 'read_file', { path: '/workspace/docs/a' }))).toMatchObject({
      ok: false,
      check: 'delegation',
    });
  });

  it('a tampered ancestor, a missing chain, or a re-parented token → delegation', () => {
    const badAncestor = {
      ...child,
      delegation_chain: [
        {
          ...child.delegation_chain![0]!,
          scope: { grants: [{ server_id: '*', tool_name: '*', operations: ['invoke'] }] },
        },
      ],
    };
    expect(asHelper(badAncestor, call('fs', 'read_file', { path: '/workspace/docs/a' }))).toMatchObject({
      ok: false,
      check: 'delegation',
    });
    const { delegation_chain: _dc, ...noChain } = child;
    expect(asHelper(noChain, call('fs', 'read_file', { path: '/workspace/docs/a' }))).toMatchObject({
      ok: false,
      check: 'delegation',
    });
    const other = issueCapability(kernel, { subject: agent.publicKeyHex, scope, ttlSeconds: 3600, now: NOW });
    const reparented = { ...child, delegation_chain: [other] };
    expect(asHelper(reparented, call('fs', 'read_file', { path: '/workspace/docs/a' }))).toMatchObject({
      ok: false,
      check: 'delegation',
    });
  });
});
