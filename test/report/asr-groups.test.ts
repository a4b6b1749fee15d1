import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { asrGroupKey, asrGroups } from "../../src/report/asr-groups.js";
import { buildReportModel, renderReportHtml } from "../../src/report/index.js";
import { buildCommitteeFixture } from "./fixture.js";

// red team 36 H2: model "M | x" under "c1" and model "M" under "x | c1" made one row and overlapping chart bars
describe("the attack-success groups are (model, condition) tuples, with distinct labels", () => {
  it("two tuples that print the same are two groups, the second numbered", () => {
    const g = asrGroups([{ model: "M | x", condition: "c1" }, { model: "M", condition: "x | c1" }, { model: "M", condition: "x | c1" }, { model: "P", condition: "A" }], true);
    expect(g.map((x) => [x.model, x.condition, x.label])).toEqual([
      ["M", "x | c1", "M | x | c1"],
      ["M | x", "c1", "M | x | c1 (2)"],
      ["P", "A", "P | A"],
    ]);
    expect(asrGroupKey(g[0])).not.toBe(asrGroupKey(g[1]));
  });

  it("a numbered label never takes a label another group prints", () => {
    const g = asrGroups([{ model: "a | b", condition: "c" }, { model: "a", condition: "b | c" }, { model: "a | b | c", condition: "(2)" }].map((x) => x), true);
    // "a | b | c | (2)" is not "a | b | c (2)", so no clash; labels are unique in any case
    expect(new Set(g.map((x) => x.label)).size).toBe(3);
    const h = asrGroups([{ model: "m", condition: "c" }, { model: "m", condition: "c" }], false);
    expect(h.map((x) => x.label)).toEqual(["m"]);
  });

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-asrgroups-"));
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it("the report's table has one row per tuple and both charts one bar group per tuple", async () => {
    const fx = await buildCommitteeFixture(tmp);
    const m = await buildReportModel({ runDir: fx.runDir, run: fx.run, bootstrap: { B: 50, seed: 3 } });
    const keys = [...new Set(m.asr.map((r) => asrGroupKey(r)))];
    expect(keys.length).toBeGreaterThanOrEqual(2);
    // rename the first two groups into a colliding pair
    const names = [
      { model: "M | x", condition: "c1" },
      { model: "M", condition: "x | c1" },
    ];
    const asr = m.asr.map((r) => {
      const i = keys.indexOf(asrGroupKey(r));
      return i < 2 ? { ...r, ...names[i] } : r;
    });
    const html = await renderReportHtml({ ...m, asr });
    const sec = html.slice(html.indexOf('<section id="asr">'), html.indexOf("</section>", html.indexOf('<section id="asr">')));
    const rows = sec.slice(sec.indexOf("<tbody>")).match(/<tr>.*?<\/tr>/gs)!;
    expect(rows.filter((r) => r.startsWith("<tr><td><bdi>M | x</bdi> <span")).length).toBe(1);
    expect(rows.filter((r) => r.startsWith("<tr><td><bdi>M</bdi></td><td><bdi>x | c1</bdi></td>")).length).toBe(1);
    expect(rows.length).toBe(new Set(asr.map((r) => asrGroupKey(r))).size);
    expect(sec).toContain("(in the charts: <bdi>M | x | c1 (2)</bdi>)");
    for (const rate of ["asr_goal", "asr_behaviour"]) {
      const i = sec.indexOf(`id="chart-${rate}"`);
      if (i < 0) continue;
      const fig = sec.slice(i, sec.indexOf("</figure>", i));
      expect(fig).toContain("agent model: M | x | c1;");
      expect(fig).toContain("agent model: M | x | c1 (2);");
    }
    expect(sec).toContain('id="chart-asr_behaviour"');
  }, 120_000);
});
