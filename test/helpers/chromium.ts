// Browser tests on Debian's Chromium through playwright-core: launch, a page that records console
// errors, signing in through the real identity provider's pages, and an axe-core check.
// Without a browser the tests skip saying why, except under CI=true, where a missing browser fails
// the run (.ci/run installs the `chromium` package).
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Why the browser tests cannot run here, or false when they can (throws under CI=true). */
export function browserUnavailable(): string | false {
  if (existsSync(CHROMIUM_PATH)) return false;
  const reason = `no Chromium at ${CHROMIUM_PATH} (install the \`chromium\` package, or set CHROMIUM_PATH)`;
  if (process.env.CI === 'true') throw new Error(`CI=true and ${reason}`);
  return reason;
}

const BUILT = new URL('../../web/dist/app/index.html', import.meta.url);

/**
 * The browser tests of a process share one Chromium: the browser files run in one process
 * (test/run.ts puts them all in one shard), and each launch cost ~1 s of a small machine's CPU. Each file still
 * works in contexts of its own (openPage: own cookies and storage), so nothing leaks between files.
 * `launchBrowser()` hands out the shared browser; the `close()` of what it hands out releases it,
 * and the last release closes Chromium after a short grace, unless the next file takes it first
 * (a ref'd timer, so the process ends only once Chromium is closed).
 */
let shared: Promise<Browser> | undefined;
let holders = 0;
let closing: NodeJS.Timeout | undefined;
// In a shard of test/run.ts the browser files share a process with others, which the runner
// orders by name between them: a longer grace keeps Chromium across the files in between (the
// runner's --test-force-exit ends the process, and Playwright's exit handler its Chromium).
const CLOSE_GRACE_MS = process.env.SIGSVC_TEST_SHARD === '1' ? 60_000 : 3_000;

export interface SharedBrowser {
  newContext: Browser['newContext'];
  newPage: Browser['newPage'];
  /** Releases this file's hold on the shared browser. */
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<SharedBrowser> {
  if (!existsSync(BUILT)) throw new Error('The web apps are not built: run `npm run build:web` (npm install does).');
  clearTimeout(closing);
  shared ??= chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: FLAGS, timeout: 60_000 }).catch((err: unknown) => {
    shared = undefined;
    throw err;
  });
  const browser = await shared;
  holders++;
  let released = false;
  return {
    newContext: (options) => browser.newContext(options),
    newPage: (options) => browser.newPage(options),
    async close() {
      if (released) return;
      released = true;
      holders--;
      if (holders > 0) return;
      closing = setTimeout(() => {
        shared = undefined;
        void browser.close();
      }, CLOSE_GRACE_MS);
    },
  };
}

export interface TestPage {
  context: BrowserContext;
  page: Page;
  /** Console errors and uncaught page errors seen so far. */
  errors: string[];
}

/** A page in a fresh context (own cookies), recording console errors. */
export async function openPage(
  browser: SharedBrowser,
  opts: { viewport?: { width: number; height: number }; colorScheme?: 'light' | 'dark' } = {},
): Promise<TestPage> {
  const context = await browser.newContext({
    viewport: opts.viewport ?? { width: 1280, height: 860 },
    colorScheme: opts.colorScheme ?? 'light',
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  context.setDefaultTimeout(20_000);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(msg.text());
  });
  page.on('pageerror', (err) => errors.push(`page error: ${err.message}`));
  return { context, page, errors };
}

/**
 * Opens `url` (an app page), signs in on the identity provider's pages as a person would, and
 * waits until the app shows its shell.
 */
export async function signInThroughApp(page: Page, url: string, creds: { email: string; password: string; otp?: () => string }): Promise<void> {
  await page.goto(url);
  await page.getByLabel('Email').fill(creds.email);
  await page.getByLabel('Password').fill(creds.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  if (creds.otp) {
    await page.getByLabel('Code from your authenticator app').fill(creds.otp());
    await page.getByRole('button', { name: 'Verify' }).click();
  }
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/**
 * Runs axe-core on the page and returns its serious and critical violations. axe is evaluated
 * through the DevTools protocol, which the page's CSP (script-src 'self') does not govern, so the
 * policy under test stays on.
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  // Loaded once per document (~0.5 MB to parse and compile each time): a page of the single-page
  // apps keeps it across its routes; a full navigation starts a document without it.
  if (!(await page.evaluate(`typeof axe !== 'undefined'`))) await page.evaluate(`${axeSource}\n;undefined`);
  // A string, evaluated in the page: this file is type-checked for Node, without the DOM's types.
  const found = (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((r) =>
    r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => JSON.stringify(n.target)) })))`)) as AxeViolation[];
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
