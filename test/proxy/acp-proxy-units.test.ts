// The ACP proxy's parts in process: FsGuard and TerminalGuard tables over real files and
// symlinks, the config builders, tool-call event reading and hashing, capability-context binding,
// permission mapping, and session/cancel in either direction.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  AcpInterceptor,
  AcpProxyConfig,
  auditEntry,
  CapabilityContexts,
  DEFAULT_SERVER_ID,
  eventContentHash,
  FsGuard,
  MAX_PENDING_PER_SESSION,
  mapPermissionKind,
  readToolCallEvent,
  TerminalGuard,
} from '../../src/proxy/acp/index.js';
import type { AuthorizationContext } from '../../src/proxy/acp/index.js';
import { sortedJsonHash } from '../helpers/acp-proxy-ledger.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('chio-acp-proxy-units-');
const root = join(dir, 'project');
const outside = join(dir, 'outside');
mkdirSync(join(root, 'sub'), { recursive: true });
mkdirSync(outside);
mkdirSync(`${root}_evil`);
writeFileSync(join(root, 'sub', 'a.txt'), 'a');
writeFileSync(join(outside, 'secret.txt'), 's');
symlinkSync(join(outside, 'secret.txt'), join(root, 'link-out'));
symlinkSync(join(outside, 'not-there.txt'), join(root, 'dangling-out'));
symlinkSync(join(root, 'sub', 'new.txt'), join(root, 'dangling-in'));
symlinkSync(join(root, 'sub', 'a.txt'), join(root, 'link-in'));

describe('FsGuard', () => {
  const guard = new FsGuard([root]);
  const deniedFor = (op: string, p: string) => ({
    ok: false,
    message: `access denied: fs ${op} denied for path: ${p}`,
  });
  const fsDenied = (op: string, p: string) => ({ ...deniedFor(op, p), guard: 'acp-fs-guard' });
  it.each([
    ['empty', guard, '', { ok: false, message: 'access denied: fs read denied: empty path' }],
    [
      'relative',
      guard,
      'project/sub/a.txt',
      { ok: false, message: 'access denied: fs read denied: relative path not allowed: project/sub/a.txt' },
    ],
    [
      'a .. segment, even one that stays inside',
      guard,
      `${root}/sub/../sub/a.txt`,
      { ok: false, message: `path traversal detected: ${root}/sub/../sub/a.txt` },
    ],
    [
      '.. out of the root',
      guard,
      `${root}/../outside/secret.txt`,
      { ok: false, message: `path traversal detected: ${root}/../outside/secret.txt` },
    ],
    [
      '.. checked before the (empty) prefix set',
      new FsGuard([]),
      '/a/../b',
      { ok: false, message: 'path traversal detected: /a/../b' },
    ],
    [
      'no prefixes configured',
      new FsGuard([]),
      join(root, 'sub', 'a.txt'),
      { ok: false, message: 'access denied: fs read denied: no allowed path prefixes configured' },
    ],
    ['the exact prefix', guard, root, { ok: true }],
    ['the prefix and a trailing /', guard, `${root}/`, { ok: true }],
    ['a prefix configured with a trailing /', new FsGuard([`${root}/`]), join(root, 'sub', 'a.txt'), { ok: true }],
    ['a file under the prefix', guard, join(root, 'sub', 'a.txt'), { ok: true }],
    ['a file that does not exist yet under the prefix', guard, join(root, 'sub', 'new', 'b.txt'), { ok: true }],
    ['the _evil sibling', guard, join(`${root}_evil`, 'x.txt'), deniedFor('read', join(`${root}_evil`, 'x.txt'))],
    ['the prefix without its last character', guard, root.slice(0, -1), deniedFor('read', root.slice(0, -1))],
    ['// and . segments inside the root', guard, `${root}//sub/./a.txt`, { ok: true }],
    ['// and . segments before the root', guard, `/${root.replaceAll('/', '//')}/./sub/a.txt`, { ok: true }],
    ['a symlink inside pointing outside', guard, join(root, 'link-out'), deniedFor('read', join(root, 'link-out'))],
    [
      'a dangling symlink pointing outside',
      guard,
      join(root, 'dangling-out'),
      deniedFor('read', join(root, 'dangling-out')),
    ],
    ['a dangling symlink pointing inside', guard, join(root, 'dangling-in'), { ok: true }],
    ['a symlink inside pointing inside', guard, join(root, 'link-in'), { ok: true }],
    ['/etc/shadow', guard, '/etc/shadow', deniedFor('read', '/etc/shadow')],
    ['a prefix of / matches nothing', new FsGuard(['/']), '/etc/passwd', deniedFor('read', '/etc/passwd')],
    [
      'a file used as a directory (ENOTDIR) outside: a verdict, not an exception',
      guard,
      '/etc/passwd/x',
      deniedFor('read', '/etc/passwd/x'),
    ],
    ['a file used as a directory inside', guard, join(root, 'sub', 'a.txt', 'x'), { ok: true }],
    [
      'a name too long for the filesystem (ENAMETOOLONG) outside',
      guard,
      `${outside}/${'n'.repeat(300)}`,
      deniedFor('read', `${outside}/${'n'.repeat(300)}`),
    ],
  ])('%s', (_name, g, path, expected) => {
    expect(g.check('read', path)).toEqual(expected.ok ? expected : { ...expected, guard: 'acp-fs-guard' });
  });

  it('names the operation: write and cwd', () => {
    expect(guard.check('write', '/etc/crontab')).toEqual(fsDenied('write', '/etc/crontab'));
    expect(guard.check('cwd', outside)).toEqual(fsDenied('cwd', outside));
    expect(guard.check('write', join(root, 'sub', 'b.txt'))).toEqual({ ok: true });
  });

  it('a prefix that is itself a symlink is resolved the same way as the path', () => {
    const alias = join(dir, 'alias');
    symlinkSync(root, alias);
    expect(new FsGuard([alias]).check('read', join(root, 'sub', 'a.txt'))).toEqual({ ok: true });
    expect(new FsGuard([root]).check('read', join(alias, 'sub', 'a.txt'))).toEqual({ ok: true });
  });
});

