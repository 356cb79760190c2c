// Capability constraints hold for every argument: generated argument trees (nesting, arrays, many
// keys) where one value violates the constraint beside a decoy that satisfies it are denied by the
// real capability check (a signed token through verifyCapability), and trees where every value
// satisfies it are allowed. Then the edges of each constraint's reading, and delegation narrowing.
import { posix } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { delegateCapability, issueCapability, verifyCapability } from '../../src/capability/index.js';
import type { CallTarget, Constraint, Scope } from '../../src/capability/index.js';
import { foldPath } from '../../src/capability/constraints.js';
import { constraintImplies, constraintVerdict, constraintViolation } from '../../src/capability/scope.js';
import { fromHex, signerFromSeed } from '../../src/crypto/index.js';

const kernel = signerFromSeed(fromHex('71'.repeat(32)));
const agent = signerFromSeed(fromHex('72'.repeat(32)));
const helper = signerFromSeed(fromHex('73'.repeat(32)));
const NOW = 1_800_000_000;
const RUNS = { numRuns: 250 };

const grantWith = (constraints: Constraint[]): Scope => ({
  grants: [{ server_id: 'srv', tool_name: 'tool', operations: ['invoke'], constraints }],
});
const tokenFor = (constraints: Constraint[]) =>
  issueCapability(kernel, { subject: agent.publicKeyHex, scope: grantWith(constraints), ttlSeconds: 3600, now: NOW });
const target = (args: unknown): CallTarget => ({
  serverId: 'srv',
  toolName: 'tool',
  operation: 'invoke',
  arguments: args,
});
const verdict = (token: unknown, args: unknown, caller = agent.publicKeyHex) =>
  verifyCapability(token, {
    target: target(args),
    caller,
    trustedIssuers: new Set([kernel.publicKeyHex]),
    now: NOW + 1,
  });

// ---------------------------------------------------------------------------------------------
// Generated argument trees

/** Keys that say nothing about their value. */
const NEUTRAL_KEYS = ['a', 'b', 'items', 'opts', 'meta', 'nested', 'list', 'extra', 'x1', 'conf'];
type Placed = { key: string | null; value: unknown };

/** A tree of objects and arrays (up to five levels, up to four keys each) whose leaves are `filler`. */
function treeOf(filler: fc.Arbitrary<unknown>): fc.Arbitrary<Record<string, unknown>> {
  const { node } = fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', maxDepth: 5 },
      filler,
      fc.array(tie('node'), { minLength: 1, maxLength: 3 }),
      fc.dictionary(fc.constantFrom(...NEUTRAL_KEYS), tie('node'), { minKeys: 1, maxKeys: 4 }),
    ),
  }));
  return fc.dictionary(fc.constantFrom(...NEUTRAL_KEYS), node, { minKeys: 1, maxKeys: 4 }) as fc.Arbitrary<
    Record<string, unknown>
  >;
}

function containers(
  tree: unknown,
  out: Array<Record<string, unknown> | unknown[]> = [],
): Array<Record<string, unknown> | unknown[]> {
  if (Array.isArray(tree)) {
    out.push(tree);
    for (const v of tree) containers(v, out);
  } else if (tree !== null && typeof tree === 'object') {
    out.push(tree as Record<string, unknown>);
    for (const v of Object.values(tree)) containers(v, out);
  }
  return out;
}

/**
 * Puts `placed` into the `pick`-th container of `tree`, never over another placed value. Array
 * wraps go inside its key (`{url: [[v]]}`: an array's items keep their key), object wraps outside
 * (`{nested: {url: v}}`), so the key still says what the value is.
 */
function place(tree: Record<string, unknown>, pick: number, placed: Placed, wrap: Array<'obj' | 'arr'>): void {
  const key = placed.key ?? 'extra';
  let node = placed.value;
  for (const w of wrap) if (w === 'arr') node = [node];
  let holder: Record<string, unknown> = { [key]: node };
  for (const w of wrap) if (w === 'obj') holder = { nested: holder };
  const all = containers(tree);
  const into = all[pick % all.length]!;
  if (Array.isArray(into)) into.push(holder);
  else if (!(key in into) && !wrap.includes('obj')) into[key] = node;
  else into[`slot${Object.keys(into).length}`] = holder;
}

