// The ACP proxy's path rules in process, over real files and symlinks: the kernel's forbidden-path
// guard inside the allowed prefixes (default and policy settings), the git-directory write rule,
// and the sed script reader checked against the real GNU sed (whatever sed runs or writes, the
// reader refuses).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { guards } from '../../src/kernel/index.js';
import { FsGuard, gitWriteRefusal, sedScriptRefusal } from '../../src/proxy/acp/index.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('chio-acp-fs-rules-');
const ws = join(dir, 'ws');
for (const d of ['.ssh', 'sub/.aws', 'src/pass', '.git/hooks', '.git/objects', 'bare/objects', 'bare/hooks', 'lib'])
  mkdirSync(join(ws, d), { recursive: true });
const FILES: Array<[string, string]> = [
  ['.env', 'SECRET=1'],
  ['.env.example', 'SECRET='],
  ['.ssh/id_rsa', 'key'],
  ['sub/.aws/credentials', 'aws'],
  ['src/pass/readme.md', 'hi'],
  ['secret.txt', 's'],
  ['.git/HEAD', 'ref: refs/heads/main'],
  ['bare/HEAD', 'ref: refs/heads/main'],
  ['bare/config', '[core]'],
];
for (const [f, text] of FILES) writeFileSync(join(ws, f), text);
symlinkSync('.env', join(ws, 'notes'));
symlinkSync('.git', join(ws, 'g'));
symlinkSync(join(ws, '.ssh'), join(ws, 'lib', 'keys'));

describe("FsGuard with the kernel's forbidden-path guard", () => {
  const fs = new FsGuard([ws], new guards.ForbiddenPathGuard());
  const refusedBy = (pattern: string) =>
    expect.objectContaining({
      ok: false,
      guard: 'forbidden-path',
      message: expect.stringContaining(`matches forbidden pattern ${pattern}`),
    });

  it.each([
    ['.env', '**/.env'],
    ['.ssh/id_rsa', '**/.ssh/**'],
    ['sub/.aws/credentials', '**/.aws/**'],
    ['notes', '**/.env'],
    ['lib/keys/id_rsa', 'id_rsa*'],
    ['lib/keys', '**/.ssh'],
  ])('reading %s inside the prefix is refused (%s)', (path, pattern) => {
    expect(fs.check('read', join(ws, path))).toEqual(refusedBy(pattern));
  });

  it('a symlink is judged by its target too, and the message says which form matched', () => {
    const v = fs.check('read', join(ws, 'notes'));
    expect(v.ok ? '' : v.message).toBe(
      `access denied: fs read denied for path: ${join(ws, 'notes')} (as ${join(ws, '.env')}): matches forbidden pattern **/.env`,
    );
  });

  it.each(['src/pass/readme.md', '.env.example', 'secret.txt'])('reading %s passes', (path) => {
    expect(fs.check('read', join(ws, path))).toEqual({ ok: true });
  });

  it('terminal cwds are judged the same way', () => {
    expect(fs.check('cwd', join(ws, '.ssh'))).toEqual(refusedBy('**/.ssh'));
    expect(fs.check('cwd', join(ws, 'src'))).toEqual({ ok: true });
  });

  it("the policy's settings replace the defaults: its own patterns apply, and the default ones it dropped do not", () => {
    const policy = new FsGuard(
      [ws],
      new guards.ForbiddenPathGuard(guards.ForbiddenPathConfigSchema.parse({ patterns: ['**/secret.txt'] })),
    );
    expect(policy.check('read', join(ws, 'secret.txt'))).toEqual(refusedBy('**/secret.txt'));
    expect(policy.check('read', join(ws, '.env'))).toEqual({ ok: true });
  });

  it('the prefix rule still comes first: outside the prefix the message is the prefix one', () => {
    expect(fs.check('read', '/etc/shadow')).toEqual({
      ok: false,
      guard: 'acp-fs-guard',
      message: 'access denied: fs read denied for path: /etc/shadow',
    });
  });
});

