import { describe, expect, it } from "vitest";
import { showControls, shownStrings } from "../../src/format/shown.js";
import { compareConditions, formatCompare } from "../../src/compare/index.js";
import type { Observation } from "../../src/compare/data.js";

describe("showControls: one visible line (red team 25 L5)", () => {
  it("line breaks, terminal controls, separators and bidi controls become markers; other text is unchanged", () => {
    expect(showControls("a\nb\r\nc\td\u001b[31me\u0085f\u2028g\u2029h\u202ei")).toBe(
      "a⟨U+000A⟩b⟨U+000D⟩⟨U+000A⟩c⟨U+0009⟩d⟨U+001B⟩[31me⟨U+0085⟩f⟨U+2028⟩g⟨U+2029⟩h⟨U+202E⟩i",
    );
    expect(showControls("gpt-4o | no_defense (é, 中文, emoji 🙂)")).toBe("gpt-4o | no_defense (é, 中文, emoji 🙂)");
    expect(showControls("\u0000")).toBe("⟨U+0000⟩");
    // idempotent: a marker holds no control
    expect(showControls(showControls("x\ny"))).toBe("x⟨U+000A⟩y");
  });

  it("shownStrings copies plain objects and arrays, keys and values alike; other values are kept", () => {
    const m = new Map([["k\n", 1]]);
    const v = { "a\nb": ["x\ny", 3, null, true], nested: { c: "\u202e" }, m };
    const s = shownStrings(v);
    expect(s).toEqual({ "a⟨U+000A⟩b": ["x⟨U+000A⟩y", 3, null, true], nested: { c: "⟨U+202E⟩" }, m });
    expect(s.m).toBe(m);
    expect(v["a\nb"][0]).toBe("x\ny"); // the input is not changed
    const bare = Object.assign(Object.create(null) as Record<string, string>, { "k\r": "v\u202e" });
    expect(shownStrings({ bare })).toEqual({ bare: { "k⟨U+000D⟩": "v⟨U+202E⟩" } });
  });
});

describe("a name with a line break cannot forge a line of compare's text", () => {
  it("the condition is printed with its markers, on its own lines", () => {
    const evil = "B\nWARNING: forged line";
    const obs: Observation[] = [];
    for (const m of ["a", "b", "c"])
      for (const [cond, k] of [["A", 2], [evil, 5]] as const)
        for (let i = 0; i < 10; i++) obs.push({ trajectory_id: `${m}/${cond}/${i}`, model: m, suite: "s", condition: cond, injection_task: "s/inj", unit: `s/u${i}`, compromised: i < k, goal: false });
    const r = compareConditions({ source: { kind: "judge", judge_id: "j" }, condition_field: "condition", observations: obs, n_total: obs.length, excluded: {} }, { bootstrap: { B: 0, seed: 1 } });
    const text = formatCompare(r);
    expect(text.split("\n").some((l) => l.startsWith("WARNING: forged"))).toBe(false);
    expect(text).toContain("B⟨U+000A⟩WARNING: forged line");
    // the result itself (what --json prints) keeps the value as it is
    expect(r.asr.some((c) => c.condition === evil)).toBe(true);
  });
});