const wrapping = fc.array(fc.constantFrom<'obj' | 'arr'>('obj', 'arr'), { maxLength: 8 });
const keyed = (keys: Array<string | null>, values: fc.Arbitrary<unknown>): fc.Arbitrary<Placed> =>
  fc.record({ key: fc.constantFrom(...keys), value: values });

/** Neutral prose: no slash, dot, colon, @ or tilde, so no key or shape makes it a path or a host. */
const prose = fc.stringMatching(/^[a-z][a-z ]{0,11}$/);

interface Spec {
  constraint: Constraint;
  /** Leaves that satisfy the constraint under a neutral key. */
  filler: fc.Arbitrary<unknown>;
  good: fc.Arbitrary<Placed>;
  bad: fc.Arbitrary<Placed>;
}

const PATH_KEYS = ['path', 'file_path', 'filePath', 'source', 'destination', 'cwd', 'target_dir', 'documentPath'];
/** Every value under these is a URL or host. */
const NETWORK_KEYS = [
  'url',
  'uri',
  'href',
  'endpoint',
  'callback_url',
  'baseUrl',
  'host',
  'hostname',
  'domain',
  'server',
];
/** A value under these is a host when it is one token. */
const URL_KEYS = [...NETWORK_KEYS, 'ip', 'address', 'remote'];
const safeLeaf = fc.oneof(fc.integer(), fc.boolean(), fc.constant(null));
const segment = fc.stringMatching(/^[a-z]{1,6}$/);

const specs: Record<string, Spec> = {
  path_prefix: {
    constraint: { type: 'path_prefix', value: '/srv/app' },
    filler: fc.oneof(safeLeaf, prose),
    good: keyed(
      [null, ...PATH_KEYS],
      fc.oneof(
        fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => `/srv/app/${s.join('/')}`),
        fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => `file:///srv/app/${s.join('/')}`),
        segment.map((s) => `/srv/app/${s}/../${s}.txt`),
        fc.constantFrom('/srv/app', '/srv/app/', 'file://localhost/srv/app/x'),
      ),
    ),
    bad: fc.oneof(
      keyed(
        [null, ...PATH_KEYS],
        fc.constantFrom(
          '/etc/passwd',
          '/srv/other/db.sql',
          '/srv/app/../../etc/shadow',
          '/srv/app_evil/x',
          '/srv/app/a/../../other',
          'file:///etc/passwd',
          'file:///srv/app/..%2F..%2Fetc/passwd',
          'file:///srv/app/%2e%2e/other',
          'FILE:///etc/passwd',
          'file://fileserver/share/x',
          '~/.ssh/id_rsa',
          '~root/.ssh/id_rsa',
          '../secret',
          './x',
          '..',
          'a/../../etc/passwd',
          '/srv/app\\..\\..\\etc\\passwd',
          '\\\\server\\share',
          ' /srv/app/x',
          '/srv/app/.. ',
          'C:\\Windows\\system.ini',
          '/srv/app/\0/x',
        ),
      ),
      keyed(PATH_KEYS, fc.constantFrom('relative.txt', 'srv/app/x', '', 'https://evil.example/x', 5)),
    ),
  },
  domain_exact: {
    constraint: { type: 'domain_exact', value: 'api.example.com' },
    filler: fc.oneof(safeLeaf, prose),
    good: keyed(
      [null, ...URL_KEYS],
      fc.constantFrom(
        'https://api.example.com/v1',
        'api.example.com',
        'API.Example.COM.',
        '//api.example.com/x',
        'api.example.com:8443/x',
        'user@api.example.com',
        ' https://api.example.com ',
        'http:api.example.com',
        'wss://api.example.com/socket',
        'https://evil.com@api.example.com/',
      ),
    ),
    bad: fc.oneof(
      keyed(
        [null, ...URL_KEYS],
        fc.constantFrom(
          ' https://evil.com/x',
          '//evil.com/x',
          'evil.com',
          'evil.com:8080/x',
          'https://api.example.com@evil.com/',
          'http:evil.com',
          'https:\\\\evil.com',
          'api.example.com.evil.com',
          'user@evil.com',
          'https://[::1]/',
          'http://127.0.0.1/',
          '10.0.0.1',
          'ht\ntps://evil.com',
          '\thttps://evil.com',
          'file:///etc/passwd',
          'https://evil。com/',
          'ftp://evil.com',
          's3://bucket/key',
          'mailto:a@evil.com',
          'https://exa mple.com/',
        ),
      ),
      keyed(URL_KEYS, fc.constantFrom('javascript:alert(1)', 'data:text/html,x', 2130706433, 'localhost')),
      keyed(NETWORK_KEYS, fc.constantFrom('not a url', '', 'api.example.com x', 'https://api.example.com:99999/')),
    ),
  },
  domain_glob: {
    constraint: { type: 'domain_glob', value: '*.example.com' },
    filler: fc.oneof(safeLeaf, prose),
    good: keyed(
      [null, ...URL_KEYS],
      fc.constantFrom(
        'https://a.example.com/x',
        'b.c.example.com',
        '//x.example.com',
        'x.example.com:443',
        'me@mail.example.com',
        'HTTPS://API.EXAMPLE.COM',
      ),
    ),
    bad: fc.oneof(
      keyed(
        [null, ...URL_KEYS],
        fc.constantFrom(
          'example.com',
          'evil.com',
          'example.com.evil.net',
          'a.example.com.evil.net',
          '//evil.net/.example.com',
          'https://a.example.com@evil.net',
          ' https://evil.net/x',
          'evil.net:8080/x.example.com',
          'user@evil.net',
          'http://169.254.169.254/',
        ),
      ),
      keyed(URL_KEYS, fc.constantFrom('javascript:alert(1)', 7)),
      keyed(NETWORK_KEYS, fc.constantFrom('a.example.com x')),
    ),
  },
  regex_match: {
    constraint: { type: 'regex_match', value: '^/srv/app/[a-z]+$' },
    filler: fc.oneof(
      safeLeaf,
      segment.map((s) => `/srv/app/${s}`),
    ),
    good: keyed(
      [null, 'path', 'file', 'note', 'paths'],
      segment.map((s) => `/srv/app/${s}`),
    ),
    bad: keyed(
      [null, 'path', 'note', 'text'],
      fc.constantFrom(
        '/srv/other/db.sql',
        '/srv/app/a/b',
        '/srv/app/',
        'hello',
        '',
        '/srv/app/ABC',
        '/srv/app/a\n',
        'file:///srv/app/a',
      ),
    ),
  },
  max_length: {
    constraint: { type: 'max_length', value: 10 },
    filler: fc.oneof(
      safeLeaf,
      fc.string({ maxLength: 10 }).filter((s) => s.length <= 10),
    ),
    good: keyed(
      [null, 'path', 'k'],
      fc.string({ maxLength: 10 }).filter((s) => s.length <= 10),
    ),
    bad: fc.oneof(
      keyed(
        [null, 'path', 'k'],
        fc.string({ minLength: 11, maxLength: 40 }).filter((s) => s.length > 10),
      ),
      // a key over the limit, holding a short value
      fc.stringMatching(/^[a-z]{11,30}$/).map((k): Placed => ({ key: k, value: 'ok' })),
    ),
  },
};