describe('TerminalGuard', () => {
  const guard = new TerminalGuard(['cargo', 'npm']);
  const notAllowed = (c: string) => ({
    ok: false,
    message: `access denied: terminal denied: command not allowed: ${c}`,
  });
  it.each([
    ['an exact match', guard, 'cargo', ['build', '--release'], { ok: true }],
    [
      '--jobs=4, -j2, --flag=value and $HOME are plain arguments',
      guard,
      'cargo',
      ['--jobs=4', '-j2', '--flag=value', '$HOME'],
      { ok: true },
    ],
    ['/usr/bin/cargo is not allowed by cargo', guard, '/usr/bin/cargo', [], notAllowed('/usr/bin/cargo')],
    ['cargoo', guard, 'cargoo', [], notAllowed('cargoo')],
    ['carg', guard, 'carg', [], notAllowed('carg')],
    ['rm', guard, 'rm', ['-rf', '/'], notAllowed('rm')],
    [
      'an empty list denies everything',
      new TerminalGuard([]),
      'cargo',
      [],
      { ok: false, message: 'access denied: terminal denied: no allowed commands configured' },
    ],
    ['an empty command', guard, '', [], { ok: false, message: 'access denied: terminal denied: empty command' }],
    ['/usr/bin/cargo allows itself', new TerminalGuard(['/usr/bin/cargo']), '/usr/bin/cargo', [], { ok: true }],
  ])('%s', (_name, g, command, args, expected) => {
    expect(g.check(command, args)).toEqual(expected.ok ? expected : { ...expected, guard: 'acp-terminal-guard' });
  });

  it.each(['`whoami`', 'x$(whoami)', 'a|b', 'build; rm -rf /', 'line1\nline2', 'hello\rworld', 'nul\0byte'])(
    'suspicious argument %j',
    (arg) => {
      expect(guard.check('cargo', ['build', arg])).toEqual({
        ok: false,
        message: `access denied: terminal denied: suspicious argument: ${arg}`,
        guard: 'acp-terminal-guard',
      });
    },
  );
});

