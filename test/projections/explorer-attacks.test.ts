// `chio serve` and its web explorer attacked as a hostile party, through the real process and real
// headless Chromium: path tricks against the static files, token variants, other origins, session
// ids chosen by an attacker (markup, paths, fragments, bidi overrides, 10,000 characters), and a
// dishonest server rewriting receipt answers below the level of parsed JSON (the unsigned
// `algorithm` member, duplicate keys, `__proto__`, numbers beyond a double).
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { Server } from 'node:http';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson, signerFromSeed, toHex } from '../../src/crypto/index.js';
import { appendReceiptSync, entryHash, openLedger, receiptSha256 } from '../../src/ledger/index.js';
import { verifyCertificate } from '../../src/projections/certificate/index.js';
import { explorerSite } from '../../src/projections/explorer/index.js';
import { Kernel } from '../../src/kernel/index.js';
import { verifyReceipt } from '../../src/receipt/index.js';
import { headlessChromium } from '../helpers/browser.js';
import { childProcesses } from '../helpers/children.js';
import { CHIO_BIN } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { CountingToolServer } from '../helpers/tool-server.js';
import { mixedReceipt } from '../helpers/receipts.js';

declare const document: any, window: any;

const TOKEN = 'attack-token-0123456789abcdef';
const SEED = new Uint8Array(32).fill(9);
const KERNEL_KEY = signerFromSeed(SEED).publicKeyHex;
const children = childProcesses();
const chromium = headlessChromium();

/** Session ids an agent chose: every one must be shown as text and reachable from its link. */
const HOSTILE = {
  markup: '"><img src=x onerror=alert(1)><script>alert(2)</script>',
  path: '../../v1/ledger/head',
  fragment: `#/receipt/${'0'.repeat(64)}`,
  reserved: 'a/b?c=1&d#e%2Ff%ZZ',
  rtl: 'invoice-\u202Egnp.exe',
};
/** The longest session id the ledger takes (256), and a 10,000-character tool argument. */
const LONG = 'x'.repeat(256);
const HUGE = `${'y'.repeat(10_000)}${HOSTILE.markup}`;

/** A raw request: fetch would normalize the paths these tests need to send as they are. */
function raw(path: string, base: string, method = 'GET', headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>(
    (resolve, reject) => {
      const req = request(`${base}/`, { method, path, headers }, (res) => {
        let body = '';
        res
          .setEncoding('utf8')
          .on('data', (d) => (body += d))
          .on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      });
      req.on('error', reject).end();
    },
  );
}

