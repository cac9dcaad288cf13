// Screenshots of the dashboard's pages (docs/screenshots/, shown by docs/web-apps.md), taken by
// the browser tests when SCREENSHOTS=1 (so an ordinary run leaves the working tree alone).
import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';

const DIR = new URL('../../docs/screenshots/', import.meta.url);

export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.SCREENSHOTS !== '1') return;
  mkdirSync(DIR, { recursive: true });
  // The view made as tall as the page, from its top: a full-page capture of a page scrolled down (a
  // field further down focused) draws its sticky header and notices mid-page.
  const view = page.viewportSize();
  await page.evaluate('window.scrollTo(0, 0)');
  const height = Number(await page.evaluate('document.documentElement.scrollHeight'));
  if (view && height > view.height) await page.setViewportSize({ width: view.width, height });
  await page.screenshot({ path: new URL(`${name}.png`, DIR).pathname, fullPage: true });
  if (view && height > view.height) await page.setViewportSize(view);
}
