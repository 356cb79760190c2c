// The ACP proxy's terminal/create rules in process: the option-form table (every form in the
// table has a refused case here, checked by walking the table), wrappers judged through, the
// environment table (every entry refused, case rules, --allow-env), and the seam for plugged-in
// checks. Real files for the paths options name.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { guards } from '../../src/kernel/index.js';
import {
  COMMAND_RULES,
  ENV_RULES,
  envRefusal,
  formMatches,
  FsGuard,
  GIT_SUBCOMMANDS,
  TerminalGuard,
  WRAPPERS,
} from '../../src/proxy/acp/index.js';
import type { TerminalCheck } from '../../src/proxy/acp/index.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('chio-acp-terminal-rules-');
const root = join(dir, 'ws');
mkdirSync(join(root, 'sub'), { recursive: true });
mkdirSync(join(root, '.git', 'hooks'), { recursive: true });

const fs = new FsGuard([root], new guards.ForbiddenPathGuard());
const COMMANDS = [...Object.keys(COMMAND_RULES), ...Object.keys(WRAPPERS), 'git', 'sed'];
const guard = new TerminalGuard(COMMANDS, { fs });

type Case = [command: string, args: string[], cwd?: string];
/** cwd '' means no cwd at all. */
const judge = ([command, args, cwd]: Case) => guard.check(command, args, { cwd: cwd === '' ? null : (cwd ?? root) });