describe('chio serve under attack', () => {
  const dir = tempDir();
  const db = join(dir, 'receipts.sqlite');
  const seedFile = join(dir, 'kernel.seed');
  const calls = new Map<string, number>();
  let service: string;
  let dishonest: string;
  let dishonestServer: Server;
  let browser: Browser;
  /** The allowed and the denied receipt of each session, by session id. */
  const receipts = new Map<string, { allow: string; deny: string }>();
  let denyId: string;
  /** How the dishonest server rewrites a receipt answer's text (null: passes it through). */
  let rewrite: ((text: string) => string) | null = null;

  beforeAll(async () => {
    writeFileSync(seedFile, toHex(SEED));
    let clock = 1_790_000_000;
    const kernel = Kernel.open({ ledgerPath: db, seed: SEED, clock: () => clock, checkpoints: false });
    kernel.registerToolServer(new CountingToolServer());
    const agent = signerFromSeed(new Uint8Array(32).fill(4));
    const capability = kernel.issueCapability({ subject: agent.publicKeyHex, ttlSeconds: 10 ** 6 });
    for (const sessionId of [...Object.values(HOSTILE), LONG]) {
      for (const [tool, args] of [
        ['hello_tool', { name: HUGE }],
        ['read_file', { path: '/srv/app/.env' }],
      ] as const) {
        clock += 60;
        const r = await kernel.evaluateToolCall({
          capability,
          caller: agent.publicKeyHex,
          serverId: 'fs',
          toolName: tool,
          arguments: args,
          sessionId,
        });
        calls.set(sessionId, (calls.get(sessionId) ?? 0) + 1);
        if (r.receipt.decision?.verdict === 'deny') denyId = r.receipt.id;
        receipts.set(sessionId, { ...receipts.get(sessionId)!, [r.receipt.decision!.verdict]: r.receipt.id });
      }
    }
    await kernel.close();
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
      const upstream = await fetch(`${service}${req.url}`, {
        headers: { authorization: String(req.headers.authorization ?? '') },
      });
      const text = await upstream.text();
      res.writeHead(upstream.status, { 'content-type': 'application/json' });
      res.end(
        upstream.ok && rewrite !== null && /^\/v1\/receipts\/[0-9a-f]{64}$/.test(req.url ?? '') ? rewrite(text) : text,
      );
    });
    await new Promise<void>((r) => dishonestServer.listen(0, '127.0.0.1', r));
    dishonest = `http://127.0.0.1:${(dishonestServer.address() as { port: number }).port}`;
    browser = await chromium.launch();
  });
  afterAll(async () => {
    if (dishonestServer !== undefined) await new Promise((r) => dishonestServer.close(r));
  });

  it("the static paths serve only the explorer's own files: traversal, encoded and doubled slashes, backslashes, long paths find nothing", async () => {
    const mainJs = readFileSync('dist/explorer/main.js', 'utf8');
    expect((await raw('/explorer/main.js?v=1&x=../../package.json', service)).body).toBe(mainJs);
    const tricks = [
      '/explorer/../package.json',
      '/explorer/%2e%2e/%2e%2e/package.json',
      '/explorer/..%2f..%2fpackage.json',
      '/explorer/..%5c..%5cpackage.json',
      '/explorer/..\\..\\package.json',
      '/explorer/%252e%252e/%252e%252e/package.json',
      '/explorer//main.js',
      '/explorer/./main.js',
      '/explorer/vendor/../main.js',
      '/explorer/main.js%00',
      '/explorer/main.ts',
      '/explorer/main.js.map',
      '/explorer/tsconfig.json',
      '/explorer/',
      '/index.html',
      '/explorer/index.html/',
      '/explorer%2fmain.js',
      `/explorer/${'a/'.repeat(3000)}`,
      '/explorer/views/receipt.js/..',
    ];
    for (const path of tricks) {
      const r = await raw(path, service);
      expect(r.status, path).toBeGreaterThanOrEqual(400);
      expect(r.body, path).not.toMatch(/"name": "chio|import |"compilerOptions"/);
      expect(r.headers['x-content-type-options'], path).toBe('nosniff');
    }
  });

  it('every HTML response carries the CSP and refuses framing; static and API answers are nosniff; only GET and HEAD', async () => {
    for (const path of ['/', '/?q=<script>alert(1)</script>', '/explorer/index.html']) {
      for (const method of ['GET', 'HEAD']) {
        const r = await raw(path, service, method);
        expect(r.status, path).toBe(200);
        expect(r.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(r.headers['content-security-policy']).toContain("script-src 'self'");
        expect(r.headers['content-security-policy']).toContain("frame-ancestors 'none'");
        expect(r.headers['x-content-type-options']).toBe('nosniff');
        expect(r.body).toBe(method === 'HEAD' ? '' : readFileSync('dist/explorer/index.html', 'utf8'));
      }
    }
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
      for (const path of ['/', '/explorer/main.js', '/v1/ledger/head']) {
        const r = await raw(path, service, method, { authorization: `Bearer ${TOKEN}` });
        expect(r.status, `${method} ${path}`).toBe(405);
        expect(r.headers['x-content-type-options']).toBe('nosniff');
      }
    }
    for (const [path, auth] of [
      ['/healthz', ''],
      ['/v1/ledger/head', TOKEN],
      ['/v1/ledger/head', ''],
      ['/v1/nope', TOKEN],
    ] as const) {
      const r = await raw(path, service, 'GET', auth === '' ? {} : { authorization: `Bearer ${auth}` });
      expect(r.headers['content-type'], path).toBe('application/json; charset=utf-8');
      expect(r.headers['x-content-type-options'], path).toBe('nosniff');
    }
  });

  it('the token is accepted only as the exact bearer header: not in the query, a cookie, Basic, padded, doubled or oversized', async () => {
    expect((await raw('/v1/ledger/head', service, 'GET', { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
    const refused: Array<[string, Record<string, string>]> = [
      [`/v1/ledger/head?token=${TOKEN}`, {}],
      [`/v1/ledger/head?access_token=${TOKEN}`, {}],
      ['/v1/ledger/head', { cookie: `token=${TOKEN}` }],
      ['/v1/ledger/head', { authorization: `Basic ${Buffer.from(`chio:${TOKEN}`).toString('base64')}` }],
      ['/v1/ledger/head', { authorization: `Bearer  ${TOKEN}` }],
      ['/v1/ledger/head', { authorization: `Bearer ${TOKEN}x` }],
      ['/v1/ledger/head', { authorization: `Bearer ${TOKEN.slice(0, -1)}` }],
      ['/v1/ledger/head', { authorization: `Bearer ${TOKEN}, Bearer ${TOKEN}` }],
      ['/v1/ledger/head', { authorization: `Bearer ${TOKEN}${'a'.repeat(5000)}` }],
      ['/v1/ledger/head', { authorization: `Bearer\t${TOKEN}` }],
      ['/v1/ledger/head', { authorization: `bearer wrong-token-0123456789` }],
    ];
    for (const [path, headers] of refused) {
      const r = await raw(path, service, 'GET', headers);
      expect(r.status, JSON.stringify(headers) + path).toBe(401);
      expect(r.body).not.toContain('entryHash');
    }
    // Beyond Node's header limit: refused before anything reads it.
    expect(
      (await raw('/v1/ledger/head', service, 'GET', { authorization: `Bearer ${'a'.repeat(20_000)}` })).status,
    ).toBe(431);
  });

  it('another origin cannot read the API even with the token: no CORS headers, a preflight is refused; a foreign Host gets nothing without the token', async () => {
    const evil = { origin: 'http://evil.example', host: 'evil.example' };
    for (const [method, path, headers] of [
      ['GET', '/v1/ledger/head', { authorization: `Bearer ${TOKEN}` }],
      ['GET', '/healthz', {}],
      ['GET', '/', {}],
      [
        'OPTIONS',
        '/v1/ledger/head',
        { 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
      ],
    ] as const) {
      const r = await raw(path, service, method, { ...evil, ...headers });
      expect(
        Object.keys(r.headers).filter((h) => h.startsWith('access-control-')),
        `${method} ${path}`,
      ).toEqual([]);
      if (method === 'OPTIONS') expect(r.status).toBe(405);
    }
    expect((await raw('/v1/sessions', service, 'GET', { host: 'evil.example' })).status).toBe(401);
    // In Chromium: a page on another origin (another port), with no CSP of its own, that holds the token still cannot read an answer.
    const evilServer = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>evil</title>'),
    );
    await new Promise<void>((r) => evilServer.listen(0, '127.0.0.1', r));
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`http://127.0.0.1:${(evilServer.address() as { port: number }).port}/`);
    const outcome = await page.evaluate(
      async ([url, token]: string[]) => {
        try {
          return `read ${await (await fetch(`${url}/v1/ledger/head`, { headers: { authorization: `Bearer ${token}` } })).text()}`;
        } catch (e) {
          return `refused ${(e as Error).name}`;
        }
      },
      [service, TOKEN],
    );
    expect(outcome).toBe('refused TypeError');
    await context.close();
    await new Promise((r) => evilServer.close(r));
  });

  async function open(width = 1280) {
    const context = await browser.newContext({ viewport: { width, height: 800 }, acceptDownloads: true });
    const page = await context.newPage();
    const alarms: string[] = [];
    page.on('dialog', (d) => {
      alarms.push(`dialog ${d.message()}`);
      void d.dismiss();
    });
    page.on('pageerror', (e) => alarms.push(`pageerror ${e.message}`));
    return { page, alarms, close: () => context.close() };
  }
  async function signIn(page: Page, base = service) {
    await page.goto(`${base}/`);
    await page.fill('#token', TOKEN);
    await page.press('#token', 'Enter');
    await expect.poll(() => page.locator('main h1').textContent()).toBe('Sessions');
  }
  const noSidewaysScroll = (page: Page) =>
    page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);

  it('hostile session ids on the sessions page: shown as text, every link stays on an explorer route, nothing runs, no sideways scroll at 1280 px', async () => {
    const { page, alarms, close } = await open();
    await signIn(page);
    await page
      .locator('table.sessions tbody tr')
      .nth(calls.size - 1)
      .waitFor();
    const shown = await page.locator('table.sessions tbody th').allTextContents();
    expect(shown).toEqual([...Object.values(HOSTILE), LONG]);
    const hrefs = await page.locator('main a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    for (const href of hrefs) expect(href).toMatch(/^#\/((session|receipt)\/[A-Za-z0-9%._~!*'()-]+)?$/);
    expect(await page.locator('main img, main script').count()).toBe(0);
    expect(await noSidewaysScroll(page)).toBe(true);
    expect(alarms).toEqual([]);
    await close();
  });

  it("each hostile session's link opens that session's timeline (markup, paths, fragments, reserved characters, bidi, 256 characters)", async () => {
    const { page, alarms, close } = await open();
    await signIn(page);
    for (const id of [HOSTILE.markup, HOSTILE.path, HOSTILE.fragment, HOSTILE.reserved, HOSTILE.rtl, LONG]) {
      await page.goto(`${service}/#/`);
      await page.locator(`table.sessions a[href="#/session/${encodeURIComponent(id)}"]`).click();
      await expect.poll(() => page.locator('main h1').textContent()).toBe(`Session ${id}`);
      await expect.poll(() => page.locator('table.timeline tbody tr').count()).toBe(calls.get(id));
      expect(await noSidewaysScroll(page), id).toBe(true);
    }
    expect(alarms).toEqual([]);
    await close();
  });

  // The browser resolves `.` and `..` (even as %2E%2E, WHATWG URL) in a path before it asks, so
  // such a session could never be served: the ledger refuses the ids before anything is appended.
  it('session ids "." and ".." are refused by the ledger, which stays empty', () => {
    const ledger = openLedger(join(tempDir(), 'dots.sqlite'));
    try {
      for (const sessionId of ['.', '..']) {
        expect(() => appendReceiptSync(ledger, { receipt: mixedReceipt(1), sessionId })).toThrowError(
          expect.objectContaining({ code: 'CHIO-RECEIPT-INVALID' }),
        );
      }
      expect(appendReceiptSync(ledger, { receipt: mixedReceipt(1), sessionId: '...' }).seq).toBe(1);
    } finally {
      ledger.close();
    }
  });

  it('a 256-character session id and a 10,000-character argument fit the page: no sideways scroll at 1280 px', async () => {
    const { page, alarms, close } = await open();
    await signIn(page);
    await page.goto(`${service}/#/session/${LONG}`);
    await expect.poll(() => page.locator('main h1').textContent()).toBe(`Session ${LONG}`);
    await expect.poll(() => page.locator('table.timeline tbody tr').count()).toBe(calls.get(LONG));
    expect(await noSidewaysScroll(page)).toBe(true);
    await page.goto(`${service}/#/receipt/${receipts.get(HOSTILE.markup)!.allow}`);
    await expect.poll(() => page.locator('.verify').textContent()).toBe('✓ Signature verified');
    expect(await page.locator('pre.json').textContent()).toContain(JSON.stringify(HUGE));
    expect(await noSidewaysScroll(page)).toBe(true);
    expect(alarms).toEqual([]);
    await close();
  });

  it('a receipt of a 256-character session: its page does not scroll sideways at 1280 px', async () => {
    const { page, close } = await open();
    await signIn(page);
    await page.goto(`${service}/#/receipt/${receipts.get(LONG)!.deny}`);
    await expect.poll(() => page.locator('.verify').textContent()).toBe('✓ Signature verified');
    expect(await noSidewaysScroll(page)).toBe(true);
    await close();
  });

  it('the certificate of a session whose id holds / ? # % downloads and verifies under the kernel key', async () => {
    const { page, close } = await open();
    await signIn(page);
    await page.goto(`${service}/#/session/${encodeURIComponent(HOSTILE.reserved)}`);
    await page.getByRole('button', { name: 'Download certificate' }).waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('text=Download certificate')]);
    expect(download.suggestedFilename()).toMatch(/^certificate-[A-Za-z0-9._-]+\.json$/);
    const cert = JSON.parse(readFileSync((await download.path())!, 'utf8'));
    expect(verifyCertificate(cert, { trustedKernelKeys: new Set([KERNEL_KEY]) })).toMatchObject({ passed: true });
    expect(cert.body.receipt_count).toBe(calls.get(HOSTILE.reserved));
    await close();
  });

  // Attacker text is bidi-isolated (style.css), so a U+202E inside it reorders nothing outside it.
  it("a bidi override in a session id does not reverse the receipt page's own text after it", async () => {
    const { page, close } = await open();
    await signIn(page);
    await page.goto(`${service}/#/receipt/${receipts.get(HOSTILE.rtl)!.deny}`);
    await expect.poll(() => page.locator('.verify').textContent()).toBe('✓ Signature verified');
    // Where "(" and ")" of " (previous entry of the session: seq N)" are drawn: left to right, as written.
    const [open_, close_] = await page.locator('dd', { hasText: 'previous entry of the session' }).evaluate((dd) => {
      const text = [...dd.childNodes].find((n: any) => n.nodeType === 3 && n.textContent.includes('('));
      const x = (i: number) => {
        const range = document.createRange();
        range.setStart(text, i);
        range.setEnd(text, i + 1);
        return range.getBoundingClientRect().left;
      };
      return [x(text.textContent.indexOf('(')), x(text.textContent.indexOf(')'))];
    });
    expect(open_).toBeLessThan(close_);
    await close();
  });

  /** The dishonest server's answer for `denyId`, parsed the way it was signed, with the position re-hashed to match `receipt`. */
  const rehash = (answer: any, receiptText: string) => {
    const p = answer.position;
    p.entryHash = entryHash({
      seq: p.seq,
      prevHash: p.prevHash,
      receiptSha256: receiptSha256(canonicalJson(JSON.parse(receiptText))),
      sessionId: p.sessionId,
      sessionPrevSeq: p.sessionPrevSeq,
    });
    return `{"receipt":${receiptText},"position":${JSON.stringify(p)},"verification":{"ok":true,"signature":"ok","entryHash":"ok"}}`;
  };
  async function verdictFor(
    change: (text: string) => string,
  ): Promise<{ status: string; page: Page; close: () => Promise<void>; alarms: string[] }> {
    rewrite = change;
    const { page, alarms, close } = await open();
    await signIn(page, dishonest);
    await page.goto(`${dishonest}/#/receipt/${denyId}`);
    await expect.poll(() => page.locator('main h1').textContent()).toMatch(/^(Receipt|Cannot show this)/);
    const status =
      (await page.locator('.verify').count()) === 0
        ? `error: ${await page.locator('main').textContent()}`
        : (await page.locator('.verify').textContent())!;
    return { status, page, alarms, close };
  }
  const receiptOf = (text: string) => JSON.stringify(JSON.parse(text).receipt);

  // `algorithm` is outside the id and the signature (DESIGN §5): the page accepts only its absence or "ed25519", as chio does.
  it('"✓ Signature verified" only for a receipt chio also verifies: a server rewriting the unsigned algorithm member is caught', async () => {
    const { status, page, close } = await verdictFor((text) => {
      const r = JSON.parse(receiptOf(text));
      r.algorithm = 'none';
      return rehash(JSON.parse(text), JSON.stringify(r));
    });
    try {
      if (status === '✓ Signature verified') {
        const [download] = await Promise.all([page.waitForEvent('download'), page.click('text=Download receipt JSON')]);
        expect(verifyReceipt(JSON.parse(readFileSync((await download.path())!, 'utf8'))).ok).toBe(true);
      }
      expect(status).not.toBe('✓ Signature verified');
    } finally {
      rewrite = null;
      await close();
    }
  });

  it('duplicate keys: a forged member after the signed one is caught; one before it is overridden and never shown', async () => {
    const forged = '"decision":{"verdict":"allow"},';
    try {
      const after = await verdictFor((text) =>
        text.replace(
          /"receipt":\{(.*?)\},"position"/,
          (_m, body: string) => `"receipt":{${body},${forged.slice(0, -1)}},"position"`,
        ),
      );
      expect(after.status).toBe('✗ Signature invalid');
      await after.close();
      const before = await verdictFor((text) => text.replace('"receipt":{', `"receipt":{${forged}`));
      expect(before.status).toBe('✓ Signature verified');
      expect(await before.page.locator('main dd .badge').first().textContent()).toBe('deny');
      expect(before.alarms).toEqual([]);
      await before.close();
    } finally {
      rewrite = null;
    }
  });

  it('a __proto__ member or a number beyond a double never verifies, and the page keeps working', async () => {
    try {
      for (const change of [
        (text: string) => text.replace('"receipt":{', '"receipt":{"__proto__":{"decision":{"verdict":"allow"}},'),
        (text: string) => text.replace(/"timestamp":\d+/, '"timestamp":1e400'),
        (text: string) => text.replace(/"seq":\d+/, '"seq":1e400'),
      ]) {
        const { status, alarms, close } = await verdictFor(change);
        expect(status).not.toBe('✓ Signature verified');
        expect(status).toMatch(/^(✗|error: Cannot show this)/);
        expect(alarms).toEqual([]);
        await close();
      }
    } finally {
      rewrite = null;
    }
  });
});
