// The option-form table in the kernel's shell-command guard: every form of the table that runs
// something has a shell command here the guard refuses (checked by walking the table, as the ACP
// proxy's tests walk it for terminal/create), everyday uses of the same commands pass, directories
// options name become bases for relative words, and one table answers both readers: the strict
// one of a table of allowed commands (every form) and the shell guard's (forms that run something).
// Judged by the real guards in the corpus workspace (real symlinks to secrets).
import { describe, expect, it } from 'vitest';
import { createCorpusWorkspace } from '../../src/kernel/guards/corpus/index.js';
import { buildGuards, runGuards } from '../../src/kernel/guards/index.js';
import { harmlessGitKey } from '../../src/kernel/guards/shell/options/git-config.js';
import {
  COMMAND_RULES,
  formMatches,
  GIT_SUBCOMMANDS,
  optionFindings,
  WRAPPERS,
} from '../../src/kernel/guards/shell/options/index.js';
import type { OptionFinding, OptionForm, Syntax } from '../../src/kernel/guards/shell/options/index.js';
import { tempDir } from '../helpers/tmp.js';

const ws = tempDir('chio-shell-options-');
createCorpusWorkspace(ws);
const guards = buildGuards();

/** An argv as shell text (each word single-quoted), judged as a bash tool's command. */
const quote = (w: string) => `'${w.replaceAll("'", "'\\''")}'`;
const judge = (argv: readonly string[]) =>
  runGuards(
    guards,
    { serverId: 's', toolName: 'bash', arguments: { command: argv.map(quote).join(' ') } },
    { pathBases: [ws] },
  );