// Each refused case: the argv and a part of the refusal message.
const REFUSED: Array<[...Case, string]> = [
  // git(1) global options
  ['git', ['-c', 'alias.x=!touch /tmp/pwned', 'x'], root, 'git -c'],
  ['git', ['-calias.x=!touch /tmp/pwned', 'x'], root, 'git -calias'],
  ['git', ['--config-env=core.pager=EVIL', 'log'], root, '--config-env'],
  ['git', ['--config-env', 'core.pager=EVIL', 'log'], root, '--config-env'],
  ['git', ['--exec-path=/tmp/evil', 'status'], root, '--exec-path'],
  ['git', ['--bare', 'log'], root, '--bare'],
  ['git', ['-C', '/etc', 'status'], root, 'fs cwd denied for path: /etc'],
  ['git', ['-C', '..', 'status'], root, 'path traversal detected: ..'],
  ['git', ['-C', 'sub', 'status'], '', 'relative path without a terminal cwd'],
  ['git', ['--git-dir=/etc', 'log'], root, 'fs cwd denied for path: /etc'],
  ['git', ['--git-dir', join(root, 'evil'), 'log'], root, 'outside a .git directory'],
  ['git', ['--work-tree=/etc', 'status'], root, 'fs cwd denied for path: /etc'],
  // git-clone(1), git-fetch(1), git-pull(1), git-ls-remote(1), git-fetch-pack(1), git-archive(1), git-push(1), git-send-pack(1), git-init(1)
  ['git', ['clone', '-u', 'touch /tmp/x', 'https://h/r.git'], root, 'clone -u'],
  ['git', ['clone', '--upload-pack=touch /tmp/x', 'https://h/r.git'], root, 'clone --upload-pack'],
  ['git', ['clone', '--upload-pa=x', 'https://h/r.git'], root, 'clone --upload-pa'],
  ['git', ['clone', '--template=/tmp/t', 'https://h/r.git'], root, 'clone --template'],
  ['git', ['clone', '-c', 'core.hooksPath=/tmp', 'https://h/r.git'], root, 'clone -c'],
  ['git', ['clone', '--config', 'core.fsmonitor=x', 'https://h/r.git'], root, 'clone --config'],
  ['git', ['clone', '--bare', 'https://h/r.git'], root, 'clone --bare'],
  ['git', ['clone', '--mirror', 'https://h/r.git'], root, 'clone --mirror'],
  ['git', ['clone', '--separate-git-dir=x', 'https://h/r.git'], root, 'clone --separate-git-dir'],
  ['git', ['fetch', '-u', 'x', 'origin'], root, 'fetch -u'],
  ['git', ['fetch', '--upload-pack=x', 'origin'], root, 'fetch --upload-pack'],
  ['git', ['pull', '-u', 'x', 'origin'], root, 'pull -u'],
  ['git', ['pull', '--upload-pack=x'], root, 'pull --upload-pack'],
  ['git', ['ls-remote', '-u', 'x', 'origin'], root, 'ls-remote -u'],
  ['git', ['ls-remote', '--upload-pack', 'x', 'origin'], root, 'ls-remote --upload-pack'],
  ['git', ['fetch-pack', '--upload-pack=x', 'r'], root, 'fetch-pack --upload-pack'],
  ['git', ['fetch-pack', '--exec=x', 'r'], root, 'fetch-pack --exec'],
  ['git', ['archive', '--remote=r', '--exec=x', 'HEAD'], root, 'archive --exec'],
  ['git', ['push', '--receive-pack=x', 'origin'], root, 'push --receive-pack'],
  ['git', ['push', '--exec=x', 'origin'], root, 'push --exec'],
  ['git', ['send-pack', '--receive-pack=x', 'r'], root, 'send-pack --receive-pack'],
  ['git', ['send-pack', '--exec=x', 'r'], root, 'send-pack --exec'],
  ['git', ['init', '--template=/tmp/t'], root, 'init --template'],
  ['git', ['init', '--bare', 'b'], root, 'init --bare'],
  ['git', ['init', '--separate-git-dir', 'x'], root, 'init --separate-git-dir'],
  // git-config(1): writes and --edit
  ['git', ['config', 'core.fsmonitor', 'touch /tmp/x'], root, 'writes configuration'],
  ['git', ['config', '--global', 'alias.x', '!touch /tmp/x'], root, 'writes configuration'],
  ['git', ['config', '--add', 'core.hooksPath', '/tmp'], root, 'config --add'],
  ['git', ['config', '--unset', 'user.name'], root, 'config --unset'],
  ['git', ['config', '-e'], root, 'config -e'],
  ['git', ['config', '--edit'], root, 'config --edit'],
  ['git', ['config', 'set', 'core.pager', 'x'], root, 'writes configuration'],
  // git-difftool(1), git-rebase(1), git-grep(1), git-send-email(1), git-daemon(1), git-bisect(1), git-submodule(1)
  ['git', ['difftool', '-x', 'touch /tmp/x'], root, 'difftool -x'],
  ['git', ['difftool', '--extcmd=touch /tmp/x'], root, 'difftool --extcmd'],
  ['git', ['rebase', '-x', 'touch /tmp/x', 'main'], root, 'rebase -x'],
  ['git', ['rebase', '-xtouch /tmp/x', 'main'], root, 'rebase -xtouch'],
  ['git', ['rebase', '--exec', 'touch /tmp/x', 'main'], root, 'rebase --exec'],
  ['git', ['rebase', '--exe=touch /tmp/x', 'main'], root, 'rebase --exe'],
  ['git', ['grep', '-O', 'foo'], root, 'grep -O'],
  ['git', ['grep', '--open-files-in-pager=vim', 'foo'], root, 'grep --open-files-in-pager'],
  ['git', ['send-email', '--sendmail-cmd=x', 'p'], root, 'send-email --sendmail-cmd'],
  ['git', ['send-email', '--smtp-server=/tmp/x', 'p'], root, 'send-email --smtp-server'],
  ['git', ['send-email', '--to-cmd=x', 'p'], root, 'send-email --to-cmd'],
  ['git', ['send-email', '--cc-cmd=x', 'p'], root, 'send-email --cc-cmd'],
  ['git', ['send-email', '--header-cmd=x', 'p'], root, 'send-email --header-cmd'],
  ['git', ['daemon', '--access-hook=x'], root, 'daemon --access-hook'],
  ['git', ['bisect', 'run', 'touch', '/tmp/x'], root, 'bisect run'],
  ['git', ['submodule', 'foreach', 'touch /tmp/x'], root, 'submodule foreach'],
  ['git', ['submodule', '--quiet', 'foreach', 'x'], root, 'submodule foreach'],
  ['git', ['filter-branch', '--tree-filter', 'x'], root, 'filter-branch'],
  ['git', ['filter-repo', '--path', 'x'], root, 'filter-repo'],
  ['git', ['instaweb'], root, 'instaweb'],
  // git-remote-ext(1); an alias or external subcommand gets the union; --output / -o are writes
  ['git', ['clone', 'ext::sh -c touch% /tmp/x', 'd'], root, 'ext::'],
  ['git', ['remote', 'add', 'o', 'ext::sh -c x'], root, 'ext::'],
  ['git', ['my-alias', '--upload-pack=x'], root, 'my-alias --upload-pack'],
  ['git', ['my-alias', '--exec=x'], root, 'my-alias --exec'],
  ['git', ['diff', '--output=.git/hooks/pre-commit'], root, 'fs write denied'],
  ['git', ['format-patch', '-o', '/etc', 'HEAD~1'], root, 'fs write denied for path: /etc'],
  ['git', ['archive', '-o', '/etc/x.tar', 'HEAD'], root, 'fs write denied for path: /etc/x.tar'],
  // npm-config(7), npm-exec(1), npm-init(1), pnpm, yarn
  ['npm', ['--node-options=--require /tmp/x.js', 'test'], root, 'npm --node-options'],
  ['npm', ['--node-options', '--require /tmp/x.js', 'test'], root, 'npm --node-options'],
  ['npm', ['--node-opt=x', 'test'], root, 'npm --node-opt'],
  ['npm', ['--node_options=x', 'test'], root, 'npm --node_options'],
  ['npm', ['--script-shell=/tmp/x', 'test'], root, 'npm --script-shell'],
  ['npm', ['--shell=/tmp/x', 'explore', 'x'], root, 'npm --shell'],
  ['npm', ['--git=/tmp/x', 'install'], root, 'npm --git'],
  ['npm', ['--node-gyp=/tmp/x', 'install'], root, 'npm --node-gyp'],
  ['npm', ['--userconfig=/tmp/npmrc', 'test'], root, 'npm --userconfig'],
  ['npm', ['--globalconfig', '/tmp/npmrc', 'test'], root, 'npm --globalconfig'],
  ['npm', ['--init-module=/tmp/x.js', 'init'], root, 'npm --init-module'],
  ['npm', ['--onload-script=/tmp/x.js', 'test'], root, 'npm --onload-script'],
  ['npm', ['--editor=/tmp/x', 'test'], root, 'npm --editor'],
  ['npm', ['--browser=/tmp/x', 'docs'], root, 'npm --browser'],
  ['npx', ['-c', 'touch /tmp/x'], root, 'npx -c'],
  ['npx', ['--call=touch /tmp/x'], root, 'npx --call'],
  ['pnpm', ['--pnpmfile=/tmp/x.cjs', 'install'], root, 'pnpm --pnpmfile'],
  ['pnpm', ['--global-pnpmfile=/tmp/x.cjs', 'install'], root, 'pnpm --global-pnpmfile'],
  ['yarn', ['--use-yarnrc', '/tmp/rc', 'install'], root, 'yarn --use-yarnrc'],
  ['yarn', ['--yarn-path=/tmp/x.js', 'install'], root, 'yarn --yarn-path'],
  ['pnpm', ['--config.script-shell=/tmp/x', 'install'], root, 'pnpm --config.script-shell'],
  ['npm', ['exec', 'cowsay'], root, 'npm exec'],
  ['npm', ['x', 'cowsay'], root, 'npm x'],
  ['pnpm', ['dlx', 'cowsay'], root, 'pnpm dlx'],
  ['npm', ['explore', 'lodash'], root, 'npm explore'],
  ['npm', ['edit', 'lodash'], root, 'npm edit'],
  ['yarn', ['node', '-e', 'x'], root, 'yarn node'],
  ['yarn', ['create', 'vite'], root, 'yarn create'],
  ['npm', ['init', 'vite'], root, 'npm init vite'],
  ['npm', ['config', 'set', 'script-shell=/tmp/x'], root, 'npm config set'],
  ['npm', ['c', 'edit'], root, 'npm c edit'],
  ['npm', ['set', 'script-shell=/tmp/x'], root, 'npm set'],
  ['npm', ['--loglevel', 'silly', 'exec', 'cowsay'], root, 'npm exec'],
  ['npm', ['--prefix', '/etc', 'test'], root, 'fs cwd denied for path: /etc'],
  ['pnpm', ['-C', '/etc', 'install'], root, 'fs cwd denied for path: /etc'],
  ['pnpm', ['--dir=/etc', 'install'], root, 'fs cwd denied for path: /etc'],
  ['yarn', ['--cwd', '/etc', 'install'], root, 'fs cwd denied for path: /etc'],
  // cargo(1), rustc(1)
  ['cargo', ['--config', 'build.rustc-wrapper="/tmp/x"', 'build'], root, 'cargo --config'],
  ['cargo', ['build', '--config=target.x.runner="/tmp/x"'], root, 'cargo --config'],
  ['cargo', ['-Zunstable-options', 'build'], root, 'cargo -Z'],
  ['cargo', ['+/tmp/toolchain', 'build'], root, 'cargo +/tmp/toolchain'],
  ['cargo', ['rustc', '--', '-C', 'linker=/tmp/x'], root, 'cargo linker='],
  ['cargo', ['rustc', '--', '-Clink-arg=-fuse-ld=/tmp/x'], root, 'cargo -Clink-arg'],
  ['cargo', ['build', '--manifest-path', '/etc/Cargo.toml'], root, 'fs cwd denied for path: /etc/Cargo.toml'],
  // make(1)
  ['make', ['--eval=all: x'], root, 'make --eval'],
  ['make', ['--ev', 'x'], root, 'make --ev'],
  ['make', ['-E', 'x'], root, 'make -E'],
  ['make', ['SHELL=/tmp/x'], root, 'make SHELL='],
  ['make', ['SHELL:=/tmp/x'], root, 'make SHELL:='],
  ['make', ['.SHELLFLAGS=-c touch /tmp/x'], root, 'make .SHELLFLAGS'],
  ['make', ['MAKEFLAGS=--eval=x'], root, 'make MAKEFLAGS'],
  ['make', ['MAKEFILES=/tmp/x.mk'], root, 'make MAKEFILES'],
  ['make', ['X!=touch /tmp/x'], root, 'make X!='],
  ['make', ['CC=/tmp/x'], root, 'make CC='],
  ['make', ['-C', '/etc'], root, 'fs cwd denied for path: /etc'],
  ['make', ['-f', '/etc/Makefile'], root, 'fs cwd denied for path: /etc/Makefile'],
  ['make', ['--directory=/etc'], root, 'fs cwd denied for path: /etc'],
  // find(1) ACTIONS
  ...['-exec', '-execdir', '-ok', '-okdir'].map((a): [...Case, string] => [
    'find',
    ['.', a, 'touch', '/tmp/x', '+'],
    root,
    `find ${a}`,
  ]),
  ...['-delete', '-fprint', '-fprint0', '-fls'].map((a): [...Case, string] => [
    'find',
    ['.', a, '/tmp/x'],
    root,
    `find ${a}`,
  ]),
  ['find', ['.', '-fprintf', '/tmp/x', '%p'], root, 'find -fprintf'],
  // rg(1), tar(1), ssh(1), scp(1), sftp(1), rsync(1), zip(1), vim(1)
  ['rg', ['--pre', '/tmp/x', 'foo'], root, 'rg --pre'],
  ['rg', ['--pre=/tmp/x', 'foo'], root, 'rg --pre'],
  ['rg', ['--hostname-bin=/tmp/x', 'foo'], root, 'rg --hostname-bin'],
  ['tar', ['-xf', 'a.tar', '--to-command=touch /tmp/x'], root, 'tar --to-command'],
  ['tar', ['-xf', 'a.tar', '--to-com=x'], root, 'tar --to-com'],
  ['tar', ['-cf', 'a.tar', '--use-compress-program=/tmp/x', 'src'], root, 'tar --use-compress-program'],
  ['tar', ['-I', '/tmp/x', '-cf', 'a.tar', 'src'], root, 'tar -I'],
  ['tar', ['-cIf', '/tmp/x', 'a.tar', 'src'], root, 'tar -cIf'],
  ['tar', ['cIf', '/tmp/x', 'a.tar', 'src'], root, 'tar cIf'],
  ['tar', ['-xf', 'a.tar', '--checkpoint=1', '--checkpoint-action=exec=touch /tmp/x'], root, 'tar --checkpoint-action'],
  ['tar', ['-cf', 'h:a.tar', '--rsh-command=/tmp/x', 'src'], root, 'tar --rsh-command'],
  ['tar', ['-cf', 'a.tar', '--info-script=/tmp/x', 'src'], root, 'tar --info-script'],
  ['tar', ['-cf', 'a.tar', '-F', '/tmp/x', 'src'], root, 'tar -F'],
  ['tar', ['-cf', 'a.tar', '--new-volume-script=/tmp/x', 'src'], root, 'tar --new-volume-script'],
  ['tar', ['-xf', 'a.tar', '-C', '/etc'], root, 'fs cwd denied for path: /etc'],
  ['ssh', ['-o', 'ProxyCommand=touch /tmp/x', 'h'], root, 'ssh -o'],
  ['ssh', ['-oLocalCommand=touch /tmp/x', 'h'], root, 'ssh -oLocalCommand'],
  ['ssh', ['-F', '/tmp/cfg', 'h'], root, 'ssh -F'],
  ['ssh', ['-I', '/tmp/x.so', 'h'], root, 'ssh -I'],
  ['scp', ['-o', 'ProxyCommand=x', 'a', 'h:b'], root, 'scp -o'],
  ['scp', ['-F', '/tmp/cfg', 'a', 'h:b'], root, 'scp -F'],
  ['scp', ['-S', '/tmp/x', 'a', 'h:b'], root, 'scp -S'],
  ['scp', ['-D', '/tmp/x', 'a', 'h:b'], root, 'scp -D'],
  ['sftp', ['-o', 'ProxyCommand=x', 'h'], root, 'sftp -o'],
  ['sftp', ['-F', '/tmp/cfg', 'h'], root, 'sftp -F'],
  ['sftp', ['-S', '/tmp/x', 'h'], root, 'sftp -S'],
  ['sftp', ['-D', '/tmp/x', 'h'], root, 'sftp -D'],
  ['rsync', ['-e', 'touch /tmp/x', 'a', 'h:b'], root, 'rsync -e'],
  ['rsync', ['-avze', 'touch /tmp/x', 'a', 'h:b'], root, 'rsync -avze'],
  ['rsync', ['--rsh=touch /tmp/x', 'a', 'h:b'], root, 'rsync --rsh'],
  ['rsync', ['--rsync-path=touch /tmp/x', 'a', 'h:b'], root, 'rsync --rsync-path'],
  ['rsync', ['--daemon'], root, 'rsync --daemon'],
  ['rsync', ['--config=/tmp/rsyncd.conf'], root, 'rsync --config'],
  ['zip', ['-T', '-TT', 'touch /tmp/x', 'a.zip', 'f'], root, 'zip -TT'],
  ['zip', ['--unzip-command=touch /tmp/x', '-T', 'a.zip', 'f'], root, 'zip --unzip-command'],
  ['vim', ['-c', '!touch /tmp/x', 'f'], root, 'vim -c'],
  ['vim', ['+!touch /tmp/x', 'f'], root, 'vim +!touch'],
  ['vim', ['--cmd', '!touch /tmp/x'], root, 'vim --cmd'],
  ['vim', ['-S', '/tmp/s.vim'], root, 'vim -S'],
  ['vim', ['-u', '/tmp/vimrc'], root, 'vim -u'],
  ['vim', ['-U', '/tmp/gvimrc'], root, 'vim -U'],
  ['vim', ['-s', '/tmp/keys'], root, 'vim -s'],
  ['vim', ['--remote-send', ':!touch /tmp/x<CR>'], root, 'vim --remote-send'],
  ['nvim', ['-l', '/tmp/x.lua'], root, 'nvim -l'],
  ['nvim', ['--listen', '/tmp/sock'], root, 'nvim --listen'],
  // sed(1): e, s///e, w, -f, and -i on a refused path
  ['sed', ['-n', '1e touch /tmp/x', 'f'], root, 'the e command runs a shell command'],
  ['sed', ['s/.*/touch \\/tmp\\/x/e', 'f'], root, 'the e flag of s'],
  ['sed', ['-e', 'p', '-e', 'e touch /tmp/x', 'f'], root, 'the e command'],
  ['sed', ['--expression=w /tmp/x', 'f'], root, 'the w command writes a file'],
  ['sed', ['--expr', 's/a/b/w /tmp/x', 'f'], root, 'the w flag of s'],
  ['sed', ['-f', '/tmp/script.sed', 'f'], root, 'reads a script the proxy cannot see'],
  ['sed', ['--file=/tmp/script.sed', 'f'], root, 'reads a script the proxy cannot see'],
  ['sed', ['-nf', '/tmp/script.sed', 'f'], root, 'reads a script the proxy cannot see'],
  ['sed', ['-i', 's/a/b/', '.git/config'], root, 'fs write denied'],
  ['sed', ['k', 'f'], root, 'a sed script the proxy cannot read'],
  // wrappers: the wrapped command must be allowed and pass
  ['nice', ['git', '-c', 'alias.x=!touch /tmp/x', 'x'], root, 'git -c'],
  ['nice', ['-n', '5', 'git', '-c', 'x=y', 'x'], root, 'git -c'],
  ['nice', ['-5', 'rm', '-rf', 'x'], root, 'command not allowed: rm (run by nice)'],
  ['env', ['NODE_OPTIONS=--require /tmp/x.js', 'npm', 'test'], root, 'environment variable not allowed: NODE_OPTIONS'],
  ['env', ['-S', 'git -c x=y x'], root, 'env -S'],
  ['env', ['--split-string=git -c x=y x'], root, 'env --split-string'],
  ['env', ['-C', '/etc', 'git', 'status'], root, 'fs cwd denied for path: /etc'],
  ['env', ['BASH_FUNC_git%%=() { touch /tmp/x }', 'git', 'status'], root, 'not a portable environment variable name'],
  ['timeout', ['5', 'git', '-c', 'x=y', 'x'], root, 'git -c'],
  ['timeout', ['-s', 'KILL', '5', 'npm', 'exec', 'x'], root, 'npm exec'],
  ['sudo', ['-s'], root, 'sudo -s'],
  ['sudo', ['-i', 'git', 'status'], root, 'sudo -i'],
  ['sudo', ['-e', '/etc/hosts'], root, 'sudo -e'],
  ['sudo', ['-R', '/tmp/root', 'git', 'status'], root, 'sudo -R'],
  ['sudo', ['--shell'], root, 'sudo --shell'],
  ['sudo', ['--login'], root, 'sudo --login'],
  ['sudo', ['--edit', '/etc/hosts'], root, 'sudo --edit'],
  ['sudo', ['--chroot=/tmp/root', 'git', 'status'], root, 'sudo --chroot'],
  [
    'sudo',
    ['-u', 'root', 'LD_PRELOAD=/tmp/x.so', 'git', 'status'],
    root,
    'environment variable not allowed: LD_PRELOAD',
  ],
  ['doas', ['-s'], root, 'doas -s'],
  ['stdbuf', ['-oL', 'git', '-c', 'x=y', 'x'], root, 'git -c'],
  ['setsid', ['-f', 'git', '-c', 'x=y', 'x'], root, 'git -c'],
  ['watch', ['git', 'status', '&&', 'touch', '/tmp/x'], root, 'shell syntax not allowed: &&'],
  ['watch', ['-n', '1', 'git', 'status', '>', '/tmp/x'], root, 'shell syntax not allowed: >'],
  ['watch', ['-x', 'git', '-c', 'x=y', 'x'], root, 'git -c'],
  ['flock', ['/tmp/lock', '-c', 'touch /tmp/x'], root, 'flock -c'],
  ['flock', ['--command=touch /tmp/x', '/tmp/lock'], root, 'flock --command'],
  ['flock', ['/tmp/lock', 'git', '-c', 'x=y', 'x'], root, 'git -c'],
  ['strace', ['-o', '!touch /tmp/x', 'git', 'status'], root, 'strace -o'],
  ['strace', ['--output=!touch /tmp/x', 'git', 'status'], root, 'strace --output'],
  ['strace', ['-E', 'LD_PRELOAD=/tmp/x.so', 'git', 'status'], root, 'environment variable not allowed: LD_PRELOAD'],
  ['xargs', ['-a', '/tmp/args', 'git'], root, 'xargs -a'],
  ['xargs', ['--arg-file=/tmp/args', 'git'], root, 'xargs --arg-file'],
  ['xargs', ['--process-slot-var=LD_PRELOAD', 'git', 'status'], root, 'environment variable not allowed: LD_PRELOAD'],
  ['xargs', ['-n', '1', 'git', '-c', 'x=y'], root, 'git -c'],
  ['time', ['-o', '/tmp/t', 'git', '-c', 'x=y', 'x'], root, 'git -c'],
  ['ionice', ['-c', '3', 'git', '-c', 'x=y', 'x'], root, 'git -c'],
  ['taskset', ['1', 'git', '-c', 'x=y', 'x'], root, 'git -c'],
  ['nice', ['nice', 'nice', 'nice', 'nice', 'git', 'status'], root, 'more than 4 wrappers'],
];

