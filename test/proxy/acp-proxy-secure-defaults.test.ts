// `chio acp proxy` secure defaults end to end: the built CLI as a real child process, the SDK
// fixture agent behind it, a real SDK editor in front that really runs the terminals reaching it,
// a real git repository and npm project, a real SQLite ledger. Each hostile request is refused,
// never reaches the editor, leaves a signed deny receipt naming the guard, and its marker file
// never appears — while the same argv run directly does create its marker (the attack is real).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxyClient } from '../helpers/acp-proxy-client.js';
import type { ProxyClient, StepOutcome } from '../helpers/acp-proxy-client.js';
import { kernelKeyFiles, ledgerReceipts } from '../helpers/acp-proxy-ledger.js';
import { TerminalRunner } from '../helpers/acp-terminal-runner.js';
import { chio, errorCode } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('chio-acp-secure-');
const ws = join(dir, 'ws');
const markers = join(dir, 'markers');
const control = join(dir, 'control');
const keys = kernelKeyFiles(dir);
const TOUCH = spawnSync('sh', ['-c', 'command -v touch'], { encoding: 'utf8' }).stdout.trim();

function workspace(): void {
  for (const d of [ws, markers, control, join(ws, '.ssh'), join(ws, 'sub', '.aws'), join(ws, 'src', 'pass')])
    mkdirSync(d, { recursive: true });
  const files: Array<[string, string]> = [
    ['.env', 'API_KEY=live-secret'],
    ['.env.example', 'API_KEY='],
    ['.ssh/id_rsa', 'PRIVATE KEY'],
    ['sub/.aws/credentials', '[default]'],
    ['src/pass/readme.md', 'pass module docs'],
    ['secret.txt', 'policy secret'],
    // Loaded by NODE_OPTIONS=--require: writes the marker it is told to.
    ['evil.js', "require('node:fs').writeFileSync(process.env.CHIO_TEST_MARKER, 'pwned');\n"],
    [
      'package.json',
      JSON.stringify({ name: 'ws', version: '1.0.0', private: true, scripts: { test: 'node -e "process.exit(0)"' } }),
    ],
    ['Makefile', 'all:\n\ttrue\n'],
  ];
  for (const [f, text] of files) writeFileSync(join(ws, f), text);
  symlinkSync('.env', join(ws, 'notes'));
  const git = (...args: string[]) =>
    spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: ws, encoding: 'utf8' });
  expect(git('init', '-q').status).toBe(0);
  expect(git('add', 'package.json', 'Makefile', 'src').status).toBe(0);
  expect(git('commit', '-q', '-m', 'initial').status).toBe(0);
  expect(spawnSync('tar', ['-cf', 'a.tar', 'src/pass/readme.md'], { cwd: ws }).status).toBe(0);
}

interface Terminal {
  command: string;
  args: string[];
  cwd?: string;
  env?: Array<{ name: string; value: string }>;
}