describe('a violating value beside a satisfying decoy, anywhere in the tree, is denied', () => {
  for (const [name, spec] of Object.entries(specs)) {
    const token = tokenFor([spec.constraint]);

    it(`${name}: denied with check "constraint", whatever the decoy`, () => {
      fc.assert(
        fc.property(
          treeOf(spec.filler),
          spec.good,
          spec.bad,
          fc.nat(),
          fc.nat(),
          wrapping,
          (generated, decoy, bad, at1, at2, wrap) => {
            const tree = structuredClone(generated);
            place(tree, at1, decoy, []);
            place(tree, at2, bad, wrap);
            const v = verdict(token, tree);
            expect(v, JSON.stringify(tree)).toMatchObject({ ok: false, check: 'constraint' });
          },
        ),
        RUNS,
      );
    });

    it(`${name}: allowed when every value satisfies it (the property above is not vacuous)`, () => {
      fc.assert(
        fc.property(
          treeOf(spec.filler),
          fc.array(fc.tuple(spec.good, fc.nat(), wrapping), { minLength: 1, maxLength: 4 }),
          (generated, goods) => {
            const tree = structuredClone(generated);
            for (const [g, at, wrap] of goods) place(tree, at, g, wrap);
            const v = verdict(token, tree);
            expect(v, JSON.stringify(tree)).toMatchObject({ ok: true, grantIndexes: [0] });
          },
        ),
        RUNS,
      );
    });
  }
});