const PASSING: Case[] = [
  ['git', ['status']],
  ['git', ['log', '-n', '5']],
  ['git', ['--no-pager', 'log', '-p']],
  ['git', ['config', '--get', 'user.name']],
  ['git', ['config', 'user.name']],
  ['git', ['config', '-l']],
  ['git', ['config', '--list', '--show-origin']],
  ['git', ['config', 'get', 'user.email']],
  ['git', ['commit', '-m', 'fix -x and -c handling']],
  ['git', ['-C', 'sub', 'status']],
  ['git', ['-C', root, '-C', 'sub', 'status']],
  ['git', [`--git-dir=${join(root, '.git')}`, 'log']],
  ['git', ['clone', 'https://h/r.git', 'r']],
  ['git', ['fetch', 'origin']],
  ['git', ['push', 'origin', 'main']],
  ['git', ['rebase', '-i', 'main']],
  ['git', ['rebase', '--onto', 'main', 'a']],
  ['git', ['grep', '-n', 'foo']],
  ['git', ['bisect', 'start']],
  ['git', ['submodule', 'update', '--init']],
  ['git', ['init']],
  ['git', ['diff', '--output=out.patch']],
  ['git', ['format-patch', '-o', 'patches', 'HEAD~1']],
  ['npm', ['test']],
  ['npm', ['run', 'build']],
  ['npm', ['install', '--global', 'typescript']],
  ['npm', ['install', '-g', 'x']],
  ['npm', ['ci']],
  ['npm', ['config', 'get', 'registry']],
  ['npm', ['config', 'list']],
  ['npm', ['init', '-y']],
  ['npm', ['--prefix', 'sub', 'test']],
  ['npx', ['vitest', 'run']],
  ['yarn', ['install']],
  ['pnpm', ['install', '--frozen-lockfile']],
  ['cargo', ['build']],
  ['cargo', ['build', '--release']],
  ['cargo', ['test', '-p', 'core']],
  ['cargo', ['+nightly', 'build']],
  ['cargo', ['rustc', '--', '-C', 'opt-level=3']],
  ['cargo', ['build', '--manifest-path', join(root, 'Cargo.toml')]],
  ['make', []],
  ['make', ['all']],
  ['make', ['-j4', 'test']],
  ['make', ['VERBOSE=1']],
  ['make', ['-C', 'sub']],
  ['find', ['.', '-name', '*.ts', '-print']],
  ['find', ['.', '-type', 'f']],
  ['rg', ['foo']],
  ['rg', ['--pre-glob', '*.pdf', 'foo']],
  ['rg', ['-z', 'foo']],
  ['tar', ['-xf', 'a.tar']],
  ['tar', ['-czf', 'out.tar.gz', 'src']],
  ['tar', ['--checkpoint=10', '-xf', 'a.tar']],
  ['tar', ['tf', 'a.tar']],
  ['tar', ['-C', 'sub', '-xf', 'a.tar']],
  ['ssh', ['h']],
  ['ssh', ['-p', '22', 'h']],
  ['ssh', ['-i', 'id_key', 'h']],
  ['scp', ['-P', '22', '-r', 'a', 'h:b']],
  ['sftp', ['h']],
  ['rsync', ['-avz', 'a/', 'h:b/']],
  ['rsync', ['--delete', '-a', 'a', 'b']],
  ['rsync', ['--exclude=node_modules', '-a', 'a', 'b']],
  ['zip', ['-r', 'out.zip', 'src']],
  ['zip', ['-T', 'out.zip', 'f']],
  ['vim', ['f']],
  ['vim', ['+12', 'f']],
  ['vim', ['+', 'f']],
  ['vim', ['-R', 'f']],
  ['nvim', ['f']],
  ['sed', ['-n', '1p', 'f']],
  ['sed', ['s/[/]/x/', 'f']],
  ['sed', ['-e', 's/a/b/', '-e', 'p', 'f']],
  ['sed', ['-i', 's/a/b/', 'src/x.ts']],
  ['sed', ['a e touch /tmp/x', 'f']],
  ['nice', ['git', 'status']],
  ['nice', ['-n', '5', 'git', 'status']],
  ['nice', ['-5', 'git', 'status']],
  ['env', ['GIT_AUTHOR_NAME=x', 'git', 'status']],
  ['env', ['-C', 'sub', 'git', 'status']],
  ['timeout', ['60', 'npm', 'test']],
  ['timeout', ['-s', 'KILL', '5', 'git', 'status']],
  ['sudo', ['-u', 'root', 'git', 'status']],
  ['stdbuf', ['-oL', 'git', 'log']],
  ['setsid', ['git', 'status']],
  ['watch', ['-n', '1', 'git', 'status']],
  ['watch', ['-x', 'git', 'status']],
  ['flock', ['/tmp/lock', 'git', 'status']],
  ['strace', ['-f', '-o', 'trace.txt', 'git', 'status']],
  ['xargs', ['-n', '1', 'git', 'show']],
  ['time', ['git', 'status']],
  ['ionice', ['-c', '3', 'git', 'status']],
  ['ionice', ['-p', '123']],
  ['taskset', ['1', 'git', 'status']],
  ['taskset', ['-p', '123']],
  ['nice', ['nice', 'nice', 'nice', 'git', 'status']],
  ['env', []],
  ['xargs', []],
];