/** Each hostile terminal request, as a function of the marker it would create. */
const HOSTILE: Array<{
  name: string;
  guard: string;
  message: string;
  make: (marker: string) => Terminal;
  controlCwd?: string;
}> = [
  {
    name: 'git -c alias.x=!touch',
    guard: 'acp-terminal-guard',
    message: 'option not allowed: git -c',
    make: (m) => ({ command: 'git', args: ['-c', `alias.x=!touch ${m}`, 'x'], cwd: ws }),
  },
  {
    name: 'NODE_OPTIONS=--require evil.js npm',
    guard: 'acp-terminal-guard',
    message: 'environment variable not allowed: NODE_OPTIONS',
    make: (m) => ({
      command: 'npm',
      args: ['--version'],
      cwd: ws,
      env: [
        { name: 'NODE_OPTIONS', value: `--require ${join(ws, 'evil.js')}` },
        { name: 'CHIO_TEST_MARKER', value: m },
      ],
    }),
  },
  {
    name: 'GIT_CONFIG_COUNT alias',
    guard: 'acp-terminal-guard',
    message: 'environment variable not allowed: GIT_CONFIG_COUNT',
    make: (m) => ({
      command: 'git',
      args: ['x'],
      cwd: ws,
      env: [
        { name: 'GIT_CONFIG_COUNT', value: '1' },
        { name: 'GIT_CONFIG_KEY_0', value: 'alias.x' },
        { name: 'GIT_CONFIG_VALUE_0', value: `!touch ${m}` },
      ],
    }),
  },
  {
    name: 'nice -n 5 git -c',
    guard: 'acp-terminal-guard',
    message: 'option not allowed: git -c',
    make: (m) => ({ command: 'nice', args: ['-n', '5', 'git', '-c', `alias.x=!touch ${m}`, 'x'], cwd: ws }),
  },
  {
    name: 'env NODE_OPTIONS=… npm',
    guard: 'acp-terminal-guard',
    message: 'environment variable not allowed: NODE_OPTIONS',
    make: (m) => ({
      command: 'env',
      args: [`NODE_OPTIONS=--require ${join(ws, 'evil.js')}`, `CHIO_TEST_MARKER=${m}`, 'npm', '--version'],
      cwd: ws,
    }),
  },
  {
    name: 'find -exec',
    guard: 'acp-terminal-guard',
    message: 'option not allowed: find -exec',
    make: (m) => ({ command: 'find', args: [ws, '-maxdepth', '0', '-exec', 'touch', m, '{}', '+'], cwd: ws }),
  },
  {
    name: 'tar --to-command',
    guard: 'acp-terminal-guard',
    message: 'option not allowed: tar --to-command',
    make: (m) => ({ command: 'tar', args: ['-xf', 'a.tar', `--to-command=touch ${m}`], cwd: ws }),
  },
  {
    name: 'make SHELL=',
    guard: 'acp-terminal-guard',
    message: 'option not allowed: make SHELL=',
    make: (m) => ({
      command: 'make',
      args: ['-f', join(ws, 'Makefile'), `SHELL=${TOUCH}`, `.SHELLFLAGS=${m}`],
      cwd: ws,
    }),
    controlCwd: control,
  },
  {
    name: 'sed 1e',
    guard: 'acp-terminal-guard',
    message: 'the e command runs a shell command',
    make: (m) => ({ command: 'sed', args: ['-n', `1e touch ${m}`, 'src/pass/readme.md'], cwd: ws }),
  },
];

const HARMLESS: Terminal[] = [
  { command: 'git', args: ['status'], cwd: ws },
  { command: 'git', args: ['log', '-n', '5'], cwd: ws },
  { command: 'npm', args: ['test'], cwd: ws },
  { command: 'cargo', args: ['build'], cwd: ws },
  { command: 'nice', args: ['git', 'status', '--short'], cwd: ws },
  { command: 'sed', args: ['-n', '1p', 'src/pass/readme.md'], cwd: ws },
  { command: 'find', args: ['.', '-name', 'readme.md'], cwd: ws },
  { command: 'tar', args: ['-tf', 'a.tar'], cwd: ws },
];

const failed = (o: StepOutcome) => (o.ok ? `ok: ${JSON.stringify(o.result)}` : o.message);
const denyReceipts = (db: string, session: string) =>
  ledgerReceipts(db)
    .filter((e) => e.session_id === session && e.receipt.decision?.verdict === 'deny')
    .map((e) => e.receipt);

