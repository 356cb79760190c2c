// Policy files: YAML and JSON, strict validation naming the bad field, a policy_hash that tracks the effective policy, redaction, and the `chio check` dry run.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hashCanonical } from '../../src/crypto/index.js';
import {
  checkCall,
  defaultPolicy,
  loadPolicy,
  normalizePolicy,
  redactParameters,
  REDACTED,
} from '../../src/kernel/index.js';
import { chio, errorCode } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir();
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

const YAML_POLICY = `
schema: chio.policy.v1
guards:
  egress-allowlist:
    allow: ["*.example.com"]
  path-allowlist:
    enabled: true
    file_access_allow: ["/workspace/**"]
default_grants:
  - server_id: fs
    tool_name: read_file
    operations: [invoke]
    constraints:
      - { type: path_prefix, value: /workspace }
  - server_id: web
    tool_name: fetch
    operations: [invoke]
redaction:
  mode: redact_keys
  keys: [token]
budgets:
  max_invocations: 100
`;

describe('loading policies', () => {
  it('YAML and the equivalent JSON give the same normalised policy and the same policy_hash', () => {
    const yaml = loadPolicy(file('p.yaml', YAML_POLICY));
    const json = loadPolicy(file('p.json', JSON.stringify(yaml.policy)));
    expect(json.policy).toEqual(yaml.policy);
    expect(json.policyHash).toBe(yaml.policyHash);
    expect(yaml.policyHash).toBe(hashCanonical(yaml.policy));
    expect(yaml.policy.guards['egress-allowlist'].allow).toEqual(['*.example.com']);
    expect(yaml.policy.guards['forbidden-path'].enabled).toBe(true); // defaults filled in
  });

  it('the policy_hash changes with any effective setting, not with formatting', () => {
    const a = loadPolicy(file('a.yaml', YAML_POLICY)).policyHash;
    const reformatted = loadPolicy(file('b.yaml', `${YAML_POLICY.replace(/\n\n/g, '\n')}\n# a comment\n`)).policyHash;
    const changed = loadPolicy(
      file('c.yaml', YAML_POLICY.replace('max_invocations: 100', 'max_invocations: 101')),
    ).policyHash;
    expect(reformatted).toBe(a);
    expect(changed).not.toBe(a);
    expect(defaultPolicy().policyHash).toMatch(/^[0-9a-f]{64}$/);
  });

  const bad: Array<[string, string, RegExp]> = [
    [
      'a misspelt guard setting',
      'guards:\n  forbidden-path:\n    patern: [x]\n',
      /\$\.guards\.forbidden-path: Unrecognized key: "patern"/,
    ],
    ['an unknown guard', 'guards:\n  no-such-guard: {}\n', /no-such-guard/],
    ['a wrong type', 'capability:\n  ttl_seconds: soon\n', /\$\.capability\.ttl_seconds/],
    [
      'a bad grant',
      'default_grants:\n  - server_id: fs\n    operations: [invoke]\n',
      /\$\.default_grants\.0\.tool_name/,
    ],
    ['redact_keys without keys', 'redaction:\n  mode: redact_keys\n', /\$\.redaction\.keys/],
    ['a duplicate key', 'budgets: {}\nbudgets: {}\n', /cannot be parsed/],
    ['broken YAML', 'guards: [\n', /cannot be parsed/],
    ['a huge integer', 'capability:\n  ttl_seconds: 90071992547409930\n', /invalid/],
  ];
  for (const [name, text, message] of bad) {
    it(`refuses ${name}, naming it`, () => {
      expect(() => loadPolicy(file(`bad-${name.replace(/\W/g, '')}.yaml`, text))).toThrowError(
        expect.objectContaining({ code: 'CHIO-POLICY-INVALID', message: expect.stringMatching(message) }),
      );
    });
  }
});

describe('redaction', () => {
  const params = { path: '/x', auth: { token: 's3cret', nested: [{ Token: 'x' }] } };
  it('redact_keys replaces the named keys at any depth, case-insensitively', () => {
    const r = redactParameters(params, { mode: 'redact_keys', keys: ['token'] });
    expect(r).toEqual({
      mode: 'redacted',
      parameters: { path: '/x', auth: { token: REDACTED, nested: [{ Token: REDACTED }] } },
    });
    expect(params.auth.token).toBe('s3cret'); // the original is untouched
  });
  it('hash_only stores nothing but the hash; none stores everything', () => {
    expect(redactParameters(params, { mode: 'hash_only', keys: [] })).toEqual({ mode: 'summary', parameters: null });
    expect(redactParameters(params, { mode: 'none', keys: [] })).toEqual({ mode: 'none', parameters: params });
  });
});

