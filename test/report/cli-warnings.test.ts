/**
 * Review 16 item 4: the HTML report carries every warning `compare` prints about the figures it shows (its rates by
 * condition keep every cell, as `compare --all-cells`): models run on different task sets, conditions covering
 * different cells, utility over other suites. Over the run read as columns and as objects (`--where`).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { DATA } from "../helpers/paths.js";

let dir: string;
let labels: string;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-report-cliw-"));
  labels = path.join(dir, "labels");
  expect((await runCli(["label", path.join(DATA, "agentdojo-defenses"), "--run", "d", "--labels-dir", labels, "--json"])).code).toBe(0);
}, 120_000);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const reportWarnings = (file: string): string[] =>
  [...fs.readFileSync(file, "utf8").matchAll(/<div class="warn">([\s\S]*?)<\/div>/g)].map((m) =>
    m[1].replace(/<[^>]+>/g, "").replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&"),
  );

describe("report carries compare's warnings over the same figures", () => {
  for (const where of [[], ["--where", "suite=banking,slack,travel,workspace"]]) {
    it(`every warning of compare --all-cells is in the report${where.length ? " (--where: the object path)" : ""}`, async () => {
      const cmp = await runCli(["compare", "--run", "d", "--labels-dir", labels, "--all-cells", "--bootstrap", "0", "--json", ...where]);
      expect(cmp.code).toBe(0);
      const cw: string[] = JSON.parse(cmp.stdout).warnings.filter((w: string) => !w.startsWith("where:"));
      expect(cw.some((w) => w.startsWith("the models were run on different task sets"))).toBe(true);
      const out = path.join(dir, `r${where.length}.html`);
      expect((await runCli(["report", "--run", "d", "--labels-dir", labels, "--out", out, ...where])).code).toBe(0);
      const rw = reportWarnings(out);
      for (const w of cw) expect(rw.some((r) => r.includes(w.replace(/^--all-cells: /, ""))), w).toBe(true);
    }, 60_000);
  }
});