describe('terminal/create option forms, per command', () => {
  it.each(REFUSED)('%s %j (cwd %s) is refused: %s', (command, args, cwd, part) => {
    const v = judge([command, args, cwd]);
    expect(v.ok).toBe(false);
    if (!v.ok) expect(v.message).toContain(part);
  });

  it.each(PASSING)('%s %j passes', (command, args) => {
    expect(judge([command, args])).toEqual({ ok: true });
  });

  it('every form in the table has a refused case above', () => {
    for (const [name, rules] of Object.entries(COMMAND_RULES)) {
      const sharing = Object.entries(COMMAND_RULES)
        .filter(([, r]) => r.forms === rules.forms)
        .map(([n]) => n);
      const cases = REFUSED.filter(([c]) => sharing.includes(c));
      for (const form of rules.forms) {
        expect(
          cases.some(([, args]) => args.some((a) => formMatches(form, a, rules))),
          `${name}: ${JSON.stringify({ ...form, match: form.match?.source })}`,
        ).toBe(true);
      }
    }
    for (const [sub, rule] of Object.entries(GIT_SUBCOMMANDS)) {
      const cases = REFUSED.filter(([c, args]) => c === 'git' && args[0] === sub).map(([, args]) => args.slice(1));
      if (rule.all !== undefined) expect(cases.length, sub).toBeGreaterThan(0);
      for (const form of rule.forms ?? [])
        expect(
          cases.some((args) => args.some((a) => formMatches(form, a, { abbreviates: true }))),
          `git ${sub} ${JSON.stringify(form)}`,
        ).toBe(true);
      for (const word of rule.words ?? [])
        expect(
          cases.some((args) => args.includes(word)),
          `git ${sub} ${word}`,
        ).toBe(true);
    }
    for (const [name, spec] of Object.entries(WRAPPERS)) {
      const cases = REFUSED.filter(([c]) => c === name).map(([, args]) => args);
      for (const letter of spec.refuseShort ?? '')
        expect(
          cases.some((args) => args.some((a) => /^-[^-]/.test(a) && a.includes(letter))),
          `${name} -${letter}`,
        ).toBe(true);
      for (const long of spec.refuseLong ?? [])
        expect(
          cases.some((args) => args.some((a) => a.startsWith(`--${long}`))),
          `${name} --${long}`,
        ).toBe(true);
    }
  });
});

