/** A run's stored judge crashes as summary.json counts them (src/store/stored-crashes.ts): nothing guessed. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { storedJudgeCrashes } from "../../src/store/stored-crashes.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-stored-crashes-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const run = (name: string, summary?: string) => {
  const d = path.join(tmp, name);
  fs.mkdirSync(d);
  if (summary !== undefined) fs.writeFileSync(path.join(d, "summary.json"), summary);
  return d;
};

describe("storedJudgeCrashes", () => {
  it("per judge with crashes: its crashes and verdicts; judges without crashes left out", () => {
    const s = { judges: [{ judge_id: "a", judge_crashes: 3, health: { verdicts: 9 } }, { judge_id: "b", health: { verdicts: 4 } }, { judge_id: "c", judge_crashes: 2 }] };
    expect([...storedJudgeCrashes(run("ok", JSON.stringify(s)))]).toEqual([["a", { crashed: 3, verdicts: 9 }], ["c", { crashed: 2, verdicts: 0 }]]);
  });
  it("no summary.json, an unreadable one, or one without judges: empty", () => {
    expect(storedJudgeCrashes(run("none")).size).toBe(0);
    expect(storedJudgeCrashes(run("bad", "{not json")).size).toBe(0);
    expect(storedJudgeCrashes(run("nojudges", "{}")).size).toBe(0);
  });
});

describe("storedJudgeCrashes: counts that are not counts (task s40)", () => {
  it("a fractional, negative or string crash count is none; a verdict count that is not a count reads 0", () => {
    const s = { judges: [{ judge_id: "a", judge_crashes: 1.5 }, { judge_id: "b", judge_crashes: -2 }, { judge_id: "c", judge_crashes: "3" }, { judge_id: "d", judge_crashes: 2, health: { verdicts: 0.5 } }] };
    expect([...storedJudgeCrashes(run("odd", JSON.stringify(s)))]).toEqual([["d", { crashed: 2, verdicts: 0 }]]);
  });
});
