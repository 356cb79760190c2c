// Capability constraints hold for every argument, through the kernel on a real ledger: each attack
// that once walked around a constraint (a URL hidden by a leading space, a scheme-relative or bare
// host beside a satisfying `host`, a regex satisfied by a decoy, a string nested past where
// max_length looked, a key never measured) is a signed deny receipt from the capability check; the
// tool never runs, nothing is left reserved, and the chain verifies. Generated trees with a decoy
// beside a violating value are denied the same way, and the same calls made honest are allowed.
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { issueCapability } from '../../src/capability/index.js';
import type { Constraint } from '../../src/capability/index.js';
import { fromHex, signerFromSeed } from '../../src/crypto/index.js';
import { Kernel, normalizePolicy } from '../../src/kernel/index.js';
import { openLedger, verifyChain } from '../../src/ledger/index.js';
import { verifyReceipt } from '../../src/receipt/index.js';
import { tempDir } from '../helpers/tmp.js';
import { CountingToolServer } from '../helpers/tool-server.js';

const dir = tempDir('chio-constraints-');
const agent = signerFromSeed(fromHex('81'.repeat(32)));
const ledgerPath = join(dir, 'ledger.sqlite');
// The egress allowlist lets the honest calls reach the example hosts; every other guard keeps its default.
const policy = normalizePolicy({ guards: { 'egress-allowlist': { allow: ['example.com', '*.example.com'] } } });
const kernel = Kernel.open({ ledgerPath, seed: fromHex('82'.repeat(32)), policy });
const server = new CountingToolServer();
kernel.registerToolServer(server);
afterAll(() => kernel.close());

const capabilityWith = (constraint: Constraint) =>
  kernel.issueCapability({
    subject: agent.publicKeyHex,
    scope: {
      grants: [{ server_id: 'fs', tool_name: 'hello_tool', operations: ['invoke'], constraints: [constraint] }],
    },
  });
const callWith = (constraint: Constraint, args: unknown) =>
  kernel.evaluateToolCall({
    capability: capabilityWith(constraint),
    caller: agent.publicKeyHex,
    serverId: 'fs',
    toolName: 'hello_tool',
    arguments: args,
    sessionId: 'attacks',
  });

function ledgerState(): { chainOk: boolean; pending: number } {
  const ledger = openLedger(ledgerPath, { readonly: true });
  try {
    const { n } = ledger.db.prepare('SELECT count(*) AS n FROM pending_calls').get() as { n: number };
    return { chainOk: verifyChain(ledger).ok, pending: n };
  } finally {
    ledger.close();
  }
}

/** The call is refused by the capability's constraint check, with a signed receipt, and the tool never runs. */
async function expectConstraintDeny(constraint: Constraint, args: unknown): Promise<void> {
  const before = server.calls.length;
  const r = await callWith(constraint, args);
  expect(r, JSON.stringify(args)).toMatchObject({
    ok: false,
    verdict: 'deny',
    guard: 'capability',
    receipt: {
      decision: { verdict: 'deny', guard: 'capability' },
      evidence: [{ guard_name: 'capability', verdict: false, details: 'constraint' }],
    },
  });
  expect((r as { reason: string }).reason).toMatch(/^capability constraint: /);
  expect(verifyReceipt(JSON.parse(JSON.stringify(r.receipt))).ok).toBe(true);
  expect(server.calls.length).toBe(before);
}

async function expectAllowed(constraint: Constraint, args: unknown): Promise<void> {
  const before = server.calls.length;
  const r = await callWith(constraint, args);
  expect(r, JSON.stringify(args)).toMatchObject({ ok: true, receipt: { decision: { verdict: 'allow' } } });
  expect(server.calls.length).toBe(before + 1);
}

const exact: Constraint = { type: 'domain_exact', value: 'api.example.com' };
const regex: Constraint = { type: 'regex_match', value: '^/srv/app/[a-z]+$' };
const ten: Constraint = { type: 'max_length', value: 10 };
const prefix: Constraint = { type: 'path_prefix', value: '/srv/app' };

function nest(value: unknown, levels: number): unknown {
  let v = value;
  for (let i = 0; i < levels; i++) v = i % 2 === 0 ? { a: v } : [v];
  return v;
}