describe('terminal/create environment', () => {
  const check = (env: Array<[string, string]>, allowedEnv: string[] = []) =>
    new TerminalGuard(['npm'], { fs, allowedEnv }).check('npm', ['test'], {
      env: env.map(([name, value]) => ({ name, value })),
    });

  it.each(ENV_RULES.map((r) => [r.name ?? `${r.prefix}X`, r.why] as const))('%s is refused (%s)', (name) => {
    const v = check([
      ['CI', '1'],
      [name, '/tmp/x'],
    ]);
    expect(v).toMatchObject({ ok: false, guard: 'acp-terminal-guard' });
    if (!v.ok) expect(v.message).toContain(`environment variable not allowed: ${name}`);
  });

  it.each([
    'NODE_OPTIONS',
    'LD_PRELOAD',
    'LD_LIBRARY_PATH',
    'LD_AUDIT',
    'DYLD_INSERT_LIBRARIES',
    'NODE_PATH',
    'BASH_ENV',
    'ENV',
    'PROMPT_COMMAND',
    'SHELLOPTS',
    'BASHOPTS',
    'GIT_CONFIG_COUNT',
    'GIT_CONFIG_KEY_0',
    'GIT_CONFIG_VALUE_0',
    'GIT_CONFIG_PARAMETERS',
    'GIT_CONFIG_GLOBAL',
    'GIT_CONFIG_SYSTEM',
    'GIT_CONFIG',
    'GIT_SSH',
    'GIT_SSH_COMMAND',
    'GIT_EXEC_PATH',
    'GIT_ASKPASS',
    'SSH_ASKPASS',
    'GIT_EDITOR',
    'EDITOR',
    'VISUAL',
    'GIT_PAGER',
    'PAGER',
    'GIT_EXTERNAL_DIFF',
    'GIT_PROXY_COMMAND',
    'GIT_TEMPLATE_DIR',
    'PYTHONSTARTUP',
    'PYTHONPATH',
    'PYTHONHOME',
    'PERL5OPT',
    'PERL5LIB',
    'PERLLIB',
    'RUBYOPT',
    'RUBYLIB',
    'JAVA_TOOL_OPTIONS',
    '_JAVA_OPTIONS',
    'JDK_JAVA_OPTIONS',
    'npm_config_script_shell',
    'NPM_CONFIG_SCRIPT_SHELL',
    'Npm_Config_Node_Options',
    'PATH',
    'HOME',
    'XDG_CONFIG_HOME',
    'LESSOPEN',
    'LESSCLOSE',
    'RUSTC_WRAPPER',
    'CARGO_BUILD_RUSTC_WRAPPER',
    'CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER',
    'GOFLAGS',
    'CC',
    'CXX',
    'MAKEFLAGS',
    'IFS',
    'TAR_OPTIONS',
    'BASH_FUNC_git%%',
    'A=B',
    '',
    'X Y',
  ])("the brief's %j is refused", (name) => {
    expect(check([[name, 'x']]).ok).toBe(false);
  });

  it.each([
    'CI',
    'TERM',
    'LANG',
    'LC_ALL',
    'NODE_ENV',
    'FORCE_COLOR',
    'RUST_BACKTRACE',
    'DEBUG',
    'GIT_AUTHOR_NAME',
    'GIT_COMMITTER_EMAIL',
    'GIT_TERMINAL_PROMPT',
    'CARGO_TARGET_DIR',
    'CARGO_TERM_COLOR',
    'node_options',
    'ld_preload',
    'path',
    'Home',
  ])('%s passes (names compare case-sensitively, except npm_config_)', (name) => {
    expect(check([[name, 'x']])).toEqual({ ok: true });
  });

  it('--allow-env opens exactly the names given', () => {
    expect(check([['PAGER', 'cat']], ['PAGER'])).toEqual({ ok: true });
    expect(
      check(
        [
          ['PAGER', 'cat'],
          ['EDITOR', 'vi'],
        ],
        ['PAGER'],
      ).ok,
    ).toBe(false);
    expect(check([['pager', 'cat']], ['PAGER'])).toEqual({ ok: true });
    expect(check([['npm_config_registry', 'x']], ['npm_config_registry'])).toEqual({ ok: true });
    expect(check([['NPM_CONFIG_REGISTRY', 'x']], ['npm_config_registry']).ok).toBe(false);
    expect(envRefusal('BASH_FUNC_x%%', new Set(['BASH_FUNC_x%%']))).toBeDefined();
  });
});

