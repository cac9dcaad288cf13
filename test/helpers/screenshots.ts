// Screenshots of the dashboard's pages (docs/screenshots/, shown by docs/web-apps.md), taken by
// the browser tests when SCREENSHOTS=1 (so an ordinary run leaves the working tree alone).
import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';

const DIR = new URL('../../docs/screenshots/', import.meta.url);

export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.SCREENSHOTS !== '1') return;
  mkdirSync(DIR, { recursive: true });
  await page.screenshot({ path: new URL(`${name}.png`, DIR).pathname, fullPage: true });
}
