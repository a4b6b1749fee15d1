import { describe, expect, it } from "vitest";
import { quoted } from "../../src/format/quote-name.js";
import { healthWarnings, type JudgeHealth } from "../../src/verdict/health.js";

describe("quoted: names in label's summary warnings read unambiguously (session 48: unquoted)", () => {
  it("a name with spaces, a colon or a quote is one quoted, escaped string", () => {
    expect(quoted("gpt 4o: strict")).toBe('"gpt 4o: strict"');
    expect(quoted('a "b"')).toBe('"a \\"b\\""');
  });

  it("a judge's health warning names it quoted, as estimate and the provider errors do", () => {
    const h = { judge_id: "my judge, v2", judge_model: "m", looks_broken: true, stopped: true, flags: [{ code: "stopped", message: "no usable verdict" }] } as unknown as JudgeHealth;
    expect(healthWarnings([h])[0]).toMatch(/^judge "my judge, v2" \(m\) is stopped: no usable verdict/);
  });
});
