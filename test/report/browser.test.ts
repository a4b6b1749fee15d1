/**
 * The report in a real browser: headless Chromium (Debian's package, driven by playwright-core) opens the report of
 * a committee run with human labels, offline, with every network request refused. It must render with no console
 * error, show its charts, open a disputed trajectory with highlighted evidence, and show the hostile trajectory's
 * payload as text without running it. Screenshots go to test-artifacts/ (git-ignored).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeReport } from "../../src/report/index.js";
import { buildCommitteeFixture, HOSTILE_ID, PAYLOAD } from "./fixture.js";
import { CHROMIUM, openInChromium, type OpenedPage } from "./chromium.js";
import { resource, ROOT } from "../helpers/paths.js";

/** Without the browser every test here is skipped with this reason (CI installs it and refuses the skip). */
const browser = resource(CHROMIUM, "Chromium (for the report's browser test)", "apt-get install chromium, or set IPI_CHROMIUM=<binary>, to run this");

const ARTIFACTS = path.join(ROOT, "test-artifacts");
let tmp: string;
let report: string;
let opened: OpenedPage;

beforeAll(async () => {
  if (browser.skip) return;
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-browser-"));
  const fx = await buildCommitteeFixture(tmp);
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  report = path.join(ARTIFACTS, "report.html");
  await writeReport({ runDir: fx.runDir, run: fx.run, humanFile: fx.humanFile, out: report, bootstrap: { B: 500, seed: 11 } });
  opened = await openInChromium(report);
}, 180_000);

afterAll(async () => {
  await opened?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe.skipIf(browser.skip)("the report in headless Chromium", () => {
  it("renders with no console error and requests nothing from the network", async () => {
    const { page } = opened;
    expect(await page.title()).toBe("ipi-judge report: committee");
    await expect.poll(() => page.locator("#item-count").textContent()).toMatch(/^\d+ of \d+ shown$/);
    expect(opened.consoleErrors).toEqual([]);
    expect(opened.pageErrors).toEqual([]);
    expect(opened.blockedRequests).toEqual([]);
    await page.screenshot({ path: path.join(ARTIFACTS, "report.png") });
  });

  it("shows the charts as rendered SVG", async () => {
    const { page } = opened;
    for (const id of ["chart-asr_goal", "chart-asr_behaviour", "chart-labels", "chart-tokens", "chart-forest"]) {
      const svg = page.locator(`#${id} svg`);
      await expect.poll(() => svg.count(), { message: id }).toBe(1);
      const box = await svg.boundingBox();
      expect(box!.width, id).toBeGreaterThan(100);
      expect(box!.height, id).toBeGreaterThan(50);
    }
    // bars of the asr_behaviour chart: one per (rater, model) with a label, and heatmaps against humans and the benchmark
    expect(await page.locator('#chart-asr_behaviour svg [aria-roledescription="bar"]').count()).toBeGreaterThanOrEqual(16);
    expect(await page.locator("#heatmaps-human svg").count()).toBe(4);
    expect(await page.locator("#heatmaps-reference svg").count()).toBe(4);
    expect(await page.locator("#conditions svg").count()).toBeGreaterThanOrEqual(1);
    await page.locator("#asr").screenshot({ path: path.join(ARTIFACTS, "report-asr.png") });
    await page.locator("#agreement").screenshot({ path: path.join(ARTIFACTS, "report-agreement.png") });
  });

  it("opens a disputed trajectory with every judge's verified quotes highlighted in place", async () => {
    const { page } = opened;
    await page.click('button[data-filter="disputed"]');
    const visible = page.locator("details.item:not(.hidden)");
    const n = await visible.count();
    expect(n).toBeGreaterThan(0);
    expect(await page.locator("details.item.hidden").count()).toBeGreaterThan(0);
    const first = visible.first();
    expect(await first.getAttribute("data-kind")).toBe("disputed");
    expect(await first.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
    await first.locator("summary").click();
    expect(await first.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(true);
    await expect.poll(() => first.locator(".traj .msg").first().isVisible()).toBe(true);
    const marks = first.locator("mark.q");
    expect(await marks.count()).toBeGreaterThan(0);
    expect(await marks.first().isVisible()).toBe(true);
    await first.screenshot({ path: path.join(ARTIFACTS, "report-disputed.png") });
    await page.click('button[data-filter="all"]');
    expect(await page.locator("details.item.hidden").count()).toBe(0);
  });

  it("filters the list by text", async () => {
    const { page } = opened;
    await page.fill("#item-search", "hostile");
    expect(await page.locator("details.item:not(.hidden)").count()).toBe(1);
    await page.fill("#item-search", "");
    expect(await page.locator("details.item.hidden").count()).toBe(0);
  });

  it("shows the hostile trajectory's payload as text and runs none of it", async () => {
    const { page } = opened;
    const item = page.locator(`details.item[data-search*="hostile"]`);
    await item.locator("summary").click();
    await expect.poll(() => item.locator(".msg.r-tool pre.pt").first().isVisible()).toBe(true);
    const text = await item.locator(".msg.r-tool pre.pt").first().innerText();
    expect(text).toContain(PAYLOAD);
    expect(await item.locator(".tid").innerText()).toBe(HOSTILE_ID);
    // the payload's highlight (lenient-a's and the signature judge's unaffected quote) is text inside a <mark>
    expect(await item.locator(".msg.r-tool mark.q").first().innerText()).toContain("<script>window.__xss=1</script>");
    expect(await page.evaluate(() => (window as unknown as { __xss?: unknown }).__xss)).toBeUndefined();
    expect(await page.locator("img, iframe, object, embed, textarea").count()).toBe(0);
    expect(await page.locator("script").count()).toBe(1);
    expect(opened.consoleErrors).toEqual([]);
    expect(opened.pageErrors).toEqual([]);
    await item.screenshot({ path: path.join(ARTIFACTS, "report-hostile.png") });
  });

  it("control: the harness does see network requests, script errors, and the page's CSP blocks foreign scripts", async () => {
    // A copy of the report with markup planted as if escaping had failed: the CSP must stop it, and the
    // harness must see the attempt (so the checks above could fail).
    const bad = path.join(tmp, "planted.html");
    const page0 = fs.readFileSync(report, "utf8");
    fs.writeFileSync(bad, page0.replace("<main>", '<main><img src="http://example.invalid/x.png"><script>window.__xss=9</script>'));
    const o = await openInChromium(bad);
    try {
      expect(await o.page.evaluate(() => (window as unknown as { __xss?: unknown }).__xss)).toBeUndefined();
      expect(o.consoleErrors.some((e) => /Content Security Policy/i.test(e))).toBe(true);
    } finally {
      await o.close();
    }
    const plain = path.join(tmp, "plain.html");
    fs.writeFileSync(plain, '<!doctype html><img src="http://example.invalid/y.png"><script>window.__ran=1;</script>');
    const p = await openInChromium(plain);
    try {
      expect(await p.page.evaluate(() => (window as unknown as { __ran?: unknown }).__ran)).toBe(1);
      expect(p.blockedRequests).toEqual(["http://example.invalid/y.png"]);
    } finally {
      await p.close();
    }
  });
});