// Each refused argv and a part of the reason.
const REFUSED: Array<[argv: string[], reason: string]> = [
  // git(1): configuration on the command line whose key is not known to be harmless
  [['git', '-c', 'alias.x=!sh -c id', 'x'], 'git -c runs other commands or loads code (alias.x=!…)'],
  [['git', '-c', 'alias.st=status', 'st'], 'alias.st=…'],
  [['git', '-c', 'core.sshCommand=sh -c id', 'fetch', 'origin'], '(core.sshCommand=…)'],
  [['git', '-c', 'core.pager=sh -c id', 'log'], '(core.pager=…)'],
  [['git', '-ccore.fsmonitor=./x', 'status'], 'git -ccore.fsmonitor=… runs other commands'],
  [['git', '-c', 'include.path=/tmp/evil.cfg', 'log'], 'include.path=…'],
  [['git', '-c', 'safe.directory=*', 'log'], 'safe.directory=…'],
  [['git', '-c', 'x.y=z', 'log'], 'x.y=…, a key not known to be harmless'],
  [['git', '-c', 'user.name=x', '-c', 'Core.Pager=id', 'log'], '(Core.Pager=…)'],
  [['git', '--config-env=core.pager=EVIL', 'log'], 'git --config-env=… runs'],
  [['git', '--config-env', 'credential.helper=EVIL', 'fetch'], 'credential.helper'],
  [['git', '--exec-path=/tmp/evil', 'status'], 'git --exec-path=… runs'],
  [['git', '--git-dir=/tmp/evil', 'log'], 'a repository at /tmp/evil'],
  [['git', '--bare', 'log'], 'git --bare runs'],
  [['git', 'config', 'alias.x', '!sh -c id'], '(alias.x=!…)'],
  [['git', 'config', '--global', 'core.pager', 'sh -c id'], '(core.pager=…)'],
  [['git', 'config', '--add', 'include.path', '/tmp/x'], 'include.path=…'],
  [['git', 'config', 'set', 'core.hooksPath', '/tmp'], 'core.hooksPath=…'],
  [['git', 'config', '--rename-section', 'x', 'alias'], 'a section renamed'],
  [['git', 'clone', '-c', 'core.hooksPath=/tmp', 'https://github.com/org/r.git'], 'git clone -c runs'],
  [['git', 'clone', '--config=core.fsmonitor=./x', 'https://github.com/org/r.git'], 'git clone --config=… runs'],
  [['git', 'clone', '-u', 'sh -c id', 'https://github.com/org/r.git'], 'git clone -u'],
  [['git', 'clone', '--upload-pack=sh -c id', 'https://github.com/org/r.git'], 'git clone --upload-pack=…'],
  [['git', 'clone', '--template=/tmp/t', 'https://github.com/org/r.git'], 'clone --template'],
  [['git', 'fetch', '--upload-pack=sh -c id', 'origin'], 'fetch --upload-pack'],
  [['git', 'pull', '-u', 'x', 'origin'], 'pull -u'],
  [['git', 'pull', '--upload-pack=x', 'origin'], 'pull --upload-pack'],
  [['git', 'ls-remote', '--upload-pack', 'x', 'origin'], 'ls-remote --upload-pack'],
  [['git', 'ls-remote', '-u', 'x', 'origin'], 'ls-remote -u'],
  [['git', 'fetch-pack', '--exec=x', 'r'], 'fetch-pack --exec'],
  [['git', 'fetch-pack', '--upload-pack=x', 'r'], 'fetch-pack --upload-pack'],
  [['git', 'archive', '--remote=r', '--exec=x', 'HEAD'], 'archive --exec'],
  [['git', 'push', '--receive-pack=x', 'origin'], 'push --receive-pack'],
  [['git', 'push', '--exec=x', 'origin'], 'push --exec'],
  [['git', 'send-pack', '--receive-pack=x', 'r'], 'send-pack --receive-pack'],
  [['git', 'send-pack', '--exec=x', 'r'], 'send-pack --exec'],
  [['git', 'init', '--template=/tmp/t'], 'init --template'],
  [['git', 'difftool', '-x', 'sh -c id'], 'difftool -x'],
  [['git', 'difftool', '--extcmd=sh -c id'], 'difftool --extcmd'],
  [['git', 'rebase', '-x', 'sh -c id', 'main'], 'rebase -x'],
  [['git', 'rebase', '--exec', 'sh -c id', 'main'], 'rebase --exec'],
  [['git', 'grep', '-O', 'foo'], 'grep -O'],
  [['git', 'grep', '--open-files-in-pager=vim', 'foo'], 'grep --open-files-in-pager'],
  ...['sendmail-cmd', 'smtp-server', 'to-cmd', 'cc-cmd', 'header-cmd'].map((o): [string[], string] => [
    ['git', 'send-email', `--${o}=x`, 'p'],
    `send-email --${o}`,
  ]),
  [['git', 'daemon', '--access-hook=x'], 'daemon --access-hook'],
  [['git', 'bisect', 'run', 'sh', '-c', 'id'], 'bisect run'],
  [['git', 'submodule', 'foreach', 'sh -c id'], 'submodule foreach'],
  [['git', 'filter-branch', '--tree-filter', 'x'], 'filter-branch'],
  [['git', 'filter-repo', '--path', 'x'], 'filter-repo'],
  [['git', 'instaweb'], 'instaweb'],
  [['git', 'clone', 'ext::sh -c id', 'd'], 'ext::'],
  [['git', 'my-alias', '--upload-pack=x'], 'my-alias --upload-pack'],
  // npm-config(7), npm-exec(1), npm-init(1), pnpm, yarn
  [['npm', 'exec', 'evil-package'], 'npm exec runs other commands or loads code (runs a package or code it is given)'],
  [['npm', 'x', 'evil-package'], 'npm x'],
  [['npm', 'exec', '--yes', 'evil-package'], 'npm exec'],
  [['npx', 'evil-package'], 'npx evil-package: runs the package it is given'],
  [['npx', '--no', '--yes', 'evil-package'], 'npx evil-package'],
  [['npx', '-c', 'sh -c id'], 'npx -c'],
  [['npx', '--call=sh -c id'], 'npx --call'],
  [['pnpm', 'dlx', 'evil-package'], 'pnpm dlx'],
  [['yarn', 'dlx', 'evil-package'], 'yarn dlx'],
  [['npm', 'explore', 'lodash', '--', 'sh'], 'npm explore'],
  [['npm', 'edit', 'lodash'], 'npm edit'],
  [['yarn', 'node', '-e', 'x'], 'yarn node'],
  [['yarn', 'create', 'vite'], 'yarn create'],
  [['npm', 'init', 'vite'], 'npm init vite'],
  [['npm', 'set', 'script-shell=/tmp/x'], 'npm set'],
  [['npm', 'config', 'set', 'script-shell', '/tmp/x'], 'npm config set'],
  [['npm', '--node-options=--require=./evil.js', 'test'], 'npm --node-options=…'],
  [['npm', '--node_options', '--require=./evil.js', 'test'], 'npm --node_options'],
  [['npm', '--script-shell=./evil.sh', 'test'], 'npm --script-shell'],
  [['npm', '--shell=./evil.sh', 'explore', 'x'], 'npm --shell'],
  [['npm', '--git=./evil.sh', 'install'], 'npm --git'],
  [['npm', '--node-gyp=./evil.sh', 'install'], 'npm --node-gyp'],
  ...['userconfig', 'globalconfig', 'init-module', 'onload-script', 'editor', 'browser'].map(
    (o): [string[], string] => [['npm', `--${o}=/tmp/x`, 'test'], `npm --${o}`],
  ),
  [['pnpm', '--pnpmfile=/tmp/x.cjs', 'install'], 'pnpm --pnpmfile'],
  [['pnpm', '--global-pnpmfile=/tmp/x.cjs', 'install'], 'pnpm --global-pnpmfile'],
  [['yarn', '--use-yarnrc', '/tmp/rc', 'install'], 'yarn --use-yarnrc'],
  [['yarn', '--yarn-path=/tmp/x.js', 'install'], 'yarn --yarn-path'],
  [['pnpm', '--config.script-shell=/tmp/x', 'install'], 'pnpm --config.script-shell'],
  // cargo(1), rustc(1)
  [['cargo', '--config', 'build.rustc-wrapper="./evil"', 'build'], 'cargo --config'],
  [['cargo', '-Zunstable-options', 'build'], 'cargo -Z'],
  [['cargo', '+/tmp/toolchain', 'build'], 'cargo +/tmp/toolchain'],
  [['cargo', 'rustc', '--', '-C', 'linker=./evil'], 'cargo linker='],
  // make(1)
  [['make', 'SHELL=./evil.sh', 'test'], 'make SHELL=… runs other commands'],
  [['make', '.SHELLFLAGS=-c id'], 'make .SHELLFLAGS'],
  [['make', 'MAKEFLAGS=--eval=x'], 'make MAKEFLAGS'],
  [['make', 'X!=id'], 'make X!='],
  [['make', '--eval=all: ; id'], 'make --eval'],
  [['make', '-E', 'all: ; id'], 'make -E'],
  [['make', 'LD_PRELOAD=./evil.so', 'test'], 'make LD_PRELOAD=… hands LD_PRELOAD to what it runs'],
  [
    ['make', '-f', '-', 'all'],
    'make -f - runs other commands or loads code (reads the makefile, whose recipes run, from standard input)',
  ],
  [['make', '--file=/dev/stdin'], 'make -f /dev/stdin'],
  // rg(1), tar(1)
  [['rg', '--pre', './evil.sh', 'TODO'], 'rg --pre runs'],
  [['rg', '--hostname-bin=./evil', 'x'], 'rg --hostname-bin'],
  [['tar', '--to-command=sh -c id', '-xf', 'a.tar'], 'tar --to-command=… runs'],
  [['tar', '--to-com=sh -c id', '-xf', 'a.tar'], 'tar --to-com'],
  [['tar', '--use-compress-program=./evil', '-cf', 'a.tar', 'src'], 'tar --use-compress-program=…'],
  [['tar', '-I', 'zstd; id', '-cf', 'a.tar', 'src'], 'tar -I'],
  [['tar', '-I', 'zstd -o hook', '-cf', 'a.tar', 'src'], 'tar -I'],
  [['tar', '--use-compress-program=zstd --output=x', '-cf', 'a.tar', 'src'], 'tar --use-compress-program'],
  [['tar', '-cIf', 'a.tar', 'src'], 'tar -cIf'],
  [['tar', 'cIf', './evil', 'a.tar', 'src'], 'tar cIf'],
  [['tar', '--checkpoint=1', '--checkpoint-action=exec=id', '-xf', 'a.tar'], 'tar --checkpoint-action'],
  [['tar', '--rsh-command=./evil', '-cf', 'h:a.tar', 'src'], 'tar --rsh-command'],
  [['tar', '--info-script=./evil', '-cf', 'a.tar', 'src'], 'tar --info-script'],
  [['tar', '-F', './evil', '-cf', 'a.tar', 'src'], 'tar -F'],
  [['tar', '--new-volume-script=./evil', '-cf', 'a.tar', 'src'], 'tar --new-volume-script'],
  // ssh(1), ssh_config(5), scp(1), sftp(1), rsync(1), zip(1), vim(1)
  [
    ['ssh', '-o', 'ProxyCommand=sh -c id', 'build.example.org'],
    'ssh -o runs other commands or loads code (ProxyCommand=…)',
  ],
  [['ssh', '-oLocalCommand=id', '-oPermitLocalCommand=yes', 'build.example.org'], 'LocalCommand=…'],
  [['ssh', '-o', 'KnownHostsCommand sh -c id', 'build.example.org'], 'KnownHostsCommand=…'],
  [['ssh', '-o', 'Include=/tmp/cfg', 'build.example.org'], 'Include=…'],
  [['ssh', '-o', 'PKCS11Provider=./evil.so', 'build.example.org'], 'PKCS11Provider=…'],
  [['ssh', '-F', '/tmp/cfg', 'build.example.org'], 'ssh -F'],
  [['ssh', '-I', './evil.so', 'build.example.org'], 'ssh -I'],
  [['ssh', 'build.example.org', '-o', 'ProxyCommand=id', 'uptime'], 'ssh -o'],
  [['scp', '-o', 'ProxyCommand=id', 'a', 'build.example.org:b'], 'scp -o'],
  [['scp', '-F', '/tmp/cfg', 'a', 'build.example.org:b'], 'scp -F'],
  [['scp', '-S', './evil', 'a', 'build.example.org:b'], 'scp -S'],
  [['scp', '-D', './evil', 'a', 'build.example.org:b'], 'scp -D'],
  [['sftp', '-o', 'ProxyCommand=id', 'build.example.org'], 'sftp -o'],
  [['sftp', '-F', '/tmp/cfg', 'build.example.org'], 'sftp -F'],
  [['sftp', '-S', './evil', 'build.example.org'], 'sftp -S'],
  [['sftp', '-D', './evil', 'build.example.org'], 'sftp -D'],
  [['rsync', '-e', 'sh -c id', 'src/', 'build.example.org:dst/'], 'rsync -e runs'],
  [['rsync', '-avze', 'sh -c id', 'src/', 'build.example.org:dst/'], 'rsync -avze'],
  [['rsync', '--rsh=sh -c id', 'src/', 'build.example.org:dst/'], 'rsync --rsh=…'],
  [['rsync', '-e', 'ssh -o ProxyCommand=id', 'src/', 'build.example.org:dst/'], '(ssh ProxyCommand=…)'],
  [['rsync', '-e', 'ssh "-oProxyCommand=id"', 'src/', 'build.example.org:dst/'], 'rsync -e'],
  [['rsync', '--rsync-path=sh -c id', 'src/', 'build.example.org:dst/'], 'rsync --rsync-path=…'],
  [['rsync', '--daemon'], 'rsync --daemon'],
  [['rsync', '--config=/tmp/rsyncd.conf'], 'rsync --config'],
  [['zip', '-T', '-TT', 'sh -c id', 'a.zip', 'f'], 'zip -TT'],
  [['zip', '--unzip-command=sh -c id', '-T', 'a.zip', 'f'], 'zip --unzip-command'],
  [['vim', '-c', '!id', 'f'], 'vim -c'],
  [['vim', '-S', '/tmp/s.vim'], 'vim -S'],
  [['vim', '-u', '/tmp/vimrc'], 'vim -u'],
  [['vim', '-U', '/tmp/gvimrc'], 'vim -U'],
  [['vim', '-s', '/tmp/keys'], 'vim -s'],
  [['vim', '--cmd', '!id'], 'vim --cmd'],
  [['vim', '+!id', 'f'], 'vim +!id'],
  [['vim', '--remote-send', ':!id<CR>'], 'vim --remote-send'],
  [['nvim', '-l', '/tmp/x.lua'], 'nvim -l'],
  // sed(1): what the shape check misses, the reader sees
  [['sed', '1~2e id', 'f'], 'the e command runs a shell command'],
  [['sed', '1,3e id', 'f'], 'the e command'],
  [['sed', '\\,x,e id', 'f'], 'the e command'],
  [['sed', '-f', 'x.sed', '-e', '1~2e id', 'f'], 'the e command'],
  [['sed', '-f', '-', 'f'], 'sed -f runs other commands or loads code (reads a script the guard cannot see)'],
  [['sed', '-nf/dev/stdin', 'f'], 'sed -nf/dev/stdin'],
  [['sed', '1 k', 'f'], 'a sed script the guard cannot read'],
  // wrappers: through them, and their own forms that run what the line does not show
  [['nice', '-n', '5', 'git', '-c', 'alias.x=!id', 'x'], 'git -c runs'],
  [['timeout', '5', 'tar', '--to-command=id', '-xf', 'a.tar'], 'tar --to-command'],
  [
    ['find', '.', '-exec', 'git', '-c', 'core.pager=id', 'log', ';'],
    'find -exec runs a command that is refused: git -c',
  ],
  [['sudo', '-s'], 'sudo -s runs other commands'],
  [['sudo', '-i'], 'sudo -i'],
  [['sudo', '-e', '/etc/hosts'], 'sudo -e'],
  [['sudo', '-R', '/tmp/root', 'ls'], 'sudo -R'],
  [['sudo', '--login'], 'sudo --login'],
  [['doas', '-s'], 'doas -s'],
  [['sudo', 'LD_PRELOAD=./evil.so', 'ls'], 'sudo sets LD_PRELOAD'],
  [['strace', '-o', '|sh -c id', 'ls'], 'strace -o runs'],
  [['strace', '-E', 'LD_PRELOAD=./evil.so', 'ls'], 'strace sets LD_PRELOAD'],
];