describe('what each constraint reads', () => {
  const deny = (c: Constraint, args: unknown) =>
    expect(constraintVerdict(c, args), JSON.stringify(args)).toMatchObject({ ok: false });
  const allow = (c: Constraint, args: unknown) =>
    expect(constraintVerdict(c, args), JSON.stringify(args)).toEqual({ ok: true });
  const exact: Constraint = { type: 'domain_exact', value: 'api.example.com' };
  const prefix: Constraint = { type: 'path_prefix', value: '/srv/app' };

  it('nesting deeper than 64 levels violates every constraint, even when what is visible satisfies it', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 65; i++) deep = i % 2 === 0 ? { a: deep } : [deep];
    const args = { path: '/srv/app/a', url: 'https://api.example.com', note: '/srv/app/b', deep };
    for (const c of [
      prefix,
      exact,
      { type: 'domain_glob', value: '*.com' },
      { type: 'regex_match', value: '.*' },
      { type: 'max_length', value: 100 },
      { type: 'max_args_size', value: 1e6 },
    ] as Constraint[]) {
      expect(constraintVerdict(c, args)).toMatchObject({
        ok: false,
        reason: expect.stringContaining('deeper than 64 levels'),
      });
    }
    // 64 levels are read: a short string there passes, a long one does not
    let atLimit: unknown = 'short';
    for (let i = 0; i < 63; i++) atLimit = { a: atLimit };
    allow({ type: 'max_length', value: 10 }, { a: atLimit });
    let longAtLimit: unknown = 'much too long';
    for (let i = 0; i < 63; i++) longAtLimit = { a: longAtLimit };
    deny({ type: 'max_length', value: 10 }, { a: longAtLimit });
  });

  it('path_prefix: numbers under path keys, path-shaped keys and a file: URI on another host count; multi-line prose does not', () => {
    deny(prefix, { path: '/srv/app/a', file: 5 });
    deny(prefix, { path: '/srv/app/a', files: { '/etc/shadow': 'x' } });
    allow(prefix, { files: { '/srv/app/a': 'x', '/srv/app/b': 'y' } });
    deny(prefix, { path: 'file://evil.example/srv/app/a' });
    deny(prefix, { path: 'file:///srv/app/%E0%A4%A' }); // does not decode
    allow(prefix, { path: '/srv/app/a.js', content: '/* header */\nconst x = 1;\n/etc/passwd is not read' });
    allow(prefix, { path: '/srv/app/a', mime: 'text/plain', count: 3 });
    deny(prefix, { mime: 'text/plain' }); // no path at all
  });

  it('domain constraints: every URL- or host-like value, parsed as the tools parse it', () => {
    allow(exact, {
      url: 'https://api.example.com/v1',
      method: 'GET',
      headers: { Accept: 'application/json' },
      body: '{"a":1}',
      version: '1.2.3',
      ratio: '0.5',
    });
    deny(exact, { url: 'https://api.example.com/v1', mirror: 'evil.com' });
    deny(exact, { url: 'https://api.example.com/v1', notify: 'alice@evil.com' });
    deny(exact, { url: 'https://api.example.com/v1', host: 2130706433 });
    deny(exact, { url: 'https://api.example.com/v1', 'https://evil.com/': 1 }); // a URL-shaped key
    deny(exact, { url: 'https://api.example.com/v1', server: 'intranet' }); // single-label host under a host key
    deny(exact, { url: 'https://api.example.com/v1', endpoint: 'http://[::1' }); // looks like a URL, does not parse
    deny(exact, { method: 'GET' }); // no host at all
    allow({ type: 'domain_exact', value: 'BÜCHER.de.' }, { url: 'https://xn--bcher-kva.de/' });
    allow({ type: 'domain_glob', value: '*.Example.com' }, { url: 'https://a.b.example.com/' });
  });

  it('regex_match: every string value, and a path-like value also as the path it names', () => {
    const under: Constraint = { type: 'regex_match', value: '^/srv/app/' };
    allow(under, { path: '/srv/app/a', note: '/srv/app/b' });
    deny(under, { path: '/srv/app/../../etc/passwd' });
    deny(under, { path: '/srv/app/a\\..\\..\\..\\etc\\passwd' });
    deny({ type: 'regex_match', value: '^(file://)?/srv/app/' }, { path: 'file:///srv/app/..%2F..%2Fetc/passwd' });
    allow({ type: 'regex_match', value: '^(file://)?/srv/app/' }, { path: 'file:///srv/app/a' });
    deny(under, { path: '/srv/app/a', encoding: 'utf8' });
    deny(under, { count: 3 }); // no string to match
    allow({ type: 'regex_match', value: '^select ' }, { query: 'select 1', limit: 10 });
    deny({ type: 'regex_match', value: '^select ' }, { query: 'drop table t', path: 'select x' });
  });

  it('max_length measures every key and every string, at any depth', () => {
    const ten: Constraint = { type: 'max_length', value: 10 };
    deny(ten, { a: [{ b: { c: 'x'.repeat(11) } }] });
    deny(ten, { a: [{ ['k'.repeat(11)]: 1 }] });
    allow(ten, { a: [{ b: { c: 'x'.repeat(10) } }], n: 12345678901234 });
  });

  it('a reason names the constraint and where the value sits, never the value', () => {
    const v = constraintVerdict({ type: 'max_length', value: 4 }, { auth: { password: 'hunter2-secret' } });
    expect(v).toEqual({ ok: false, reason: 'max_length 4: the value at $.auth.password is 14 characters long' });
    const k = constraintVerdict(prefix, { files: { '/etc/shadow-secret-name': 'x' } });
    expect(k).toMatchObject({ ok: false });
    expect((k as { reason: string }).reason).not.toContain('shadow');
  });
});

