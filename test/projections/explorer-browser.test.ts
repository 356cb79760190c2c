// The web explorer in real headless Chromium (Debian's package, driven by playwright-core) over the
// ledger `npm run demo` writes, served by a real `chio serve`: sessions with their counts by
// verdict, a session's timeline with the demo's denials and their guards, the denials chart, a
// receipt page whose signature the browser verifies, the certificate download, keyboard-only use
// and laptop widths. A dishonest server in front of it (tampered, re-signed, swapped, moved
// receipts, markup in tool names) must be caught or shown as text by the page. Screenshots are
// written to .artifacts/explorer/.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson, parseSeed, sha256Hex, signerFromSeed, toHex } from '../../src/crypto/index.js';
import { entryHash, receiptSha256 } from '../../src/ledger/index.js';
import { verifyCertificate } from '../../src/projections/certificate/index.js';
import { explorerSite } from '../../src/projections/explorer/index.js';
import { Kernel } from '../../src/kernel/index.js';
import { headlessChromium } from '../helpers/browser.js';
import { childProcesses } from '../helpers/children.js';
import { CHIO_BIN } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { CountingToolServer } from '../helpers/tool-server.js';

// Globals of the page, for the callbacks page.evaluate runs there (this file compiles without DOM types).
declare const document: any, window: any, getComputedStyle: (e: unknown) => any;

const TOKEN = 'explorer-token-0123456789';
const DEMO = fileURLToPath(new URL('../../dist/examples/demo/demo.js', import.meta.url));
const children = childProcesses();
const chromium = headlessChromium();

type Row = {
  seq: number;
  receipt_id: string;
  session_id: string | null;
  tool_server: string;
  tool_name: string;
  verdict: string | null;
  guard: string | null;
  reason: string | null;
};
type Mode = 'honest' | 'reason' | 'resign' | 'other' | 'position' | 'markup';