const PASSING: string[][] = [
  ['git', '-c', 'user.name=Build Bot', '-c', 'user.email=bot@example.com', 'commit', '-m', 'x'],
  ['git', '-c', 'color.ui=never', 'log', '--oneline'],
  ['git', '-c', 'color.diff.meta=blue', 'diff'],
  ['git', '-c', 'core.autocrlf=false', 'status'],
  ['git', '-c', 'init.defaultBranch=main', 'init'],
  ['git', '-c', 'advice.detachedHead=false', 'checkout', 'v1'],
  ['git', '-c', 'pull.rebase=false', 'pull'],
  ['git', '-c', 'http.postBuffer=524288000', 'push'],
  ['git', '--exec-path'],
  ['git', '--git-dir=.git', 'log'],
  ['git', '-C', 'src', 'status'],
  ['git', 'config', 'user.email', 'bot@example.com'],
  ['git', 'config', '--global', 'init.defaultBranch', 'main'],
  ['git', 'config', '--get', 'user.name'],
  ['git', 'config', '--unset', 'alias.x'],
  ['git', 'clone', '-c', 'core.autocrlf=false', 'https://github.com/org/r.git'],
  ['git', 'clone', '--bare', 'https://github.com/org/r.git'],
  ['git', 'fetch', '-u', 'origin'],
  ['git', 'rebase', '-i', 'main'],
  ['git', 'bisect', 'start'],
  ['git', 'commit', '-m', 'fix -x and -c handling'],
  ['npm', 'test'],
  ['npm', 'run', 'build', '--', '-c', 'production'],
  ['npm', 'ci'],
  ['npx', '--no', 'tsc', '-p', '.'],
  ['npx', '--no-install', 'vitest', 'run', '-c', 'vitest.config.ts'],
  ['npm', 'exec', '--no', '--', 'tsc', '--noEmit'],
  ['npm', 'config', 'get', 'registry'],
  ['pnpm', 'install', '--frozen-lockfile'],
  ['cargo', 'build', '--release'],
  ['cargo', '+nightly', 'build'],
  ['cargo', 'rustc', '--', '-C', 'opt-level=3'],
  ['make', '-C', 'build', 'test'],
  ['make', '-j4', 'all'],
  ['make', 'VERBOSE=1'],
  ['make', 'CFLAGS=-O2'],
  ['make', '-f', 'Makefile.ci'],
  ['find', '.', '-name', '*.ts', '-newer', 'package.json'],
  ['find', '.', '-name', '*.ts', '-exec', 'grep', '-l', 'TODO', '{}', '+'],
  ['rg', '-n', 'TODO', 'src'],
  ['rg', '--pre-glob', '*.pdf', 'x'],
  ['tar', '-C', 'build', '-xzf', 'a.tgz'],
  ['tar', '-I', 'zstd', '-cf', 'src.tar.zst', 'src'],
  ['tar', '--use-compress-program=zstd -T0 --long=31', '-cf', 'a.tar.zst', 'src'],
  ['tar', '--checkpoint=10', '-xf', 'a.tar'],
  ['tar', '-xfI.tar'],
  ['ssh', '-o', 'ConnectTimeout=5', 'build.example.org', 'uptime'],
  ['ssh', '-o', 'StrictHostKeyChecking=no', '-o', 'BatchMode=yes', 'build.example.org'],
  ['ssh', '-F', '/dev/null', 'build.example.org'],
  ['ssh', '-p', '2222', 'deploy@build.example.org'],
  ['ssh', '-i', 'deploy_key', 'build.example.org'],
  ['ssh', 'build.example.org', 'grep', '-rIl', 'TODO', '/srv'],
  ['ssh', '-oUserKnownHostsFile=known_Hosts_File', 'build.example.org'],
  ['scp', '-P', '22', 'a', 'build.example.org:b'],
  ['rsync', '-av', 'src/', 'build/'],
  ['rsync', '-avz', '-e', 'ssh', 'src/', 'build.example.org:dst/'],
  ['rsync', '-e', 'ssh -p 2222 -i deploy_key', '-a', 'src/', 'build.example.org:dst/'],
  ['rsync', '--delete', '-a', 'src/', 'build/'],
  ['zip', '-r', 'out.zip', 'src'],
  ['vim', '+12', 'f'],
  ['sed', '-n', '/x/{s/a/b/;p}', 'f'],
  ['sed', '-i', 's/a/b/', 'src/app.ts'],
  ['sed', '-f', 'fix.sed', 'src/app.ts'],
  ['nice', '-n', '5', 'git', 'status'],
  ['sudo', '-u', 'root', 'git', 'status'],
  ['env', '-C', 'src', 'ls'],
  ['strace', '-f', '-o', 'trace.txt', 'ls'],
];