describe('delegation narrows with the new semantics', () => {
  const parentScope = grantWith([
    { type: 'path_prefix', value: '/srv/app' },
    { type: 'domain_glob', value: '*.example.com' },
    { type: 'max_length', value: 100 },
  ]);
  const parent = issueCapability(kernel, {
    subject: agent.publicKeyHex,
    scope: parentScope,
    ttlSeconds: 3600,
    now: NOW,
  });
  const delegate = (constraints: Constraint[]) =>
    delegateCapability(parent, agent, { delegatee: helper.publicKeyHex, scope: grantWith(constraints), now: NOW });

  it("a narrower constraint of the same kind replaces the parent's; a different one is refused", () => {
    const child = delegate([
      { type: 'path_prefix', value: '/srv/app/docs' },
      { type: 'domain_exact', value: 'api.example.com' },
      { type: 'max_length', value: 50 },
    ]);
    expect(
      verdict(child, { path: '/srv/app/docs/a', url: 'https://api.example.com/' }, helper.publicKeyHex),
    ).toMatchObject({ ok: true });
    expect(
      verdict(child, { path: '/srv/app/src/a', url: 'https://api.example.com/' }, helper.publicKeyHex),
    ).toMatchObject({ ok: false, check: 'constraint' });
    for (const widening of [
      [
        { type: 'path_prefix', value: '/srv' },
        { type: 'domain_glob', value: '*.example.com' },
        { type: 'max_length', value: 100 },
      ],
      [
        { type: 'path_prefix', value: '/srv/app_evil' },
        { type: 'domain_glob', value: '*.example.com' },
        { type: 'max_length', value: 100 },
      ],
      [
        { type: 'path_prefix', value: '/srv/app/../etc' },
        { type: 'domain_glob', value: '*.example.com' },
        { type: 'max_length', value: 100 },
      ],
      [
        { type: 'path_prefix', value: '/srv/app' },
        { type: 'domain_glob', value: '*.com' },
        { type: 'max_length', value: 100 },
      ],
      [
        { type: 'path_prefix', value: '/srv/app' },
        { type: 'domain_exact', value: 'example.com' },
        { type: 'max_length', value: 100 },
      ],
      [
        { type: 'path_prefix', value: '/srv/app' },
        { type: 'domain_glob', value: '*.example.com' },
        { type: 'max_length', value: 101 },
      ],
      [
        { type: 'path_prefix', value: '/srv/app' },
        { type: 'domain_glob', value: '*.example.com' },
        { type: 'regex_match', value: '.*' },
      ],
    ] as Constraint[][]) {
      expect(() => delegate(widening), JSON.stringify(widening)).toThrowError(
        expect.objectContaining({ code: 'CHIO-CAPABILITY-INVALID' }),
      );
    }
  });

  it('an exact parent host spelled with * is not widened by a glob', () => {
    expect(
      constraintImplies(
        { type: 'domain_glob', value: '*.example.com' },
        { type: 'domain_exact', value: '*.example.com' },
      ),
    ).toBe(false);
    expect(
      constraintImplies(
        { type: 'domain_glob', value: 'api.example.com' },
        { type: 'domain_exact', value: 'API.example.com.' },
      ),
    ).toBe(true);
  });

  it("property: whatever a child constraint that implies its parent's admits, the parent admits", () => {
    const prefixes = fc.constantFrom(
      '/',
      '/srv',
      '/srv/app',
      '/srv/app/',
      '/srv/app/docs',
      '/srv/app_x',
      '/srv/app/../other',
      '/srv/app\\x',
    );
    const hosts = fc.constantFrom('api.example.com', 'example.com', 'API.EXAMPLE.COM.', 'a.b.example.com', 'evil.com');
    const globs = fc.constantFrom('*.example.com', '*', 'api.*', '*.com', 'example.com', '*.b.example.com');
    const constraint: fc.Arbitrary<Constraint> = fc.oneof(
      prefixes.map((value) => ({ type: 'path_prefix' as const, value })),
      hosts.map((value) => ({ type: 'domain_exact' as const, value })),
      globs.map((value) => ({ type: 'domain_glob' as const, value })),
      fc.integer({ min: 0, max: 20 }).map((value) => ({ type: 'max_length' as const, value })),
      fc.integer({ min: 2, max: 80 }).map((value) => ({ type: 'max_args_size' as const, value })),
    );
    const leaf = fc.oneof(
      fc.constantFrom(
        '/srv/app/docs/a',
        '/srv/app/x',
        '/srv/app_x/y',
        '/other',
        '/srv/app\\x/y',
        'file:///srv/app/docs/z',
        '../up',
      ),
      fc.constantFrom(
        'https://api.example.com/',
        'a.b.example.com',
        '//evil.com/',
        'https://example.com',
        'x@api.example.com',
      ),
      prose,
    );
    const args = fc.dictionary(
      fc.constantFrom('path', 'url', 'note', 'a', 'host'),
      fc.oneof(leaf, fc.array(leaf, { maxLength: 3 })),
      { minKeys: 1, maxKeys: 4 },
    );
    let implied = 0;
    fc.assert(
      fc.property(constraint, constraint, args, (child, parentC, a) => {
        if (!constraintImplies(child, parentC)) return;
        implied++;
        if (constraintVerdict(child, a).ok)
          expect(
            constraintVerdict(parentC, a),
            `${JSON.stringify(child)} ⊆ ${JSON.stringify(parentC)} on ${JSON.stringify(a)}`,
          ).toEqual({ ok: true });
      }),
      { numRuns: 3000 },
    );
    expect(implied).toBeGreaterThan(100);
  });
});