describe('the attacks that walked around a constraint are signed denials', () => {
  const attacks: Array<[string, Constraint, unknown, unknown]> = [
    // [name, constraint, hostile arguments, the same call made honest]
    [
      'domain_exact: a leading space hides the scheme',
      exact,
      { url: ' https://evil.com/x', host: 'api.example.com' },
      { url: ' https://api.example.com/x', host: 'api.example.com' },
    ],
    [
      'domain_exact: a scheme-relative URL',
      exact,
      { url: '//evil.com/x', host: 'api.example.com' },
      { url: '//api.example.com/x', host: 'api.example.com' },
    ],
    [
      'domain_exact: a bare host',
      exact,
      { url: 'evil.com', host: 'api.example.com' },
      { url: 'api.example.com', host: 'api.example.com' },
    ],
    [
      'domain_exact: a bare host with a port and path',
      exact,
      { url: 'evil.com:8080/x', host: 'api.example.com' },
      { url: 'api.example.com:8080/x', host: 'api.example.com' },
    ],
    [
      'domain_exact: user@host',
      exact,
      { url: 'https://api.example.com/', mirror: 'ops@evil.com' },
      { url: 'https://api.example.com/', mirror: 'ops@api.example.com' },
    ],
    [
      'domain_exact: a host under another host-like key',
      exact,
      { url: 'https://api.example.com/', server: 'evil.com' },
      { url: 'https://api.example.com/', server: 'api.example.com' },
    ],
    [
      'domain_exact: a URL that does not parse',
      exact,
      { url: 'https://api.example.com/', callback_url: 'https://evil .com/' },
      { url: 'https://api.example.com/', callback_url: 'https://api.example.com/cb' },
    ],
    [
      'regex_match: one matching string no longer satisfies it',
      regex,
      { path: '/srv/other/db.sql', note: '/srv/app/a' },
      { path: '/srv/app/db', note: '/srv/app/a' },
    ],
    [
      'regex_match: a traversal that matches as written',
      { type: 'regex_match', value: '^/srv/app/' },
      { path: '/srv/app/../../etc/passwd' },
      { path: '/srv/app/docs/readme' },
    ],
    [
      'max_length: a string nested deeper than 64 levels',
      ten,
      { a: nest('x'.repeat(11), 70) },
      { a: nest('x'.repeat(10), 60) },
    ],
    ['max_length: a key', ten, { ['k'.repeat(11)]: 'v' }, { ['k'.repeat(10)]: 'v' }],
    [
      'path_prefix: a decoy path beside a traversal under a neutral key',
      prefix,
      { path: '/srv/app/a', extra: { list: ['../../etc/passwd'] } },
      { path: '/srv/app/a', extra: { list: ['/srv/app/b'] } },
    ],
    [
      'path_prefix: an encoded traversal in a file: URI',
      prefix,
      { path: '/srv/app/a', source: 'file:///srv/app/..%2F..%2Fetc/passwd' },
      { path: '/srv/app/a', source: 'file:///srv/app/b%20c' },
    ],
    [
      'path_prefix: a path-shaped key',
      prefix,
      { path: '/srv/app/a', files: { '/etc/cron.d/x': 'content' } },
      { path: '/srv/app/a', files: { '/srv/app/x': 'content' } },
    ],
  ];
  for (const [name, constraint, hostile, honest] of attacks) {
    it(name, async () => {
      await expectConstraintDeny(constraint, hostile);
      await expectAllowed(constraint, honest);
      expect(ledgerState()).toEqual({ chainOk: true, pending: 0 });
    });
  }
});