describe('option forms that run other commands, in shell commands', () => {
  it.each(REFUSED)('%j is refused: %s', (argv, reason) => {
    const d = judge(argv);
    expect(d, JSON.stringify(d)).toMatchObject({ verdict: 'deny', guard: 'shell-command' });
    expect(d.verdict === 'deny' ? d.reason : '').toContain(reason);
  });

  it.each(PASSING.map((a) => [a]))('%j passes', (argv) => {
    const d = judge(argv);
    expect(d, JSON.stringify(d)).toMatchObject({ verdict: 'allow' });
  });

  it('every form of the table that runs something has a refused case above', () => {
    const hit = (label: string, forms: ReadonlyArray<OptionForm>, syntax: Syntax, cases: string[][]) => {
      for (const form of forms.filter((f) => f.runs !== false)) {
        expect(
          cases.some((args) => args.some((w) => formMatches(form, w, syntax))),
          `${label}: ${JSON.stringify({ ...form, match: form.match?.source })}`,
        ).toBe(true);
      }
    };
    for (const [name, rules] of Object.entries(COMMAND_RULES)) {
      const sharing = Object.entries(COMMAND_RULES)
        .filter(([, r]) => r.forms === rules.forms)
        .map(([n]) => n);
      hit(
        name,
        rules.forms,
        rules,
        REFUSED.filter(([a]) => sharing.includes(a[0]!)).map(([a]) => a.slice(1)),
      );
    }
    for (const [sub, rule] of Object.entries(GIT_SUBCOMMANDS)) {
      const cases = REFUSED.filter(([a]) => a[0] === 'git' && a[1] === sub).map(([a]) => a.slice(2));
      hit(`git ${sub}`, rule.forms ?? [], { abbreviates: true }, cases);
      if (rule.all !== undefined || rule.words !== undefined) expect(cases.length, sub).toBeGreaterThan(0);
    }
    for (const [name, spec] of Object.entries(WRAPPERS)) {
      if (spec.refuseRuns !== true) continue;
      const cases = REFUSED.filter(([a]) => a[0] === name).map(([a]) => a.slice(1));
      for (const letter of spec.refuseShort ?? '')
        expect(
          cases.some((args) => args.some((a) => /^-[^-]/.test(a) && a.includes(letter))),
          `${name} -${letter}`,
        ).toBe(true);
    }
  });
});

