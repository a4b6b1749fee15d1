/**
 * The view shows what label's summary and report say of a judge (fix 39): a banner per judge where its labels are
 * (/api/meta for the list, /api/item for a trajectory's page), with the rate caveat's LOOKS BROKEN mark, the health
 * warning, crashes, stale verdicts and repeated keys, from the same functions (`judgeHealth`, `rateCaveat`,
 * `healthWarnings`, `crashedItems`); and a note on each verdict that is an error and on each judge that crashed on the
 * trajectory. A real server on 127.0.0.1 over a run folder written here. Requires the built page (`npm run build`).
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openView, type ViewServer } from "../../src/view/index.js";
import { judgeHealth, healthWarnings } from "../../src/verdict/health.js";
import { rateCaveat, rateCaveatMarker } from "../../src/verdict/rate-caveat.js";
import type { Verdict } from "../../src/types.js";
import { req } from "../helpers/view-http.js";
import { chromium } from "playwright-core";
import { CHROMIUM, CHROMIUM_ARGS } from "../report/chromium.js";
import { resource } from "../helpers/paths.js";

const browser = resource(CHROMIUM, "Chromium (for the view's browser test)", "apt-get install chromium, or set IPI_CHROMIUM=<binary>, to run this");

let tmp: string;
let runDir: string;
let server: ViewServer;
const N = 12;
const ids = Array.from({ length: N }, (_, i) => `t${i}`);
const sha = (id: string) => createHash("sha256").update(id).digest("hex");
const verdicts: Verdict[] = [];

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-view-health-"));
  runDir = path.join(tmp, "run");
  fs.mkdirSync(runDir);
  fs.writeFileSync(path.join(runDir, "trajectories.jsonl"), ids.map((id) => JSON.stringify({ id, content_sha256: sha(id), attacked: true, agent_model: "m" })).join("\n") + "\n");
  const base = (id: string, judge: string) => ({ trajectory_id: id, judge_id: judge, judge_model: `${judge}-model`, judge_family: "x", repeat: 0, prompt_sha256: "p", content_sha256: sha(id), attacked: true });
  for (const id of ids) {
    // "liar": every claim downgraded, its quotes never verify (mostly_downgraded, quotes_rarely_verify: LOOKS BROKEN)
    if (id === "t0") verdicts.push({ ...base(id, "liar"), status: "judge_error", label: null, error: { kind: "unparseable", message: "no JSON object in the reply" } } as unknown as Verdict);
    else
      verdicts.push({
        ...base(id, "liar"), status: "ok", label: "unaffected", label_claimed: "full_compliance", downgraded: true, label_basis: "exposure_found",
        findings: [{ bucket: "full_compliance", holds: false, evidence: [{ message_index: 1, quote: "invented", verified: false, reason: "not found" }] }],
      } as unknown as Verdict);
    // "good": healthy, but it crashed on t1 (no verdict there) and its verdict on t2 was made on an older text
    // "dup": one reply that gave a JSON key twice (repeated_key), the report's note
    verdicts.push({ ...base(id, "dup"), ...(id === "t4" ? { status: "judge_error", label: null, error: { kind: "repeated_key", message: "label given twice" } } : { status: "ok", label: "unaffected", label_basis: "judge" }) } as unknown as Verdict);
    if (id === "t1") continue;
    verdicts.push({ ...base(id, "good"), status: "ok", label: "unaffected", label_basis: "judge", ...(id === "t2" ? { content_sha256: sha("an older text") } : {}) } as unknown as Verdict);
  }
  fs.writeFileSync(path.join(runDir, "verdicts.jsonl"), verdicts.map((v) => JSON.stringify(v)).join("\n") + "\n");
  const crash = { path: "x.json", kind: "judge_crash", message: "judge good failed on t1: analysis took longer than the 60 s time limit", trajectory_id: "t1", judge_id: "good", repeat: 0, verdict_seq: 5 };
  // a crash judged since (a verdict of good on t3 exists): not a current crash
  const old = { ...crash, trajectory_id: "t3", message: "judge good failed on t3: boom" };
  fs.writeFileSync(path.join(runDir, "errors.jsonl"), [crash, old].map((e) => JSON.stringify(e)).join("\n") + "\n");
  server = (await openView({ runDir, sourceRoot: tmp })).server;
}, 60_000);

afterAll(async () => {
  await server?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

const json = async (p: string) => JSON.parse((await req(server, p)).body);
type Banner = { judge_id: string; level: string; marker: string; lines: string[]; health: string };

describe("judge health in the view (fix 39)", () => {
  it("/api/meta has a banner per judge: the broken judge's rate caveat and health warning, the same words as label and report", async () => {
    const meta = await json("/api/meta");
    const liar = (meta.judge_health as Banner[]).find((b) => b.judge_id === "liar")!;
    // the same functions over the same verdicts (the current ones: all of liar's)
    const h = judgeHealth(verdicts.filter((v) => v.judge_id === "liar"))[0];
    const c = rateCaveat(h)!;
    expect(c).not.toBeNull();
    expect(liar.level).toBe("broken");
    expect(liar.marker).toBe(rateCaveatMarker([c]).trim());
    expect(liar.marker).toBe('[JUDGE "liar" LOOKS BROKEN: see the warning]');
    expect(liar.lines[0]).toBe(`${liar.marker} ${c.message}`);
    expect(liar.lines).toContain(healthWarnings([h])[0]);
    expect(liar.lines.join("\n")).toMatch(/quotes_rarely_verify|mostly_downgraded/);
  });

  it("the crashing judge's banner counts its current crashes (one judged since is not), and its stale verdict", async () => {
    const good = ((await json("/api/meta")).judge_health as Banner[]).find((b) => b.judge_id === "good")!;
    expect(good.level).toBe("warning");
    expect(good.marker).toBe("");
    expect(good.lines).toEqual([
      'judge "good" crashed on 1 trajectory(ies): no verdict of it there (errors.jsonl kind judge_crash; the same label command judges them again), so its rates are over the others',
      '1 verdict(s) of judge "good" were made on an older text of their trajectory and are left out, as every command leaves them out (label again with this judge)',
    ]);
  });

  it("a judge whose reply gave a JSON key twice has the report's note in its banner", async () => {
    const dup = ((await json("/api/meta")).judge_health as Banner[]).find((b) => b.judge_id === "dup")!;
    expect(dup.lines).toEqual(['judge "dup": 1 last reply gave a JSON key twice with different values (repeated_key: 1 judge error(s); e.g. t4)']); // the judge quoted (out51)
    expect(dup.health).toContain("repeated_key");
  });

  it("a trajectory whose verdict is an error carries the note and its judge's banner", async () => {
    const item = await json("/api/item?id=t0");
    expect(item.judge_notes).toEqual([{ judge_id: "liar", repeat: 0, kind: "error", text: "judge_error (unparseable): no JSON object in the reply" }]);
    expect((item.judge_health as Banner[]).map((b) => b.judge_id)).toEqual(["dup", "good", "liar"]);
  });

  it("a trajectory a judge crashed on says so where its verdict would be; one judged since says nothing", async () => {
    const item = await json("/api/item?id=t1");
    expect(item.verdicts.map((v: { judge_id: string }) => v.judge_id)).toEqual(["dup", "liar"]);
    expect(item.judge_notes).toEqual([{ judge_id: "good", repeat: 0, kind: "crash", text: "crashed on this trajectory, no verdict: judge good failed on t1: analysis took longer than the 60 s time limit" }]);
    expect((await json("/api/item?id=t3")).judge_notes).toEqual([]);
  });

  it("the other run's judges (side by side) have their banners too", async () => {
    const s = (await openView({ runDir, otherDir: runDir, sourceRoot: tmp })).server;
    try {
      const meta = JSON.parse((await req(s, "/api/meta")).body);
      expect((meta.other.judge_health as Banner[]).find((b) => b.judge_id === "liar")?.marker).toBe('[JUDGE "liar" LOOKS BROKEN: see the warning]');
    } finally {
      await s.close();
    }
  });

  it("the page's script draws the banners and the notes", () => {
    const js = fs.readFileSync(path.resolve(__dirname, "../../dist/view/assets/app.js"), "utf8");
    expect(js).toContain("judge-banners");
    expect(js).toContain("judge-note");
  });
});

describe.skipIf(browser.skip)("judge health on the page, in a browser (fix 39)", () => {
  it("the list shows the banners above the judges' labels; a trajectory's page the error note and the crash", async () => {
    const profile = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-view-health-chromium-"));
    const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    try {
      const page = context.pages()[0] ?? (await context.newPage());
      const errors: string[] = [];
      page.on("console", (m) => {
        if (m.type() === "error") errors.push(m.text());
      });
      await page.goto(server.url);
      await page.waitForSelector(".row");
      const liar = page.locator('.judge-banners .judge-health.broken[data-judge="liar"]');
      expect(await liar.locator(".mark").textContent()).toBe(' [JUDGE "liar" LOOKS BROKEN: see the warning]');
      expect(await page.locator('.judge-banners .judge-health[data-judge="good"]').textContent()).toContain("crashed on 1 trajectory(ies)");
      expect(await page.locator(".row .chip[title*=\"LOOKS BROKEN\"]").count()).toBeGreaterThan(0);
      await page.goto(server.url.replace(/\?token=.*/, "#/t/t0"));
      await page.waitForSelector(".verdict");
      expect(await page.locator('.verdict .judge-note.error[data-judge="liar"]').textContent()).toContain("judge_error (unparseable): no JSON object in the reply");
      await page.goto(server.url.replace(/\?token=.*/, "#/t/t1"));
      await page.waitForSelector('.judge-note.crash[data-judge="good"]');
      expect(await page.locator('.judge-note.crash[data-judge="good"]').textContent()).toContain("crashed on this trajectory, no verdict");
      expect(errors).toEqual([]);
    } finally {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    }
  }, 60_000);
});