describe('AcpProxyConfig', () => {
  it('defaults: server id chio-acp-proxy, empty allow-lists, the agent command and arguments as given', () => {
    const c = AcpProxyConfig.new('agent', ['--x', '007']);
    expect(DEFAULT_SERVER_ID).toBe('chio-acp-proxy');
    expect(c.serverId).toBe('chio-acp-proxy');
    expect(c.fields).toMatchObject({
      agentCommand: 'agent',
      agentArgs: ['--x', '007'],
      allowedPathPrefixes: [],
      allowedCommands: [],
      serverId: 'chio-acp-proxy',
    });
  });

  it('builders append and return a new config; the base is unchanged', () => {
    const base = AcpProxyConfig.new('agent');
    const c = base
      .withAllowedPathPrefix('/home/dev/project')
      .withAllowedPathPrefix('/srv/data')
      .withAllowedCommand('cargo')
      .withAllowedCommand('npm')
      .withServerId('acp-1');
    expect(c.fields).toMatchObject({
      allowedPathPrefixes: ['/home/dev/project', '/srv/data'],
      allowedCommands: ['cargo', 'npm'],
      serverId: 'acp-1',
    });
    expect(base.fields).toMatchObject({ allowedPathPrefixes: [], allowedCommands: [], serverId: 'chio-acp-proxy' });
  });

  it.each([
    ['/ as a prefix', (c: AcpProxyConfig) => c.withAllowedPathPrefix('/')],
    ['// as a prefix', (c: AcpProxyConfig) => c.withAllowedPathPrefix('//')],
    ['a relative prefix', (c: AcpProxyConfig) => c.withAllowedPathPrefix('project')],
    ['a prefix with ..', (c: AcpProxyConfig) => c.withAllowedPathPrefix('/home/../etc')],
    ['an empty command', (c: AcpProxyConfig) => c.withAllowedCommand(' ')],
    ['a padded server id', (c: AcpProxyConfig) => c.withServerId(' acp ')],
  ])('refuses %s', (_name, build) => {
    expect(() => build(AcpProxyConfig.new('agent'))).toThrow();
  });

  it('refuses an empty agent command', () => {
    expect(() => AcpProxyConfig.new(' ')).toThrow();
  });
});