describe('checkCall and chio check', () => {
  const loaded = normalizePolicy({
    default_grants: [
      {
        server_id: 'fs',
        tool_name: 'read_file',
        operations: ['invoke'],
        constraints: [{ type: 'path_prefix', value: '/workspace' }],
      },
    ],
  });

  it('a call covered by a grant and passing the guards is allowed', () => {
    expect(
      checkCall(loaded, { serverId: 'fs', toolName: 'read_file', arguments: { path: '/workspace/a' } }),
    ).toMatchObject({ verdict: 'allow', grant: 0 });
  });
  it('a call no grant covers is denied by the capability check, before any guard', () => {
    expect(
      checkCall(loaded, { serverId: 'fs', toolName: 'write_file', arguments: { path: '/workspace/a' } }),
    ).toMatchObject({ verdict: 'deny', guard: 'capability', evidence: [] });
    expect(
      checkCall(loaded, { serverId: 'fs', toolName: 'read_file', arguments: { path: '/etc/hosts' } }),
    ).toMatchObject({ verdict: 'deny', guard: 'capability' });
  });
  it('a granted call a guard refuses is denied by that guard', () => {
    expect(
      checkCall(loaded, { serverId: 'fs', toolName: 'read_file', arguments: { path: '/workspace/.env' } }),
    ).toMatchObject({ verdict: 'deny', guard: 'forbidden-path' });
  });

  it('the CLI prints the decision, guard and reason, exit 1 on deny and 0 on allow', () => {
    const policy = file('cli.yaml', YAML_POLICY);
    const deny = chio([
      'check',
      '--policy',
      policy,
      '--server',
      'web',
      '--tool',
      'fetch',
      '--params',
      '{"url":"http://169.254.169.254/"}',
    ]);
    expect(deny.status).toBe(1);
    expect(deny.stdout).toMatch(
      /decision\s+deny\nguard\s+internal-network\nreason\s+169\.254\.169\.254 is a link-local/,
    );
    const allow = chio([
      'check',
      '--policy',
      policy,
      '--server',
      'web',
      '--tool',
      'fetch',
      '--params',
      '{"url":"https://api.example.com/"}',
      '--json',
    ]);
    expect(allow.status).toBe(0);
    expect(JSON.parse(allow.stdout)).toMatchObject({ verdict: 'allow', policyHash: loadPolicy(policy).policyHash });
  });

  it('chio policy check validates (exit 0) and refuses a bad file (exit 2, CHIO-POLICY-INVALID)', () => {
    const ok = chio(['policy', 'check', file('ok.yaml', YAML_POLICY)]);
    expect(ok.status).toBe(0);
    expect(ok.stdout).toMatch(/^OK: .* is a valid chio\.policy\.v1 policy\n\s+policy_hash\s+[0-9a-f]{64}/);
    const badRun = chio(['policy', 'check', file('bad.yaml', 'guards:\n  shell-command:\n    enabled: maybe\n')]);
    expect(badRun.status).toBe(2);
    expect(errorCode(badRun.stderr)).toBe('CHIO-POLICY-INVALID');
    expect(badRun.stderr).toContain('$.guards.shell-command.enabled');
    const badParams = chio(['check', '--tool', 'x', '--params', '{nope']);
    expect(errorCode(badParams.stderr)).toBe('CHIO-CLI-BAD-JSON');
  });

  it('a JSON policy with a duplicate key (even spelled with an escape) is refused like YAML, not read as its last value', () => {
    for (const [name, text] of [
      ['dup.json', '{"schema":"chio.policy.v1","guards":{"forbidden-path":{"enabled":true,"enabled":false}}}'],
      [
        'escaped.json',
        '{"schema":"chio.policy.v1","guards":{"forbidden-path":{"enabled":true,"enabl\\u0065d":false}}}',
      ],
      ['dup.yaml', 'schema: chio.policy.v1\nguards:\n  forbidden-path:\n    enabled: true\n    enabled: false\n'],
    ]) {
      const r = chio(['policy', 'check', file(name!, text!)]);
      expect(r.status, `${name}: ${r.stdout}${r.stderr}`).toBe(2);
      expect(errorCode(r.stderr)).toBe('CHIO-POLICY-INVALID');
      expect(r.stderr).toMatch(/unique/i);
      // And no command that loads a policy runs with it.
      const check = chio([
        'check',
        '--policy',
        file(name!, text!),
        '--tool',
        'read_file',
        '--params',
        '{"path":"/workspace/.env"}',
      ]);
      expect(check.status).toBe(2);
      expect(errorCode(check.stderr)).toBe('CHIO-POLICY-INVALID');
    }
    const single = chio([
      'policy',
      'check',
      file('single.json', '{"schema":"chio.policy.v1","guards":{"forbidden-path":{"enabled":true}}}'),
    ]);
    expect(single.status, single.stderr).toBe(0);
  });
});