describe('the git-directory write rule', () => {
  const fs = new FsGuard([ws]);
  it.each([
    ['.git/hooks/pre-commit', 'inside a .git directory'],
    ['.git/config', 'inside a .git directory'],
    ['.git/info/attributes', 'inside a .git directory'],
    ['.git/modules/sub/config', 'inside a .git directory'],
    ['sub/.git', 'inside a .git directory or a .git file'],
    ['.GIT/config', 'inside a .git directory'],
    ['g/hooks/post-checkout', `inside the git directory ${join(ws, 'g')}`],
    ['bare/config', `inside the git directory ${join(ws, 'bare')}`],
    ['bare/hooks/post-update', `inside the git directory ${join(ws, 'bare')}`],
    ['newrepo/HEAD', 'a HEAD file makes its directory a git repository'],
  ])('writing %s is refused (%s)', (path, why) => {
    const v = fs.check('write', join(ws, path));
    expect(v).toMatchObject({ ok: false, guard: 'acp-fs-guard' });
    expect(v.ok ? '' : v.message).toContain(why);
  });

  it.each(['src/a.ts', '.github/workflows/ci.yml', '.gitignore', '.gitattributes', 'docs/HEADER.md', 'newrepo/config'])(
    'writing %s passes',
    (path) => {
      expect(fs.check('write', join(ws, path))).toEqual({ ok: true });
    },
  );

  it("reads inside .git are not this rule's business", () => {
    expect(gitWriteRefusal(join(ws, 'src', 'a.ts'))).toBeUndefined();
    expect(fs.check('read', join(ws, '.git', 'HEAD'))).toEqual({ ok: true });
  });
});

const GNU_SED = /GNU sed/.test(spawnSync('sed', ['--version'], { encoding: 'utf8' }).stdout ?? '');

describe.skipIf(!GNU_SED)(
  `the sed script reader against the real GNU sed${GNU_SED ? '' : ' (skipped: no GNU sed here)'}`,
  () => {
    const box = join(dir, 'sed');
    mkdirSync(box);
    writeFileSync(join(box, 'input'), 'x\ny\n');
    /** Runs the script for real in an empty box; true when it ran a command or wrote a file. */
    const sedActs = (script: string): boolean => {
      const before = new Set(readdirSync(box));
      spawnSync('sed', ['-n', script, 'input'], { cwd: box, timeout: 5000 });
      const made = readdirSync(box).filter((f) => !before.has(f));
      for (const f of made) spawnSync('rm', ['-f', join(box, f)]);
      return made.length > 0;
    };

    const ACTING = [
      '1e touch MARK',
      'e touch MARK',
      's/.*/touch MARK/e',
      's/x/y/;e touch MARK',
      ':a;e touch MARK',
      ':x\n2b x e touch MARK',
      '1!e touch MARK',
      '/x/,/y/{e touch MARK\n}',
      'w MARK',
      's/x/y/w MARK',
      '$!N;e touch MARK',
      'y/a/b/;e touch MARK',
      'v;e touch MARK',
      'l 5;e touch MARK',
      's/[/]/X/;e touch MARK',
      '$ W MARK',
      '2 s/y/touch MARK/ep',
      's,x,touch MARK,e',
      '\\,x,e touch MARK',
      '1{p;e touch MARK\n}',
      'p # c\ne touch MARK',
    ];
    const HARMLESS = [
      'p',
      's/a/b/g',
      'a e touch MARK',
      '# e touch MARK',
      'r MARK',
      's/[/]/X/',
      'y/abc/xyz/',
      '/x/,/y/d',
      '$!N;P;D',
      '1~2p',
      's/e/w/g',
      '/e/p',
      '\\,e,p',
      's,x,e,',
      'i\\\ne touch MARK',
      'c\\\nw MARK',
      '$=',
      's/\\//e/',
    ];

    it.each(ACTING)('%j runs or writes under real sed, and the reader refuses it', (script) => {
      expect(sedActs(script)).toBe(true);
      expect(sedScriptRefusal(script)).toBeDefined();
    });

    it.each(HARMLESS)('%j neither runs nor writes under real sed, and the reader passes it', (script) => {
      expect(sedActs(script)).toBe(false);
      expect(sedScriptRefusal(script)).toBeUndefined();
    });

    it('the box is empty afterwards (markers were really created and removed)', () => {
      expect(readdirSync(box).sort()).toEqual(['input']);
      expect(existsSync(join(box, 'MARK'))).toBe(false);
    });
  },
);