describe('readToolCallEvent / eventContentHash / auditEntry', () => {
  const params = (update: object) => ({ sessionId: 'sess-1', update });
  const read = (update: object) => {
    const e = readToolCallEvent(params(update));
    if (e.kind !== 'tool_call' && e.kind !== 'tool_call_update') throw new Error(`not an event: ${JSON.stringify(e)}`);
    return e;
  };

  it('a tool_call without kind or status hashes toolCallId and title only', () => {
    expect(eventContentHash(read({ sessionUpdate: 'tool_call', toolCallId: 'tc-1', title: 'Think' }))).toBe(
      sortedJsonHash({ toolCallId: 'tc-1', title: 'Think' }),
    );
  });

  it('a full tool_call hashes its four declared fields; extra keys do not move the hash', () => {
    const declared = { toolCallId: 'tc-200', title: 'Compile', kind: 'execute', status: 'running' };
    const expected = sortedJsonHash(declared);
    expect(expected).toBe('425ba2d832452c98e21aba47b5b7cc7d9e160a6c47eb80d8756733fabcee83df');
    expect(eventContentHash(read({ sessionUpdate: 'tool_call', ...declared }))).toBe(expected);
    expect(
      eventContentHash(
        read({
          sessionUpdate: 'tool_call',
          ...declared,
          rawInput: { cmd: 'cargo' },
          locations: [{ path: '/x' }],
          content: [],
        }),
      ),
    ).toBe(expected);
  });

  it('a tool_call_update hashes toolCallId and status only; extra keys, title and kind do not count', () => {
    const expected = '042d6e67feebe86670611a3b1c859c46784b0a5ba2bcd28f752ab773b3b26e2d';
    expect(sortedJsonHash({ toolCallId: 'tc-300', status: 'completed' })).toBe(expected);
    expect(
      eventContentHash(read({ sessionUpdate: 'tool_call_update', toolCallId: 'tc-300', status: 'completed' })),
    ).toBe(expected);
    expect(
      eventContentHash(
        read({
          sessionUpdate: 'tool_call_update',
          toolCallId: 'tc-300',
          status: 'completed',
          title: 'X',
          kind: 'read',
          content: [{ type: 'content' }],
          rawOutput: 1,
        }),
      ),
    ).toBe(expected);
  });

  it('an update without a status (absent or null) is no event; other updates are none; a blank toolCallId is invalid', () => {
    expect(readToolCallEvent(params({ sessionUpdate: 'tool_call_update', toolCallId: 'tc-400' }))).toEqual({
      kind: 'none',
    });
    expect(
      readToolCallEvent(params({ sessionUpdate: 'tool_call_update', toolCallId: 'tc-400', status: null, title: 'x' })),
    ).toEqual({ kind: 'none' });
    expect(
      readToolCallEvent(params({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hi' } })),
    ).toEqual({ kind: 'none' });
    expect(readToolCallEvent(params({ sessionUpdate: 'tool_call', toolCallId: ' ', title: 't' })).kind).toBe('invalid');
    expect(readToolCallEvent(params({ sessionUpdate: 'tool_call_update', toolCallId: 'tc', status: 7 })).kind).toBe(
      'invalid',
    );
  });

  it('auditEntry: timestamp as a string of seconds, update entries carry an empty title and null kind, audit_only without a context', () => {
    const e = auditEntry(
      read({ sessionUpdate: 'tool_call_update', toolCallId: 'tc-300', status: 'completed' }),
      'srv',
      1_700_000_000,
    );
    expect(e).toEqual({
      toolCallId: 'tc-300',
      title: '',
      kind: null,
      status: 'completed',
      sessionId: 'sess-1',
      timestamp: '1700000000',
      serverId: 'srv',
      contentHash: sortedJsonHash({ toolCallId: 'tc-300', status: 'completed' }),
      enforcementMode: 'audit_only',
    });
  });
});

const ctx = (operation: string, toolCallId = '', resource = '/p'): AuthorizationContext => ({
  capabilityId: `cap-${operation}`,
  authorizationReceiptId: 'r',
  authorizationRequestId: 'q',
  authorizationToolCallId: toolCallId,
  authorizationCorrelationId: 'c',
  authorizationOperation: operation,
  authorizationResource: resource,
  authorizationParameterHash: 'h',
});

describe('CapabilityContexts', () => {
  it('a context with a toolCallId is live at once: the tool_call and its updates find it; a terminal status settles it', () => {
    const c = new CapabilityContexts();
    c.remember('s', ctx('fs_read', 'tc-1'));
    expect(c.bindToolCall('s', 'tc-1', 'read')?.capabilityId).toBe('cap-fs_read');
    expect(c.forUpdate('s', 'tc-1')?.authorizationToolCallId).toBe('tc-1');
    expect(c.forUpdate('other', 'tc-1')).toBeUndefined();
    c.settle('s', 'tc-1', 'in_progress');
    expect(c.counts('s')).toEqual({ pending: 0, live: 1 });
    c.settle('s', 'tc-1', 'completed');
    expect(c.counts('s')).toEqual({ pending: 0, live: 0 });
  });

  it('a single pending context of the matching kind binds to the tool call (and becomes live); updates never consume pending ones', () => {
    const c = new CapabilityContexts();
    c.remember('s', ctx('fs_write'));
    c.remember('s', ctx('fs_read'));
    expect(c.forUpdate('s', 'tc-2')).toBeUndefined();
    expect(c.bindToolCall('s', 'tc-2', 'execute')).toBeUndefined();
    expect(c.bindToolCall('s', 'tc-2', ' ')).toBeUndefined();
    const bound = c.bindToolCall('s', 'tc-2', 'read');
    expect(bound).toMatchObject({ authorizationOperation: 'fs_read', authorizationToolCallId: 'tc-2' });
    expect(c.counts('s')).toEqual({ pending: 1, live: 1 });
    expect(c.forUpdate('s', 'tc-2')).toEqual(bound);
    expect(c.bindToolCall('s', 'tc-3', 'edit')).toMatchObject({
      authorizationOperation: 'fs_write',
      authorizationToolCallId: 'tc-3',
    });
    c.remember('s', ctx('terminal'));
    expect(c.bindToolCall('s', 'tc-4', 'execute')).toMatchObject({ authorizationOperation: 'terminal' });
  });

  it('zero or several matching pending contexts bind nothing and remove nothing', () => {
    const c = new CapabilityContexts();
    expect(c.bindToolCall('s', 'tc-1', 'read')).toBeUndefined();
    c.remember('s', ctx('fs_read'));
    c.remember('s', ctx('fs_read'));
    expect(c.bindToolCall('s', 'tc-1', 'read')).toBeUndefined();
    expect(c.counts('s')).toEqual({ pending: 2, live: 0 });
    expect(c.bindToolCall('other', 'tc-1', 'read')).toBeUndefined();
  });

  it(`a flood of 100 pending contexts keeps at most ${MAX_PENDING_PER_SESSION} per session, evicting the oldest`, () => {
    expect(MAX_PENDING_PER_SESSION).toBe(32);
    const c = new CapabilityContexts();
    c.remember('s', ctx('fs_write'));
    for (let i = 0; i < 100; i++) c.remember('s', ctx('fs_read', '', `/p/${i}`));
    expect(c.counts('s')).toEqual({ pending: 32, live: 0 });
    expect(c.bindToolCall('s', 'tc-edit', 'edit')).toBeUndefined(); // the oldest (the write) was evicted
    const kept = new CapabilityContexts();
    kept.remember('s', ctx('fs_write'));
    for (let i = 0; i < 31; i++) kept.remember('s', ctx('fs_read'));
    expect(kept.bindToolCall('s', 'tc-edit', 'edit')).toMatchObject({ authorizationOperation: 'fs_write' });
  });

  it('purge removes every pending and live context of one session only', () => {
    const c = new CapabilityContexts();
    for (let i = 0; i < 4; i++) c.remember('s', ctx('fs_read'));
    c.remember('s', ctx('fs_read', 'tc-a'));
    c.remember('s', ctx('terminal_kill', 'tc-b'));
    c.remember('s:x', ctx('fs_read', 'tc-a'));
    c.remember('s:x', ctx('fs_read'));
    expect(c.purge('s')).toBe(6);
    expect(c.counts('s')).toEqual({ pending: 0, live: 0 });
    expect(c.counts('s:x')).toEqual({ pending: 1, live: 1 });
    expect(c.bindToolCall('s', 'tc-a', 'read')).toBeUndefined();
  });
});

describe('mapPermissionKind and session/cancel in either direction', () => {
  it.each([
    ['allow_once', 'allow'],
    ['allow_always', 'allow'],
    ['reject_once', 'deny'],
    ['reject_always', 'deny'],
    ['ALLOW_ONCE', 'deny'],
    ['', 'deny'],
    ['whatever', 'deny'],
  ])('%j maps to %s', (kind, decision) => {
    expect(mapPermissionKind(kind)).toBe(decision);
  });

  it.each([
    ['the editor', true],
    ['the agent', false],
  ])('session/cancel from %s purges the session and is forwarded', async (_from, fromEditor) => {
    const i = new AcpInterceptor({ config: AcpProxyConfig.new('agent') });
    i.contexts.remember('s', ctx('fs_read'));
    i.contexts.remember('s', ctx('fs_read', 'tc-1'));
    const m = {
      kind: 'notification' as const,
      message: { jsonrpc: '2.0' as const, method: 'session/cancel', params: { sessionId: 's' } },
    };
    const d = fromEditor ? await i.fromClient(m) : await i.fromAgent(m);
    expect(d.forward).toBe(true);
    expect(i.contexts.counts('s')).toEqual({ pending: 0, live: 0 });
  });
});