describe('chio acp proxy, default flags: secrets inside the prefix, git and terminal hardening', () => {
  const db = join(dir, 'receipts.sqlite');
  const runner = new TerminalRunner();
  let client: ProxyClient;
  let session: string;
  beforeAll(async () => {
    workspace();
    const commands = ['git', 'npm', 'cargo', 'nice', 'find', 'tar', 'make', 'sed', 'env'].flatMap((c) => [
      '--allow-command',
      c,
    ]);
    client = startProxyClient(
      ['--receipt-db', db, '--kernel-seed-file', keys.seedFile, '--allow-path', ws, ...commands],
      [],
      { terminals: runner },
    );
    session = await client.newSession();
  });
  afterAll(async () => void (await client?.close()));

  it('the hostile terminal requests are real: run directly, each creates its marker', () => {
    for (const h of HOSTILE) {
      const t = h.make(join(control, h.name.replace(/\W+/g, '-')));
      spawnSync(t.command, t.args, {
        cwd: h.controlCwd ?? t.cwd,
        env: { ...process.env, ...Object.fromEntries((t.env ?? []).map((e) => [e.name, e.value])) },
        timeout: 60_000,
      });
      expect(existsSync(join(control, h.name.replace(/\W+/g, '-'))), h.name).toBe(true);
    }
  });

  it('secrets inside --allow-path are refused (forbidden-path), a .git hook write is refused (acp-fs-guard); ordinary files pass', async () => {
    const r = await client.prompt(session, [
      { read: { path: join(ws, '.env') } },
      { read: { path: join(ws, '.ssh', 'id_rsa') } },
      { read: { path: join(ws, 'notes') } },
      { read: { path: join(ws, 'sub', '.aws', 'credentials') } },
      {
        write: {
          path: join(ws, '.git', 'hooks', 'pre-commit'),
          content: `#!/bin/sh\ntouch ${join(markers, 'hook')}\n`,
        },
      },
      { read: { path: join(ws, 'src', 'pass', 'readme.md') } },
      { read: { path: join(ws, '.env.example') } },
      { write: { path: join(ws, 'src', 'new.txt'), content: 'written' } },
    ]);
    expect(r.slice(0, 5).map(failed)).toEqual([
      `access denied: fs read denied for path: ${join(ws, '.env')}: matches forbidden pattern **/.env`,
      `access denied: fs read denied for path: ${join(ws, '.ssh', 'id_rsa')}: matches forbidden pattern **/.ssh/**`,
      `access denied: fs read denied for path: ${join(ws, 'notes')} (as ${join(ws, '.env')}): matches forbidden pattern **/.env`,
      `access denied: fs read denied for path: ${join(ws, 'sub', '.aws', 'credentials')}: matches forbidden pattern **/.aws/**`,
      `access denied: fs write denied for path: ${join(ws, '.git', 'hooks', 'pre-commit')}: inside a .git directory or a .git file: git runs the hooks and configuration there`,
    ]);
    expect(r.slice(0, 5).every((o) => !o.ok && o.code === -32000)).toBe(true);
    expect(r.slice(5)).toEqual([
      { ok: true, result: { content: 'pass module docs' } },
      { ok: true, result: { content: 'API_KEY=' } },
      { ok: true, result: {} },
    ]);
    expect(client.seen.filter((s) => s.method.startsWith('fs/')).map((s) => s.params.path)).toEqual([
      join(ws, 'src', 'pass', 'readme.md'),
      join(ws, '.env.example'),
      join(ws, 'src', 'new.txt'),
    ]);
    expect(existsSync(join(ws, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(readFileSync(join(ws, 'src', 'new.txt'), 'utf8')).toBe('written');
  });

  it('every hostile terminal request is refused, never reaches the editor, and creates nothing; a cwd in .ssh is refused (forbidden-path)', async () => {
    const before = client.seen.length;
    const r = await client.prompt(session, [
      ...HOSTILE.map((h) => ({ terminal: h.make(join(markers, h.name.replace(/\W+/g, '-'))) })),
      { terminal: { command: 'git', args: ['status'], cwd: join(ws, '.ssh') } },
    ]);
    for (const [i, h] of HOSTILE.entries()) {
      expect(r[i], h.name).toMatchObject({ ok: false, code: -32000 });
      expect(failed(r[i]!), h.name).toContain(h.message);
    }
    expect(failed(r.at(-1)!)).toBe(
      `access denied: fs cwd denied for path: ${join(ws, '.ssh')}: matches forbidden pattern **/.ssh`,
    );
    expect(client.seen.slice(before)).toEqual([]);
    await runner.settled();
    expect(spawnSync('ls', ['-A', markers], { encoding: 'utf8' }).stdout).toBe('');
  });

  it('harmless work passes and really runs: git status, git log -n 5, npm test, cargo build, nice git, sed, find, tar', async () => {
    const before = client.seen.length;
    const r = await client.prompt(
      session,
      HARMLESS.map((terminal) => ({ terminal })),
    );
    expect(
      r.every((o) => o.ok),
      JSON.stringify(r),
    ).toBe(true);
    expect(client.seen.slice(before).map((s) => [s.params.command, s.params.args])).toEqual(
      HARMLESS.map((t) => [t.command, t.args]),
    );
    const exits = await Promise.all(
      r.map((o) => runner.waitForExit((o as { result: { terminalId: string } }).result.terminalId)),
    );
    const byCommand = HARMLESS.map((t, i) => [`${t.command} ${t.args.join(' ')}`, exits[i]!.exitCode]);
    // cargo runs (there is no Cargo.toml here, so it fails on its own terms): what matters is that it was let through.
    expect(byCommand.filter(([c]) => !String(c).startsWith('cargo'))).toEqual(
      byCommand.filter(([c]) => !String(c).startsWith('cargo')).map(([c]) => [c, 0]),
    );
    expect((await runner.output((r[1] as { result: { terminalId: string } }).result.terminalId)).output).toContain(
      'initial',
    );
  });

  it('afterwards: each refusal left a signed deny receipt naming its guard and reason, and the ledger verifies', async () => {
    expect(await client.close()).toBe(0);
    const denies = denyReceipts(db, session);
    expect(denies.map((rc) => [rc.tool_name, rc.action.parameters.resource, rc.decision.guard])).toEqual([
      ['fs/read_text_file', join(ws, '.env'), 'forbidden-path'],
      ['fs/read_text_file', join(ws, '.ssh', 'id_rsa'), 'forbidden-path'],
      ['fs/read_text_file', join(ws, 'notes'), 'forbidden-path'],
      ['fs/read_text_file', join(ws, 'sub', '.aws', 'credentials'), 'forbidden-path'],
      ['fs/write_text_file', join(ws, '.git', 'hooks', 'pre-commit'), 'acp-fs-guard'],
      ...HOSTILE.map((h) => ['terminal/create', h.make('').command, h.guard]),
      ['terminal/create', 'git', 'forbidden-path'],
    ]);
    for (const rc of denies)
      expect(rc.evidence).toEqual([{ guard_name: rc.decision.guard, verdict: false, details: rc.decision.reason }]);
    expect(denies[5].decision.reason).toContain('option not allowed: git -c');
    const verify = chio(['ledger', 'verify', '--receipt-db', db, '--trusted-kernel-pubkey', keys.pubFile]);
    expect(verify.status, verify.stdout + verify.stderr).toBe(0);
  });
});

describe('chio acp proxy --policy and --allow-env', () => {
  const db = join(dir, 'receipts-policy.sqlite');
  const policy = join(dir, 'policy.json');
  const runner = new TerminalRunner();
  let client: ProxyClient;
  let session: string;
  beforeAll(async () => {
    if (!existsSync(ws)) workspace();
    // The policy's forbidden-path list replaces the defaults: it names secret.txt, and neither .env nor .git.
    writeFileSync(policy, JSON.stringify({ guards: { 'forbidden-path': { patterns: ['**/secret.txt'] } } }));
    client = startProxyClient(
      [
        '--receipt-db',
        db,
        '--kernel-seed-file',
        keys.seedFile,
        '--policy',
        policy,
        '--allow-path',
        ws,
        '--allow-command',
        'git',
        '--allow-env',
        'PAGER',
      ],
      [],
      { terminals: runner },
    );
    session = await client.newSession();
  });
  afterAll(async () => void (await client?.close()));

  it("the policy's forbidden-path settings are the ones applied; the .git write rule holds whatever the list says; --allow-env opens one name", async () => {
    const r = await client.prompt(session, [
      { read: { path: join(ws, 'secret.txt') } },
      { read: { path: join(ws, '.env') } },
      { write: { path: join(ws, '.git', 'config'), content: '[core]\n\tfsmonitor = touch /tmp/x\n' } },
      { terminal: { command: 'git', args: ['status'], cwd: ws, env: [{ name: 'PAGER', value: 'cat' }] } },
      {
        terminal: {
          command: 'git',
          args: ['status'],
          cwd: ws,
          env: [
            { name: 'PAGER', value: 'cat' },
            { name: 'EDITOR', value: 'vi' },
          ],
        },
      },
    ]);
    expect(failed(r[0]!)).toBe(
      `access denied: fs read denied for path: ${join(ws, 'secret.txt')}: matches forbidden pattern **/secret.txt`,
    );
    expect(r[1]).toEqual({ ok: true, result: { content: 'API_KEY=live-secret' } });
    expect(failed(r[2]!)).toContain('inside a .git directory');
    expect(r[3]).toMatchObject({ ok: true });
    expect(failed(r[4]!)).toContain('environment variable not allowed: EDITOR');
    expect(readFileSync(join(ws, '.git', 'config'), 'utf8')).not.toContain('fsmonitor');
    expect((await runner.waitForExit((r[3] as { result: { terminalId: string } }).result.terminalId)).exitCode).toBe(0);
    expect(client.seen.map((s) => s.method)).toEqual(['fs/read_text_file', 'terminal/create']);
    expect(await client.close()).toBe(0);
    expect(denyReceipts(db, session).map((rc) => rc.decision.guard)).toEqual([
      'forbidden-path',
      'acp-fs-guard',
      'acp-terminal-guard',
    ]);
    const verify = chio(['ledger', 'verify', '--receipt-db', db, '--trusted-kernel-pubkey', keys.pubFile]);
    expect(verify.status, verify.stdout + verify.stderr).toBe(0);
  });

  it('--allow-env refuses a name that is not a portable identifier with a usage error', () => {
    const r = chio([
      '--receipt-db',
      join(dir, 'never.sqlite'),
      'acp',
      'proxy',
      '--allow-env',
      'BASH_FUNC_x%%',
      '--',
      'true',
    ]);
    expect(r.status, r.stderr).toBe(2);
    expect(errorCode(r.stderr)).toBe('CHIO-CLI-USAGE');
    expect(existsSync(join(dir, 'never.sqlite'))).toBe(false);
  });
});