describe('docs/acp.md lists the tables', () => {
  const readme = readFileSync(fileURLToPath(new URL('../../docs/acp.md', import.meta.url)), 'utf8');
  const section = readme.slice(readme.indexOf('## The ACP proxy'));

  it('every refused environment variable and pattern, and every exception', () => {
    for (const r of ENV_RULES) {
      expect(section, r.name ?? r.prefix).toContain(r.name !== undefined ? `\`${r.name}\`` : `\`${r.prefix}*\``);
      for (const e of r.except ?? []) expect(section, e).toContain(`\`${e}\``);
    }
  });

  it('every command, git subcommand and wrapper of the option table', () => {
    for (const name of [...Object.keys(COMMAND_RULES), ...Object.keys(WRAPPERS), 'git', 'sed'])
      expect(section, name).toContain(`\`${name}\``);
    for (const sub of Object.keys(GIT_SUBCOMMANDS)) expect(section, sub).toMatch(new RegExp(`\`${sub}[ \`]`));
  });
});

describe('the seam for plugged-in terminal checks', () => {
  const calls: Array<[string, readonly string[], string | undefined]> = [];
  const shell: TerminalCheck = (command, args, cwd) => {
    calls.push([command, args, cwd]);
    return args.includes('--danger')
      ? { ok: false, guard: 'shell-command', message: 'refused by the plugged check' }
      : { ok: true };
  };
  const plugged = new TerminalGuard(['git', 'nice'], { fs, checks: [shell, () => ({ ok: true })] });

  it("runs after the proxy's own checks, on the argv as asked for, and its refusal names its guard", () => {
    expect(plugged.check('nice', ['git', 'log', '--danger'], { cwd: root })).toEqual({
      ok: false,
      guard: 'shell-command',
      message: 'refused by the plugged check',
    });
    expect(calls).toEqual([['nice', ['git', 'log', '--danger'], root]]);
    expect(plugged.check('git', ['-c', 'x=y', '--danger'], { cwd: root })).toMatchObject({
      ok: false,
      guard: 'acp-terminal-guard',
    });
    expect(calls).toHaveLength(1);
    expect(plugged.check('git', ['status'])).toEqual({ ok: true });
    expect(calls.at(-1)).toEqual(['git', ['status'], undefined]);
  });
});
