// The corpora at the guard level (each hostile case denied by the guard it names, each harmless one
// allowed, in a real workspace with real symlinks) and `chio policy test` against the default policy,
// a loosened one and a broken one.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildGuards, GuardsConfigSchema } from '../../src/kernel/guards/index.js';
import {
  createCorpusWorkspace,
  HARMLESS_CORPUS,
  HOSTILE_CORPUS,
  runCorpora,
} from '../../src/kernel/guards/corpus/index.js';
import { chio } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const ws = tempDir('chio-corpus-');
createCorpusWorkspace(ws);
const run = runCorpora(buildGuards(), ws, { strictGuards: true });

describe('the hostile corpus against the default guards', () => {
  for (const c of HOSTILE_CORPUS) {
    it(`${c.id}: ${c.about} → denied by ${c.guard}`, () => {
      const r = run.results.find((x) => x.corpus === 'hostile' && x.id === c.id)!;
      expect(r, JSON.stringify(r)).toMatchObject({ verdict: 'deny', guard: c.guard, pass: true });
    });
  }
});

describe('the harmless corpus against the default guards', () => {
  for (const c of HARMLESS_CORPUS) {
    it(`${c.id}: ${c.about} → allowed`, () => {
      const r = run.results.find((x) => x.corpus === 'harmless' && x.id === c.id)!;
      expect(r, JSON.stringify(r)).toMatchObject({ verdict: 'allow', pass: true });
    });
  }

  it('case ids are unique, and every hostile case names the guard that must deny it', () => {
    const ids = [...HOSTILE_CORPUS, ...HARMLESS_CORPUS].map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(HOSTILE_CORPUS.every((c) => typeof c.guard === 'string')).toBe(true);
  });
});

describe('chio policy test', () => {
  it('passes the default policy: every hostile case denied, every harmless one allowed, exit 0', () => {
    const r = chio(['policy', 'test']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(
        `^PASS: hostile ${HOSTILE_CORPUS.length}/${HOSTILE_CORPUS.length} denied, harmless ${HARMLESS_CORPUS.length}/${HARMLESS_CORPUS.length} allowed \\(policy_hash [0-9a-f]{64}\\)$`,
        'm',
      ),
    );
    expect(r.stdout.split('\n').filter((l) => l.startsWith('ok '))).toHaveLength(
      HOSTILE_CORPUS.length + HARMLESS_CORPUS.length,
    );
  });

  it('fails a policy that switches a guard off, naming each hostile case it lets through (exit 1, JSON too)', () => {
    const dir = tempDir();
    const policy = join(dir, 'loose.yaml');
    writeFileSync(policy, 'guards:\n  forbidden-path: { enabled: false }\n  internal-network: { enabled: false }\n');
    const r = chio(['policy', 'test', '--policy', policy]);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/^FAIL hostile {2}allow -\s+relative-symlink-to-env /m);
    expect(r.stdout).toMatch(/^FAIL hostile {2}allow -\s+curl-metadata /m);
    expect(r.stdout).toMatch(/^FAIL: hostile \d+\/\d+ denied, harmless \d+\/\d+ allowed/m);

    const json = chio(['policy', 'test', '--policy', policy, '--json']);
    expect(json.status).toBe(1);
    const report = JSON.parse(json.stdout) as {
      ok: boolean;
      summary: Record<string, number>;
      cases: Array<{ id: string; verdict: string; pass: boolean }>;
    };
    expect(report.ok).toBe(false);
    expect(report.summary.hostile_allowed).toBe(report.cases.filter((c) => !c.pass).length);
    expect(report.cases.find((c) => c.id === 'curl-metadata')).toMatchObject({ verdict: 'allow', pass: false });
    expect(report.cases.find((c) => c.id === 'v6-loopback')).toMatchObject({ verdict: 'deny', pass: true }); // a fetch argument still meets the egress allowlist
    expect(report.cases.find((c) => c.id === 'rm-home-tilde')).toMatchObject({ verdict: 'deny', pass: true });
  });

  it('fails a policy whose guards deny ordinary work, naming the harmless cases it blocks', () => {
    const dir = tempDir();
    const policy = join(dir, 'strict.yaml');
    writeFileSync(policy, 'guards:\n  forbidden-path: { additional_patterns: ["**/pass/**"] }\n');
    const r = chio(['policy', 'test', '--policy', policy]);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/^FAIL harmless deny {2}forbidden-path\s+read-pass-folder /m);
  });

  it('refuses an invalid policy as bad input (exit 2), before running anything', () => {
    const dir = tempDir();
    const policy = join(dir, 'bad.yaml');
    writeFileSync(policy, 'guards:\n  shell-command: { allowed_interpreter: [bash] }\n');
    const r = chio(['policy', 'test', '--policy', policy]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('allowed_interpreter');
  });
});

describe('what a policy can open deliberately', () => {
  it('allowed_interpreters lets an interpreter run inline code, and shell code is still judged inside', () => {
    const guards = buildGuards(
      GuardsConfigSchema.parse({ 'shell-command': { allowed_interpreters: ['bash', 'python'] } }),
    );
    const r = runCorpora(guards, ws);
    const byId = (id: string) => r.results.find((x) => x.id === id)!;
    expect(byId('python-c')).toMatchObject({ verdict: 'allow' });
    expect(byId('bash-c-bundle')).toMatchObject({ verdict: 'deny', guard: 'shell-command' }); // rm -rf / inside
    expect(byId('bash-c-bundle').reason).toContain('recursive rm of /');
    expect(byId('node-e')).toMatchObject({ verdict: 'deny' }); // node was not allowed
  });
});
