import { describe, expect, it } from "vitest";
import { asrChart, type AsrBar } from "../../src/report/charts.js";

// new user 26: on VIGIL the asr chart drew a plain full bar at 100% over 87 of 433 runs; coverage_low was only in its tooltip
describe("the asr chart marks coverage-low and exposure-low bars where they are drawn", () => {
  const bar = (model: string, extra: Partial<AsrBar> = {}): AsrBar => ({ model, rater: "signature", asr: 0.5, lower: 0.4, upper: 0.6, n: 80, ...extra });
  const texts = (svg: string) => [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);

  it("LOW above a pale bar, † for EXPOSURE LOW, and a title line that says what they mean", async () => {
    const svg = await asrChart([bar("qwen3-max", { asr: 1, lower: 0.96, upper: 1, coverage_low: true }), bar("gpt-4o", { exposure_low: true }), bar("llama")], ["signature"], ["#4c78a8"]);
    const t = texts(svg);
    expect(t).toContain("LOW");
    expect(t).toContain("†");
    // the title's lines are <tspan>s
    expect(svg).toContain("<tspan>LOW (pale bar): coverage below 80%");
    expect(svg).toContain(">†: EXPOSURE LOW, below 10%");
    expect(svg).toMatch(/fill-opacity="0\.35"|opacity="0\.35"/);
  });

  it("no mark and no title line when every bar is covered and exposed", async () => {
    const svg = await asrChart([bar("a"), bar("b")], ["signature"], ["#4c78a8"]);
    expect(texts(svg).filter((x) => x === "LOW" || x === "†")).toEqual([]);
    expect(svg).not.toContain("pale bar");
  });
});
