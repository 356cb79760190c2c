/**
 * Headless Chromium for page tests: Debian's `chromium` (CHIO_CHROMIUM overrides the path) driven
 * by playwright-core, closed after the file. A missing browser is a failure that says how to get
 * one, never a skip. Screenshots go to .artifacts/explorer/.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import { afterAll } from 'vitest';

export const CHROMIUM = process.env.CHIO_CHROMIUM ?? '/usr/bin/chromium';
const ARTIFACTS = '.artifacts/explorer';

export function headlessChromium(): {
  launch(): Promise<Browser>;
  screenshot(page: Page, name: string): Promise<void>;
} {
  let browser: Browser | undefined;
  afterAll(async () => {
    await browser?.close();
  });
  return {
    async launch() {
      if (!existsSync(CHROMIUM))
        throw new Error(
          `no Chromium at ${CHROMIUM}: install Debian's chromium package (apt-get install chromium; .ci/run does) or set CHIO_CHROMIUM`,
        );
      // --no-sandbox: CI runs as root, where Chromium's sandbox cannot start.
      browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
      return browser;
    },
    async screenshot(page, name) {
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: `${ARTIFACTS}/${name}.png`, fullPage: true });
    },
  };
}
