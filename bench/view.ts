/**
 * `ipi-judge view` on a 40,000-trajectory run (a one-off measurement, not a test): how long the command takes to
 * load the run and print its URL, how long the list page takes to show its first rows in headless Chromium, how
 * many rows the page holds (it must hold only those in view), how long a jump to the middle of the list takes, how
 * many bytes the list requests carry, and the server's peak RSS.
 *
 * The run: the verdicts and index rows of a labelled run (`--base`, e.g. the 11,384 AgentDojo-scale runs labelled by
 * the signature judge), copied with the ids suffixed `~r<k>` until `--n` rows (the sources stay the same files, so
 * every trajectory page still opens).
 * Usage: `npm run build && node --import tsx bench/view.ts --base labels/scale --n 40000 [--out /tmp/view-bench]`.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const arg = (name: string, dflt?: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const base = path.resolve(arg("base") ?? "");
const n = Number(arg("n", "40000"));
const out = path.resolve(arg("out", path.join(os.tmpdir(), "ipi-view-bench"))!);
if (!fs.existsSync(path.join(base, "verdicts.jsonl"))) throw new Error(`--base ${base}: not a run folder (no verdicts.jsonl)`);

/** Copy the base run with suffixed ids until `n` trajectories. */
function buildRun(): string {
  const dir = path.join(out, "labels", "view40k");
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const index = fs.readFileSync(path.join(base, "trajectories.jsonl"), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
  const verdicts = fs.readFileSync(path.join(base, "verdicts.jsonl"), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
  const byId = new Map<string, unknown[]>();
  for (const v of verdicts) byId.set(v.trajectory_id, [...(byId.get(v.trajectory_id) ?? []), v]);
  const ti = fs.openSync(path.join(dir, "trajectories.jsonl"), "w");
  const vi = fs.openSync(path.join(dir, "verdicts.jsonl"), "w");
  let made = 0;
  for (let k = 0; made < n; k++) {
    for (const row of index) {
      if (made >= n) break;
      const id = `${row.id}~r${k}`;
      fs.writeSync(ti, JSON.stringify({ ...row, id }) + "\n");
      for (const v of (byId.get(row.id) ?? []) as Array<Record<string, unknown>>) fs.writeSync(vi, JSON.stringify({ ...v, trajectory_id: id }) + "\n");
      made++;
    }
  }
  fs.closeSync(ti);
  fs.closeSync(vi);
  fs.copyFileSync(path.join(base, "store.json"), path.join(dir, "store.json"));
  return dir;
}

const dir = buildRun();
const bytes = fs.statSync(path.join(dir, "verdicts.jsonl")).size;
const t0 = performance.now();
const child = spawn(process.execPath, [path.join(ROOT, "dist/bin/ipi-judge.js"), "view", "--run", "view40k", "--labels-dir", path.dirname(dir), "--no-open"], { stdio: ["ignore", "pipe", "inherit"] });
const url = await new Promise<string>((resolve) => {
  let s = "";
  child.stdout!.on("data", (d) => {
    s += d;
    if (s.includes("\n")) resolve(s.split("\n")[0]);
  });
});
const startMs = performance.now() - t0;
const profile = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-view-bench-chromium-"));
const ctx = await chromium.launchPersistentContext(profile, { executablePath: process.env.IPI_CHROMIUM ?? "/usr/bin/chromium", headless: true, args: ["--headless", "--no-sandbox", "--disable-gpu"], viewport: { width: 1280, height: 900 } });
const page = ctx.pages()[0] ?? (await ctx.newPage());
let listBytes = 0;
let listRequests = 0;
page.on("response", async (r) => {
  if (r.url().includes("/api/list")) {
    listRequests++;
    listBytes += (await r.body()).length;
  }
});
const t1 = performance.now();
await page.goto(url);
await page.waitForFunction(() => document.querySelectorAll(".row").length > 0 && /^\d+ of \d+/.test(document.querySelector("#count")?.textContent ?? ""));
const openMs = performance.now() - t1;
const rowsInDom = await page.locator(".row").count();
const count = await page.locator("#count").textContent();
const t2 = performance.now();
await page.evaluate(() => {
  const l = document.getElementById("list")!;
  l.scrollTop = l.scrollHeight / 2;
});
await page.waitForFunction(() => {
  const l = document.getElementById("list")!;
  const top = l.scrollTop;
  return [...document.querySelectorAll<HTMLElement>(".row")].some((r) => Math.abs(r.offsetTop - top) < 60);
});
const scrollMs = performance.now() - t2;
const rowsAfter = await page.locator(".row").count();
const t3 = performance.now();
await page.selectOption('select[name="label.signature"]', "full_compliance");
await page.waitForFunction((total) => {
  const t = document.querySelector("#count")?.textContent ?? "";
  return /^\d+ of \d+/.test(t) && !t.startsWith(`${total} of`);
}, n);
const filterMs = performance.now() - t3;
const filtered = await page.locator("#count").textContent();
const status = fs.readFileSync(`/proc/${child.pid}/status`, "utf8");
const hwm = /VmHWM:\s+(\d+) kB/.exec(status)?.[1];
await ctx.close();
child.kill("SIGTERM");
fs.rmSync(profile, { recursive: true, force: true });
console.log(
  JSON.stringify(
    {
      trajectories: n,
      verdicts_jsonl_mb: +(bytes / 1e6).toFixed(1),
      command_to_url_ms: Math.round(startMs),
      page_open_to_first_rows_ms: Math.round(openMs),
      count,
      rows_in_dom: rowsInDom,
      jump_to_middle_ms: Math.round(scrollMs),
      rows_in_dom_after_jump: rowsAfter,
      filter_ms: Math.round(filterMs),
      filtered,
      list_requests: listRequests,
      list_bytes: listBytes,
      server_peak_rss_mb: hwm ? Math.round(Number(hwm) / 1024) : null,
    },
    null,
    2,
  ),
);