describe('path folding', () => {
  it('foldPath agrees with posix.normalize, also on a run of 400,000 `../`', () => {
    const path = fc
      .array(fc.constantFrom('', '.', '..', 'a', 'bc', '..a', '.b', 'a\\..'), { maxLength: 10 })
      .chain((segs) => fc.constantFrom(segs.join('/'), `/${segs.join('/')}`, `${segs.join('/')}/`));
    fc.assert(
      fc.property(path, (p) => {
        expect(foldPath(p), p).toBe(posix.normalize(p));
      }),
      { numRuns: 2000 },
    );
    expect(foldPath('../'.repeat(400_000))).toBe('../'.repeat(400_000)); // node's normalize is quadratic on this
  });
});

describe('constraintViolation', () => {
  it('names the first violated constraint of the first grant for the target, or null when a grant covers the call', () => {
    const scope: Scope = {
      grants: [
        {
          server_id: 'other',
          tool_name: 'tool',
          operations: ['invoke'],
          constraints: [{ type: 'max_length', value: 1 }],
        },
        {
          server_id: 'srv',
          tool_name: 'tool',
          operations: ['invoke'],
          constraints: [
            { type: 'path_prefix', value: '/srv/app' },
            { type: 'max_length', value: 100 },
          ],
        },
        {
          server_id: 'srv',
          tool_name: '*',
          operations: ['invoke'],
          constraints: [{ type: 'domain_exact', value: 'api.example.com' }],
        },
      ],
    };
    expect(constraintViolation(scope, target({ path: '/etc/passwd' }))).toBe(
      'grant 1: path_prefix "/srv/app": the value at $.path is a path outside the prefix (or relative)',
    );
    expect(constraintViolation(scope, target({ path: '/srv/app/a' }))).toBeNull();
    expect(constraintViolation(scope, target({ url: 'https://api.example.com/' }))).toBeNull();
  });
});
