// The kernel's guards judge every terminal the ACP proxy's own rules let through: an allowed
// interpreter handed inline code, an allowed command reaching cloud metadata, an allowed `cat` of a
// secret by a relative word, a recursive delete of the workspace — each refused through the real
// proxy with a signed deny receipt naming the kernel guard, never reaching the editor, creating
// nothing; the same argv run directly does its harm (the attack is real). Ordinary use passes.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxyClient } from '../helpers/acp-proxy-client.js';
import type { ProxyClient, StepOutcome } from '../helpers/acp-proxy-client.js';
import { kernelKeyFiles, ledgerReceipts } from '../helpers/acp-proxy-ledger.js';
import { TerminalRunner } from '../helpers/acp-terminal-runner.js';
import { chio } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('chio-acp-kernel-');
const ws = join(dir, 'ws');
const markers = join(dir, 'markers');
const control = join(dir, 'control');
const keys = kernelKeyFiles(dir);
const PYTHON = spawnSync('sh', ['-c', 'command -v python3'], { encoding: 'utf8' }).stdout.trim();

interface Terminal {
  command: string;
  args: string[];
  cwd?: string;
}
const failed = (o: StepOutcome) => (o.ok ? `ok: ${JSON.stringify(o.result)}` : o.message);

/** Each hostile request as a function of the marker it would create (or the directory it would destroy). */
const HOSTILE: Array<{ name: string; guard: string; message: RegExp; make: (marker: string) => Terminal }> = [
  {
    name: 'python3 -c',
    guard: 'shell-command',
    message: /python is given inline code \(-c\)/,
    make: (m) => ({ command: PYTHON, args: ['-c', `open(${JSON.stringify(m)}, 'w').write('pwned')`], cwd: ws }),
  },
  {
    name: 'cp .env out (relative word)',
    guard: 'shell-command',
    message: /forbidden path: .*\*\*\/\.env/,
    make: (m) => ({ command: 'cp', args: ['.env', m], cwd: ws }),
  },
  {
    name: 'rm -rf the workspace',
    guard: 'shell-command',
    message: /recursive rm of .*workspace root/,
    make: () => ({ command: 'rm', args: ['-rf', ws] }),
  },
  {
    name: 'curl cloud metadata',
    guard: 'internal-network',
    message: /169\.254\.169\.254 is a link-local/,
    make: () => ({ command: 'curl', args: ['-s', 'http://169.254.169.254/latest/meta-data/'], cwd: ws }),
  },
];

describe('chio acp proxy: the kernel guards judge every terminal the proxy lets through', () => {
  const db = join(dir, 'receipts.sqlite');
  const runner = new TerminalRunner();
  let client: ProxyClient;
  let session: string;
  beforeAll(async () => {
    for (const d of [ws, markers, control]) mkdirSync(d, { recursive: true });
    writeFileSync(join(ws, '.env'), 'API_KEY=live-secret\n');
    writeFileSync(join(ws, 'README.md'), '# ws\n');
    writeFileSync(join(ws, 'report.py'), 'print("report")\n');
    const commands = [PYTHON, 'cp', 'rm', 'curl', 'cat'].flatMap((c) => ['--allow-command', c]);
    client = startProxyClient(
      ['--receipt-db', db, '--kernel-seed-file', keys.seedFile, '--allow-path', ws, ...commands],
      [],
      { terminals: runner },
    );
    session = await client.newSession();
  });
  afterAll(async () => void (await client?.close()));

  it('the inline-code and copy attacks are real: run directly, each creates its marker', () => {
    for (const h of HOSTILE.slice(0, 2)) {
      const marker = join(control, h.name.replace(/\W+/g, '-'));
      const t = h.make(marker);
      spawnSync(t.command, t.args, { cwd: t.cwd });
      expect(existsSync(marker), h.name).toBe(true);
    }
  });

  it('each is refused by the kernel guard named, never reaches the editor, and changes nothing', async () => {
    const before = client.seen.length;
    const r = await client.prompt(
      session,
      HOSTILE.map((h) => ({ terminal: h.make(join(markers, h.name.replace(/\W+/g, '-'))) })),
    );
    for (const [i, h] of HOSTILE.entries()) {
      expect(r[i], h.name).toMatchObject({ ok: false, code: -32000 });
      expect(failed(r[i]!), h.name).toMatch(h.message);
    }
    expect(client.seen.slice(before)).toEqual([]);
    await runner.settled();
    expect(spawnSync('ls', ['-A', markers], { encoding: 'utf8' }).stdout).toBe('');
    expect(existsSync(join(ws, '.env'))).toBe(true);
  });

  it('ordinary use passes and runs: cat README.md, python3 report.py', async () => {
    const r = await client.prompt(session, [
      { terminal: { command: 'cat', args: ['README.md'], cwd: ws } },
      { terminal: { command: PYTHON, args: ['report.py'], cwd: ws } },
    ]);
    expect(
      r.every((o) => o.ok),
      JSON.stringify(r),
    ).toBe(true);
    const exits = await Promise.all(
      r.map((o) => runner.waitForExit((o as { result: { terminalId: string } }).result.terminalId)),
    );
    expect(exits.map((e) => e.exitCode)).toEqual([0, 0]);
  });

  it('afterwards: each refusal is a signed deny receipt naming the kernel guard, and the ledger verifies', async () => {
    expect(await client.close()).toBe(0);
    const denies = ledgerReceipts(db)
      .filter((e) => e.session_id === session && e.receipt.decision?.verdict === 'deny')
      .map((e) => e.receipt);
    expect(denies.map((rc) => [rc.tool_name, rc.decision.guard])).toEqual(
      HOSTILE.map((h) => ['terminal/create', h.guard]),
    );
    const verify = chio(['ledger', 'verify', '--receipt-db', db, '--trusted-kernel-pubkey', keys.pubFile]);
    expect(verify.status, verify.stdout + verify.stderr).toBe(0);
  });
});
