import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface Chromium {
  browser: BrowserContext;
  close(): Promise<void>;
}

/** Headless Chromium with a throwaway profile, for the hosted-page tests. */
export async function launchChromium(): Promise<Chromium> {
  const profileDir = await mkdtemp(path.join(tmpdir(), 'payrail-chromium-'));
  const browser = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    viewport: { width: 1024, height: 900 },
  });
  return {
    browser,
    async close() {
      await browser.close();
      await rm(profileDir, { recursive: true, force: true });
    },
  };
}
