import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runInputsAndCosts } from "../../src/report/run-inputs.js";

describe("runInputsAndCosts", () => {
  it("counts tokens over the same verdicts as the cost (every repeat), with the verdicts and repeats they cover (new-user report 31, L1)", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-run-inputs-"));
    try {
      const v = (judge_id: string, repeat: number, p: number, c: number, usd: number | null) => ({ judge_id, repeat, cost_usd: usd, usage: { prompt_tokens: p, completion_tokens: c } });
      const { inputs, costs } = runInputsAndCosts(dir, [v("a", 0, 100, 10, 0.1), v("a", 1, 120, 12, 0.2), v("b", 0, 50, 5, null)]);
      expect(inputs).toEqual([]);
      const a = costs.per_judge.find((j) => j.judge_id === "a")!;
      expect(a).toMatchObject({ verdicts: 2, repeats: 2, usage: { prompt_tokens: 220, completion_tokens: 22 } });
      expect(a.cost.usd).toBeCloseTo(0.3, 10);
      const b = costs.per_judge.find((j) => j.judge_id === "b")!;
      expect(b).toMatchObject({ verdicts: 1, repeats: 1, usage: { prompt_tokens: 50, completion_tokens: 5 } });
      expect(b.cost.incomplete).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
