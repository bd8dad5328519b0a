/** Headless Chromium for the hosted-page tests: one persistent profile in a temporary directory per suite. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface TestBrowser {
  browser: BrowserContext;
  close(): Promise<void>;
}

export async function launchChromium(): Promise<TestBrowser> {
  const profileDir = await mkdtemp(path.join(tmpdir(), 'payrail-chromium-'));
  const browser = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    viewport: { width: 1024, height: 900 },
  });
  return {
    browser,
    close: async () => {
      await browser.close();
      await rm(profileDir, { recursive: true, force: true });
    },
  };
}
