/**
 * Headless Chromium for the report tests: Debian's `chromium` package driven by playwright-core, with a fresh
 * profile in a temporary folder and every network request other than the page's own file refused (and
 * recorded), so a test proves the report loads nothing from the network.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";

/** Where the Debian package puts the browser (`apt-get install chromium`). */
export const CHROMIUM = process.env.IPI_CHROMIUM ?? "/usr/bin/chromium";

/** The launch flags: headless, no sandbox (containers), and nothing that phones home. */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** An open page with what it logged and what it tried to fetch. */
export interface OpenedPage {
  context: BrowserContext;
  page: Page;
  consoleErrors: string[];
  pageErrors: string[];
  /** URLs requested that are not the page's own file (all of them were refused). */
  blockedRequests: string[];
  close(): Promise<void>;
}

/**
 * Open an HTML file in headless Chromium with a fresh `--user-data-dir`.
 * @throws Error naming the install command when the browser is missing.
 */
export async function openInChromium(file: string, viewport = { width: 1360, height: 1000 }): Promise<OpenedPage> {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} not found: install it with apt-get update && apt-get install -y chromium (or set IPI_CHROMIUM)`);
  }
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport,
    offline: true,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const consoleErrors: string[] = [];
  const pageErrors: string[] = [];
  const blockedRequests: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") consoleErrors.push(m.text());
  });
  page.on("pageerror", (e) => pageErrors.push(String(e)));
  const own = new URL(`file://${path.resolve(file)}`).href;
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (url === own) return route.continue();
    blockedRequests.push(url);
    return route.abort();
  });
  await page.goto(own, { waitUntil: "load" });
  return {
    context,
    page,
    consoleErrors,
    pageErrors,
    blockedRequests,
    async close() {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}
