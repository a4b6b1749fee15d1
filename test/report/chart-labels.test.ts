/**
 * Long labels in the report's charts (src/report/chart-labels.ts; new-user pass: a 200,000-character model name made
 * a 7 MB page): cut with the report's marker, the same text alike everywhere, two texts never merged.
 */
import { describe, expect, it } from "vitest";
import { CHART_LABEL_CHARS, cutChartLabels } from "../../src/report/chart-labels.js";
import { asrChart } from "../../src/report/charts.js";
import { cutLabel } from "../../src/serialize/display-cut.js";

const big = (tail: string) => "gpt-" + "x".repeat(200_000) + tail;

describe("cutChartLabels", () => {
  it("cuts every long string of a spec alike, keeps the rest, and keeps different texts apart", () => {
    const a = big("a");
    const b = big("b"); // same head and tail after the cut? the tail differs: b's label is its own
    const c = big("a").replace("gpt-", "gpt_"); // different head
    const same1 = "m-" + "z".repeat(300) + "!";
    const same2 = "m-" + "z".repeat(150) + "q" + "z".repeat(149) + "!"; // same head, tail and length: cut alike without the suffix
    const spec = { data: { values: [{ model: a, rater: "j" }, { model: b }, { model: c }, { model: same1 }, { model: same2 }, { model: "short" }] }, encoding: { x: { sort: [a, b, c, same1, same2, "short"] } } };
    const out = cutChartLabels(spec);
    const models = out.data.values.map((v) => v.model);
    expect(models[0]).toBe(cutLabel(a, CHART_LABEL_CHARS));
    expect(models[0]).toMatch(/^gpt-x+\[\.\.\. 199,885 characters not shown by ipi-judge \.\.\.\]x+a$/);
    expect(new Set(models).size).toBe(6);
    expect(models[4]).toBe(`${cutLabel(same2, CHART_LABEL_CHARS)} (2)`);
    expect(models[5]).toBe("short");
    // the sort order names the same labels as the data
    expect(out.encoding.x.sort).toEqual(models);
    expect(out.data.values[0].rater).toBe("j");
    // nothing long: the spec itself
    const small = { data: { values: [{ model: "m" }] } };
    expect(cutChartLabels(small)).toBe(small);
  });

  it("a chart of a 200,000-character model name: a few KB of SVG, the name cut, its bars apart from the others", async () => {
    const rows = [
      { model: big("a"), rater: "j", asr: 0.5, lower: 0.3, upper: 0.7, n: 10 },
      { model: big("b"), rater: "j", asr: 0.2, lower: 0.1, upper: 0.4, n: 10 },
    ];
    const svg = await asrChart(rows, ["j"], ["#000"]);
    expect(svg.length).toBeLessThan(40_000);
    expect(svg).not.toMatch(/x{1000}/);
    expect(svg).toContain("characters not shown by ipi-judge");
    expect(svg.match(/role="graphics-symbol" aria-roledescription="bar"/g)?.length).toBe(2);
  });
});