describe('the web explorer in Chromium', () => {
  const dir = tempDir();
  const db = join(dir, 'receipts.sqlite');
  const seedFile = join(dir, 'kernel.seed');
  let service: string;
  let dishonest: string;
  let dishonestServer: Server;
  let browser: Browser;
  let rows: Row[];
  let kernelKey: string;
  let mode: Mode = 'honest';
  const attacker = signerFromSeed(new Uint8Array(32).fill(66));

  /** Originals of forged receipts, by the forged receipt's id (its content address). */
  const forgeries = new Map<string, string>();

  /**
   * A thorough forgery of a receipt answer: turned into an allow, its id recomputed (so it has an
   * id of its own), signed by the attacker's key, its entry hash made to match. Deterministic.
   */
  function forge(answer: any): string {
    const r = answer.receipt;
    r.decision = { verdict: 'allow' };
    delete r.evidence;
    r.kernel_key = attacker.publicKeyHex;
    const { id: _i, signature: _s, ...content } = r;
    r.id = sha256Hex(canonicalJson(content));
    const { signature: _t, ...body } = r;
    r.signature = toHex(attacker.sign(new TextEncoder().encode(canonicalJson(body))));
    const p = answer.position;
    p.entryHash = entryHash({
      seq: p.seq,
      prevHash: p.prevHash,
      receiptSha256: receiptSha256(canonicalJson(r)),
      sessionId: p.sessionId,
      sessionPrevSeq: p.sessionPrevSeq,
    });
    return r.id;
  }

  /** What a dishonest server does to an honest answer (the page must not believe it). */
  async function lie(path: string, answer: any): Promise<any> {
    if (/^\/v1\/receipts\/[0-9a-f]{64}$/.test(path)) {
      const r = answer.receipt;
      if (mode === 'reason' && r.decision !== undefined) r.decision.reason = 'routine read, nothing to see';
      if (mode === 'position') answer.position.entryHash = answer.position.prevHash;
      if (mode === 'resign') forge(answer);
      answer.verification = { ok: true, signature: 'ok', entryHash: 'ok' };
    }
    if (mode === 'markup' && /^\/v1\/sessions\/[^/]+\/receipts$/.test(path)) {
      for (const r of answer.receipts) {
        r.tool_name = '<img src=x onerror="window.__pwned=1">';
        if (r.decision !== undefined)
          r.decision = { verdict: 'deny', guard: '<b>bold-guard</b>', reason: '<script>window.__pwned=2</script>' };
      }
    }
    return answer;
  }

  beforeAll(async () => {
    const demo = spawnSync(process.execPath, [DEMO], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, CHIO_DEMO_DB: db, CHIO_DEMO_SEED: seedFile },
    });
    expect(demo.status, demo.stderr).toBe(0);
    const seed = parseSeed(readFileSync(seedFile));
    kernelKey = signerFromSeed(seed).publicKeyHex;
    // One more session, by the same kernel, spread over six hours: enough span for the chart to draw.
    let clock = Math.floor(Date.now() / 1000);
    const kernel = Kernel.open({ ledgerPath: db, seed, clock: () => clock, checkpoints: false });
    kernel.registerToolServer(new CountingToolServer());
    const agent = signerFromSeed(new Uint8Array(32).fill(4));
    const capability = kernel.issueCapability({ subject: agent.publicKeyHex, ttlSeconds: 10 ** 6 });
    for (let i = 0; i < 12; i++) {
      clock += 1800;
      const [tool, args] = i % 2 === 0 ? ['read_file', { path: '/srv/app/.env' }] : ['hello_tool', { name: `n${i}` }];
      await kernel.evaluateToolCall({
        capability,
        caller: agent.publicKeyHex,
        serverId: 'fs',
        toolName: tool,
        arguments: args,
        sessionId: 'spread-session',
      });
    }
    await kernel.close();
    const ledger = new Database(db, { readonly: true });
    rows = ledger
      .prepare(
        'SELECT seq, receipt_id, session_id, tool_server, tool_name, verdict, guard, reason FROM receipts ORDER BY seq',
      )
      .all() as Row[];
    ledger.close();
    const started = await children.start(
      [
        CHIO_BIN,
        'serve',
        '--listen',
        '127.0.0.1:0',
        '--service-token',
        TOKEN,
        '--receipt-db',
        db,
        '--kernel-seed-file',
        seedFile,
      ],
      /audit API at (\S+)/,
    );
    service = started.match[1]!.replace(/\/$/, '');

    const site = explorerSite();
    dishonestServer = createServer(async (req, res) => {
      if (site(req, res)) return;
      let path = (req.url ?? '/').split('?')[0]!;
      let target = req.url ?? '/';
      if (mode === 'other' && /^\/v1\/receipts\/[0-9a-f]{64}$/.test(path)) {
        // Answer every receipt request with another receipt (validly signed, just not the one asked for).
        const other = rows.find((r) => `/v1/receipts/${r.receipt_id}` !== path)!;
        target = path = `/v1/receipts/${other.receipt_id}`;
      }
      const forged = forgeries.get(path.slice('/v1/receipts/'.length));
      if (mode === 'resign' && forged !== undefined) target = `/v1/receipts/${forged}`;
      const upstream = await fetch(`${service}${target}`, {
        headers: { authorization: String(req.headers.authorization ?? '') },
      });
      const text = await upstream.text();
      res.writeHead(upstream.status, { 'content-type': 'application/json' });
      res.end(upstream.ok ? JSON.stringify(await lie(path, JSON.parse(text))) : text);
    });
    await new Promise<void>((r) => dishonestServer.listen(0, '127.0.0.1', r));
    dishonest = `http://127.0.0.1:${(dishonestServer.address() as { port: number }).port}`;
    browser = await chromium.launch();
  });
  afterAll(async () => {
    await new Promise((r) => dishonestServer?.close(r));
  });

  /** A fresh browser context (its own storage) with every request and page error recorded. */
  async function open(width = 1280, height = 800) {
    const context = await browser.newContext({ viewport: { width, height }, acceptDownloads: true });
    const page = await context.newPage();
    const requests: string[] = [];
    const errors: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    page.on('pageerror', (e) => errors.push(e.message));
    return { page, requests, errors, close: () => context.close() };
  }

  async function signIn(page: Page, base: string, token = TOKEN): Promise<void> {
    await page.goto(`${base}/`);
    await page.fill('#token', token);
    await page.press('#token', 'Enter');
  }

  const heading = (page: Page) => page.locator('main h1');
  const sessionsWithDenials = () => [
    ...new Set(rows.filter((r) => r.verdict === 'deny' && r.session_id !== null).map((r) => r.session_id!)),
  ];

  it('asks for the token, refuses a wrong one, then lists every session with its counts by verdict', async () => {
    const { page, errors, close } = await open();
    await signIn(page, service, 'not-the-token-at-all');
    await expect.poll(() => page.locator('[role=alert]').textContent()).toContain('refused');
    await page.fill('#token', TOKEN);
    await page.press('#token', 'Enter');
    await expect.poll(() => heading(page).textContent()).toBe('Sessions');
    const shown = await page
      .locator('table.sessions tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.children].slice(0, 6).map((c) => c.textContent)));
    const sessions = [...new Set(rows.filter((r) => r.session_id !== null).map((r) => r.session_id!))];
    expect(sessions.length).toBeGreaterThanOrEqual(3);
    expect(shown).toEqual(
      sessions.map((s) => {
        const of = rows.filter((r) => r.session_id === s);
        const n = (f: (r: Row) => boolean) => String(of.filter(f).length);
        return [
          s,
          String(of.length),
          n((r) => r.verdict === 'allow'),
          n((r) => r.verdict === 'deny'),
          n((r) => r.verdict === null),
          n((r) => r.verdict === 'cancelled' || r.verdict === 'incomplete'),
        ];
      }),
    );
    await chromium.screenshot(page, 'sessions');
    expect(errors).toEqual([]);
    await close();
  });

  it("the chart of denials by guard: a series per guard over a session's hours; the ledger's totals per guard in the table", async () => {
    const { page, close } = await open();
    await signIn(page, service);
    // Everything: the table holds every guard's total (the demo's denials fall within seconds: no chart for them alone).
    const byGuard = new Map<string, number>();
    for (const r of rows.filter((x) => x.verdict === 'deny'))
      byGuard.set(r.guard ?? '(none)', (byGuard.get(r.guard ?? '(none)') ?? 0) + 1);
    expect(byGuard.size).toBeGreaterThanOrEqual(3);
    await page.locator('.denials tr.guard-row').first().waitFor({ state: 'attached' });
    const table = await page
      .locator('.denials tr.guard-row')
      .evaluateAll((trs) => trs.map((tr) => [tr.children[0]!.textContent, Number(tr.children[1]!.textContent)]));
    expect(new Map(table as Array<[string, number]>)).toEqual(byGuard);
    // A session spread over hours: drawn, one series per guard, its points where the denials are.
    await page.goto(`${service}/#/session/spread-session`);
    await expect.poll(() => heading(page).textContent()).toBe('Session spread-session');
    await page.locator('.denials canvas').first().waitFor();
    const legend = await page.locator('.denials .u-legend .u-series th').allTextContents();
    expect(legend.map((t) => t.trim())).toEqual(['forbidden-path']);
    expect(await page.locator('.denials h2').textContent()).toBe(
      `Denials by guard (${rows.filter((r) => r.session_id === 'spread-session' && r.verdict === 'deny').length})`,
    );
    await chromium.screenshot(page, 'session-chart');
    await close();
  });

  it("a session's timeline: every call in ledger order, its verdict, and each denial's guard and reason", async () => {
    const { page, close } = await open();
    await signIn(page, service);
    const session = sessionsWithDenials().find((s) =>
      rows.some((r) => r.session_id === s && r.guard === 'forbidden-path'),
    )!;
    expect(session).toBeDefined();
    await page.click(`table.sessions a[href="#/session/${encodeURIComponent(session)}"]`);
    await expect.poll(() => heading(page).textContent()).toBe(`Session ${session}`);
    const shown = await page
      .locator('table.timeline tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
    const want = rows.filter((r) => r.session_id === session);
    expect(shown.map((c) => [c[2], c[3], c[4], c[5]])).toEqual(
      want.map((r) => [`${r.tool_server} / ${r.tool_name}`, r.verdict ?? 'observation', r.guard ?? '', r.reason ?? '']),
    );
    expect(shown.some((c) => c[3] === 'deny' && c[4] === 'forbidden-path')).toBe(true);
    // Each row's receipt is checked in the browser too: every one signed and intact here.
    await expect.poll(() => page.locator('table.timeline td.checked.pass').count()).toBe(want.length);
    // The verdict's colour comes with its word: a deny badge is red.
    const colour = await page
      .locator('table.timeline .badge.v-deny')
      .first()
      .evaluate((b) => getComputedStyle(b).backgroundColor);
    expect(colour).toBe('rgb(180, 35, 24)');
    await chromium.screenshot(page, 'session-timeline');
    await close();
  });

  it('a receipt page verifies the signature in the browser, shows its chain position, and pins the key', async () => {
    const { page, close } = await open();
    await signIn(page, service);
    const deny = rows.find((r) => r.guard === 'forbidden-path')!;
    await page.goto(`${service}/#/receipt/${deny.receipt_id}`);
    await expect.poll(() => page.locator('.verify').textContent()).toBe('✓ Signature verified');
    expect(await page.locator('ul.checks li.pass').count()).toBe(5);
    expect(await page.locator('main').textContent()).toContain(`seq ${deny.seq}`);
    expect(await page.locator('main pre.json').textContent()).toContain(deny.receipt_id);
    expect(await page.locator('.key code').textContent()).toBe(kernelKey);
    await page.click('text=Pin this key as trusted');
    await expect.poll(() => page.locator('.key').textContent()).toContain('pinned in this browser as trusted');
    expect(await page.locator('.verify').textContent()).toBe('✓ Signature verified');
    await chromium.screenshot(page, 'receipt-verified');
    await close();
  });

  it('a dishonest server: a changed reason, a moved position or another receipt are each shown as failing', async () => {
    const { page, close } = await open();
    await signIn(page, dishonest);
    const deny = rows.find((r) => r.verdict === 'deny')!;
    try {
      mode = 'reason';
      await page.goto(`${dishonest}/#/receipt/${deny.receipt_id}`);
      await expect.poll(() => page.locator('.verify').textContent()).toBe('✗ Signature invalid');
      expect(await page.locator('main').textContent()).toContain('routine read, nothing to see');
      expect(await page.locator('main').textContent()).toContain('The service says: ok (not relied on above)');
      await chromium.screenshot(page, 'receipt-tampered');

      mode = 'position';
      await page.reload();
      await expect
        .poll(() => page.locator('main [role=alert]').allTextContents())
        .toContain('✗ The chain position the service states does not match this receipt.');

      mode = 'other';
      await page.reload();
      await expect.poll(() => page.locator('.verify').textContent()).toBe('✗ Signature invalid');
      expect(await page.locator('main [role=alert]').allTextContents()).toContain(
        `The service answered receipt ${rows.find((r) => r.receipt_id !== deny.receipt_id)!.receipt_id}, not ${deny.receipt_id}.`,
      );
    } finally {
      mode = 'honest';
    }
    await close();
  });

  it('a forgery under its own id, signed by another key: valid in itself, the page names the key, and with the kernel key pinned it is not trusted', async () => {
    const { page, close } = await open();
    await signIn(page, dishonest);
    const deny = rows.find((r) => r.verdict === 'deny')!;
    const honest = await (
      await fetch(`${service}/v1/receipts/${deny.receipt_id}`, { headers: { authorization: `Bearer ${TOKEN}` } })
    ).json();
    const forgedId = forge(honest);
    forgeries.set(forgedId, deny.receipt_id);
    try {
      mode = 'resign';
      await page.goto(`${dishonest}/#/receipt/${forgedId}`);
      // Consistent in itself: id, signature and entry hash all check out; only the key tells it apart.
      await expect.poll(() => page.locator('.key code').textContent()).toBe(attacker.publicKeyHex);
      expect(await page.locator('.verify').textContent()).toBe('✓ Signature verified');
      expect(await page.locator('.key').textContent()).toContain('no keys pinned yet');
      mode = 'honest';
      await page.goto(`${dishonest}/#/receipt/${deny.receipt_id}`);
      await expect.poll(() => page.locator('.key code').textContent()).toBe(kernelKey);
      await page.click('text=Pin this key as trusted');
      mode = 'resign';
      await page.goto(`${dishonest}/#/receipt/${forgedId}`);
      await expect.poll(() => page.locator('.verify').textContent()).toBe('✗ Signed by a key you have not pinned');
      expect(await page.locator('.key').textContent()).toContain('NOT one of the keys you pinned');
      await chromium.screenshot(page, 'receipt-unpinned-key');
    } finally {
      mode = 'honest';
    }
    await close();
  });

  it('markup in tool names, guards and reasons is shown as text, never run or parsed', async () => {
    const { page, errors, close } = await open();
    await signIn(page, dishonest);
    const session = sessionsWithDenials()[0]!;
    try {
      mode = 'markup';
      await page.goto(`${dishonest}/#/session/${encodeURIComponent(session)}`);
      await page.locator('table.timeline tbody tr').first().waitFor();
      const text = await page.locator('table.timeline').textContent();
      expect(text).toContain('<img src=x onerror="window.__pwned=1">');
      expect(text).toContain('<script>window.__pwned=2</script>');
      expect(text).toContain('<b>bold-guard</b>');
      expect(await page.locator('main img, main script, main b').count()).toBe(0);
      // The rewritten receipts no longer verify, and the timeline says so row by row.
      await expect
        .poll(() => page.locator('table.timeline td.checked.fail').count())
        .toBe(rows.filter((r) => r.session_id === session).length);
      expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    } finally {
      mode = 'honest';
    }
    expect(errors).toEqual([]);
    await close();
  });

  it("the session's certificate downloads and verifies under the kernel key", async () => {
    const { page, close } = await open();
    await signIn(page, service);
    const session = rows.find((r) => r.session_id !== null && r.verdict === null)!.session_id!; // the ACP session the demo certifies
    await page.goto(`${service}/#/session/${encodeURIComponent(session)}`);
    await page.getByRole('button', { name: 'Download certificate' }).waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('text=Download certificate')]);
    expect(download.suggestedFilename()).toMatch(/^certificate-.*\.json$/);
    const cert = JSON.parse(readFileSync((await download.path())!, 'utf8'));
    expect(verifyCertificate(cert, { trustedKernelKeys: new Set([kernelKey]) })).toMatchObject({ passed: true });
    expect(cert.body.receipt_count).toBe(rows.filter((r) => r.session_id === session).length);
    await close();
  });

  it('keyboard only: sign in, open a session, open a receipt; each page puts focus on its heading', async () => {
    const { page, close } = await open();
    await page.goto(`${service}/`);
    const tabTo = async (test: string) => {
      for (let i = 0; i < 80; i++) {
        await page.keyboard.press('Tab');
        if (await page.evaluate(test)) return;
      }
      throw new Error(`Tab never reached ${test}`);
    };
    await tabTo("document.activeElement?.id === 'token'");
    await page.keyboard.type(TOKEN);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Sessions');
    const session = sessionsWithDenials()[0]!;
    await tabTo(`document.activeElement?.getAttribute('href') === '#/session/${encodeURIComponent(session)}'`);
    await page.keyboard.press('Enter');
    await expect
      .poll(() => page.evaluate(() => `${document.activeElement?.tagName} ${document.activeElement?.textContent}`))
      .toBe(`H1 Session ${session}`);
    await tabTo("document.activeElement?.getAttribute('href')?.startsWith('#/receipt/') === true");
    await page.keyboard.press('Enter');
    await expect
      .poll(() =>
        page.evaluate(() => `${document.activeElement?.tagName} ${document.activeElement?.textContent?.slice(0, 7)}`),
      )
      .toBe('H1 Receipt');
    await expect.poll(() => page.locator('.verify').textContent()).toBe('✓ Signature verified');
    // Focus is visible where it lands on a control.
    await tabTo("document.activeElement?.tagName === 'BUTTON'");
    expect(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).toBe('solid');
    await close();
  });

  it("fits a laptop's width: no page scrolls sideways at 1024, 1280 or 1440 pixels", async () => {
    const deny = rows.find((r) => r.verdict === 'deny')!;
    for (const width of [1024, 1280, 1440]) {
      const { page, close } = await open(width, 768);
      await signIn(page, service);
      for (const route of ['#/', `#/session/${encodeURIComponent(deny.session_id!)}`, `#/receipt/${deny.receipt_id}`]) {
        await page.goto(`${service}/${route}`);
        await page.locator('main h1').waitFor();
        await page.waitForLoadState('networkidle');
        const [scroll, client] = await page.evaluate(() => [
          document.documentElement.scrollWidth,
          document.documentElement.clientWidth,
        ]);
        expect(scroll, `${width} ${route}`).toBeLessThanOrEqual(client);
      }
      if (width === 1024) await chromium.screenshot(page, 'receipt-1024');
      await close();
    }
  });

  it('loads nothing from another origin, with no page errors', async () => {
    const { page, requests, errors, close } = await open();
    await signIn(page, service);
    const deny = rows.find((r) => r.verdict === 'deny')!;
    for (const route of ['#/', `#/session/${encodeURIComponent(deny.session_id!)}`, `#/receipt/${deny.receipt_id}`]) {
      await page.goto(`${service}/${route}`);
      await page.waitForLoadState('networkidle');
    }
    expect(requests.length).toBeGreaterThan(5);
    expect(
      requests.filter((u) => !u.startsWith(`${service}/`) && !u.startsWith('blob:') && !u.startsWith('data:')),
    ).toEqual([]);
    expect(errors).toEqual([]);
    await close();
  });
});