describe('directories options name', () => {
  it.each([
    [['tar', '-C', 'cfg', '-cf', 'out.tar', 'credentials'], ['tar', '-cf', 'out.tar', 'credentials'], /\.aws/],
    [['make', '-C', 'keyring', 'all'], ['make', 'all'], /\.ssh/],
    [
      ['git', '-C', 'src', '-C', '../cfg', 'show', 'HEAD:credentials'],
      ['git', '-C', 'src', 'show', 'HEAD:credentials'],
      /\.aws/,
    ],
    [['env', '-C', 'cfg', 'cat', 'credentials'], ['env', 'cat', 'credentials'], /\.aws/],
  ])(
    '%j: relative words are judged inside the directory (there a symlink to a secret directory); %j passes',
    (argv, control, pattern) => {
      const d = judge(argv);
      expect(d).toMatchObject({ verdict: 'deny', guard: 'shell-command' });
      expect(d.verdict === 'deny' ? d.reason : '').toMatch(pattern);
      expect(judge(control)).toMatchObject({ verdict: 'allow' });
    },
  );
});

describe('one table, two readings', () => {
  const refusedOf = (command: string, args: string[]) =>
    optionFindings(command, args, '/ws').filter(
      (f): f is Extract<OptionFinding, { kind: 'refused' }> => f.kind === 'refused',
    );

  it('a strict table refuses every form; the shell guard only those that run something', () => {
    expect(refusedOf('git', ['-c', 'user.name=x', 'commit'])).toEqual([
      expect.objectContaining({ arg: '-c', runs: false }),
    ]);
    expect(refusedOf('git', ['-c', 'alias.x=!id', 'x'])).toEqual([
      expect.objectContaining({ arg: '-c', runs: true, detail: 'alias.x=!…' }),
    ]);
    expect(refusedOf('find', ['.', '-exec', 'grep', 'x', '{}', '+'])).toEqual([
      expect.objectContaining({ arg: '-exec', runs: false }),
    ]);
    expect(refusedOf('ssh', ['-o', 'ConnectTimeout=5', 'h'])).toEqual([
      expect.objectContaining({ arg: '-o', runs: false }),
    ]);
    expect(refusedOf('ssh', ['-oIdentityFile=/k/IF', 'h'])).toEqual([
      expect.objectContaining({ arg: '-oIdentityFile=/k/IF', runs: false }),
      expect.objectContaining({ runs: false }),
      expect.objectContaining({ runs: false }),
    ]);
    expect(refusedOf('npm', ['run', 'build', '--', '-c', 'prod'])).toEqual([
      expect.objectContaining({ arg: '-c', runs: false }),
    ]);
    expect(refusedOf('npx', ['vitest', 'run'])).toEqual([
      expect.objectContaining({ arg: 'vitest', runs: true, commandItself: true }),
    ]);
    expect(refusedOf('npx', ['--no', 'vitest', 'run'])).toEqual([]);
  });

  it('paths options name, relative to the directory earlier options moved to, and the variables make hands on', () => {
    expect(
      optionFindings('git', ['-C', 'a', '-C', 'b', 'diff', '--output=p.diff'], undefined).filter(
        (f) => f.kind === 'path',
      ),
    ).toEqual([
      { kind: 'path', op: 'cwd', value: 'a', base: undefined, chdir: true },
      { kind: 'path', op: 'cwd', value: 'b', base: 'a', chdir: true },
      { kind: 'path', op: 'write', value: 'p.diff', base: 'a/b', chdir: false },
    ]);
    expect(optionFindings('make', ['-f', 'x.mk', 'CC=gcc'], '/ws')).toEqual([
      { kind: 'path', op: 'cwd', value: 'x.mk', base: '/ws', chdir: false },
      { kind: 'env', arg: 'CC=gcc', name: 'CC', why: 'make passes it to recipes as the environment variable it names' },
    ]);
  });

  it('git keys: a short list is harmless, everything else counts as running code', () => {
    for (const k of [
      'user.name',
      'USER.EMAIL',
      'color.ui',
      'color.diff.meta',
      'core.autocrlf',
      'init.defaultBranch',
      'pull.rebase',
    ])
      expect(harmlessGitKey(k), k).toBe(true);
    for (const k of [
      'alias.x',
      'core.pager',
      'core.editor',
      'core.sshCommand',
      'core.fsmonitor',
      'core.hooksPath',
      'include.path',
      'includeIf.gitdir:/x.path',
      'credential.helper',
      'diff.external',
      'diff.x.textconv',
      'filter.x.clean',
      'merge.x.driver',
      'gpg.program',
      'safe.directory',
      'protocol.ext.allow',
      'submodule.x.update',
      'gc.recentObjectsHook',
      'commit.template',
      'sequence.editor',
      'color',
      'user',
      'x.y',
    ])
      expect(harmlessGitKey(k), k).toBe(false);
  });
});