describe('generated trees with a decoy beside a violating value, through the kernel', () => {
  const keys = ['a', 'items', 'opts', 'meta'];
  const tree = (leaf: fc.Arbitrary<unknown>) =>
    fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small', maxDepth: 4 },
        leaf,
        fc.array(tie('node'), { minLength: 1, maxLength: 3 }),
        fc.dictionary(fc.constantFrom(...keys), tie('node'), { minKeys: 1, maxKeys: 3 }),
      ),
    })).node;
  const cases: Array<[Constraint, fc.Arbitrary<unknown>, fc.Arbitrary<unknown>, fc.Arbitrary<unknown>]> = [
    // [constraint, a satisfying value, a violating value, neutral filler]
    [
      prefix,
      fc.constantFrom({ path: '/srv/app/a' }, 'file:///srv/app/b', { cwd: '/srv/app' }),
      fc.constantFrom({ path: '/srv/other' }, '../x', '/etc/hosts', 'file:///srv/app/%2e%2e/x', { file_path: 'rel' }),
      fc.constantFrom('hello', 3, true, null),
    ],
    [
      exact,
      fc.constantFrom({ url: 'https://api.example.com/' }, 'api.example.com', '//api.example.com/x'),
      fc.constantFrom({ url: 'evil.com' }, ' https://evil.com', '//evil.com/', 'u@evil.com', { host: 'evil.com:443' }),
      fc.constantFrom('hello', 3, true, null),
    ],
    [
      { type: 'domain_glob', value: '*.example.com' },
      fc.constantFrom({ url: 'https://a.example.com/' }, 'b.example.com'),
      fc.constantFrom({ url: 'example.com' }, 'evil.com/x.example.com', 'https://a.example.com.evil.net/'),
      fc.constantFrom('hello', 3, null),
    ],
    [
      regex,
      fc.constantFrom('/srv/app/a', { path: '/srv/app/b' }),
      fc.constantFrom('/srv/other/a', { note: 'hello' }, { path: '/srv/app/A' }),
      fc.constantFrom(3, true, null, '/srv/app/z'),
    ],
    [
      ten,
      fc.constantFrom('short', { k: 'v' }),
      fc.constantFrom('x'.repeat(11), { ['k'.repeat(11)]: 1 }),
      fc.constantFrom('ok', 3, null),
    ],
  ];
  for (const [constraint, good, bad, filler] of cases) {
    it(`${constraint.type} ${JSON.stringify(constraint.value)}`, async () => {
      const samples = fc.sample(fc.tuple(tree(filler), good, bad, fc.boolean()), { numRuns: 12, seed: 42 });
      for (const [t, decoy, violation, first] of samples) {
        const args = first
          ? { items: [decoy, t, { meta: violation }] }
          : { opts: { meta: violation }, items: [t], a: decoy };
        await expectConstraintDeny(constraint, args);
        await expectAllowed(constraint, { items: [decoy, t] });
      }
      expect(ledgerState()).toEqual({ chainOk: true, pending: 0 });
    });
  }
});

describe('patterns a token carries cannot hold the kernel', () => {
  // regex_match and domain_glob patterns are chosen by whoever signs the token (a delegating holder
  // can add one). On a backtracking engine each of these takes longer than the age of the universe
  // on its input; on the linear-time engine the call is decided, so a hang here fails the test.
  const long = `${'a'.repeat(50_000)}!`;

  it('a catastrophic-backtracking regex_match on a long argument is decided (deny), and the honest value still passes', async () => {
    await expectConstraintDeny({ type: 'regex_match', value: '^(a+)+$' }, { name: long });
    await expectConstraintDeny({ type: 'regex_match', value: '^(a|aa)*$' }, { name: long });
    await expectAllowed({ type: 'regex_match', value: '^(a+)+$' }, { name: 'aaaa' });
    expect(ledgerState()).toEqual({ chainOk: true, pending: 0 });
  });

  it('a pattern the linear engine cannot run (backreference, lookahead) makes the constraint unusable: deny, naming why', async () => {
    for (const value of ['^(a+)\\1$', '^(?=a)a+$']) {
      const r = await callWith({ type: 'regex_match', value }, { name: 'aa' });
      expect(r, value).toMatchObject({
        ok: false,
        guard: 'capability',
        reason: expect.stringContaining('cannot be run in linear time'),
      });
    }
    expect(ledgerState()).toEqual({ chainOk: true, pending: 0 });
  });

  it('a domain_glob of many stars against a long host is decided (deny)', async () => {
    await expectConstraintDeny(
      { type: 'domain_glob', value: `${'*a'.repeat(30)}b.example.com` },
      { url: `https://${'a'.repeat(60)}.${'a'.repeat(60)}.example.com/` },
    );
    expect(ledgerState()).toEqual({ chainOk: true, pending: 0 });
  });

  it('a token from an untrusted signer is refused for its signer before its patterns run', async () => {
    const stranger = signerFromSeed(fromHex('83'.repeat(32)));
    const forged = issueCapability(stranger, {
      subject: agent.publicKeyHex,
      scope: {
        grants: [
          {
            server_id: 'fs',
            tool_name: 'hello_tool',
            operations: ['invoke'],
            constraints: [{ type: 'regex_match', value: '^(a+)\\1$' }],
          },
        ],
      },
      ttlSeconds: 60,
    });
    const r = await kernel.evaluateToolCall({
      capability: forged,
      caller: agent.publicKeyHex,
      serverId: 'fs',
      toolName: 'hello_tool',
      arguments: { name: 'aa' },
    });
    expect(r).toMatchObject({
      ok: false,
      guard: 'capability',
      receipt: { evidence: [{ guard_name: 'capability', details: 'untrusted_issuer' }] },
    });
  });
});
