/**
 * A verdict line whose `repeat` is not one `label` could have written is no verdict (red team 39b: `"repeat": -1`
 * appended by hand was read and raised committee's health denominators; task s40: so were 1e9): a repeat index is an
 * integer 0 .. MAX_REPEATS-1 (`isVerdictRecord`, src/store/repeat-bound.ts), and every reader refuses the line naming
 * the file, the line and why. `label --repeats` takes at most MAX_REPEATS.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isVerdictRecord, readVerdicts } from "../../src/store/records.js";
import { MAX_REPEATS, repeatProblem } from "../../src/store/repeat-bound.js";
import { clearJournalSkips, takeJournalWarnings } from "../../src/store/skipped-lines.js";
import { runCli } from "../helpers/cli.js";
import { SAMPLES } from "../helpers/paths.js";

const line = (repeat: unknown) => ({ trajectory_id: "t", judge_id: "j", repeat, prompt_sha256: "p", status: "ok" });

describe("isVerdictRecord: the repeat index", () => {
  it("takes 0, 1, ... MAX_REPEATS-1; refuses a negative, fractional, non-number or out-of-bound repeat", () => {
    for (const r of [0, 1, 7, MAX_REPEATS - 1]) expect(isVerdictRecord(line(r))).toBe(true);
    for (const r of [-1, -0.5, 0.5, 1.5, "0", "3", null, undefined, MAX_REPEATS, 1e9, Number.MAX_SAFE_INTEGER]) expect(isVerdictRecord(line(r))).toBe(false);
    expect(repeatProblem(1e9)).toBe(`repeat 1000000000 is not a repeat label writes (an integer from 0 to ${MAX_REPEATS - 1}: --repeats is at most ${MAX_REPEATS})`);
    expect(repeatProblem("3")).toMatch(/^repeat "3" is not a repeat label writes/);
  });

  it("a reader refuses such lines by file, line and why, and reads the rest", async () => {
    clearJournalSkips();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-repeat-"));
    try {
      const ok = { trajectory_id: "a", judge_id: "j", prompt_sha256: "p", status: "judge_error", label: null };
      fs.writeFileSync(path.join(dir, "trajectories.jsonl"), JSON.stringify({ id: "a", content_sha256: "s", attacked: true }) + "\n");
      const file = path.join(dir, "verdicts.jsonl");
      fs.writeFileSync(file, [0, 1e9, 1.5, "3", -1].map((repeat) => JSON.stringify({ ...ok, repeat })).join("\n") + "\n");
      expect((await readVerdicts(dir)).map((v) => v.repeat)).toEqual([0]);
      const w = takeJournalWarnings().filter((x) => x.startsWith(file));
      expect(w).toHaveLength(1);
      expect(w[0]).toContain("4 lines skipped (not a verdict record): lines 2, 3, 4, 5");
      expect(w[0]).toContain("line 2: repeat 1000000000 is not a repeat label writes");
      expect(w[0]).toContain("line 3: repeat 1.5 is not");
      expect(w[0]).toContain('line 4: repeat "3" is not');
      expect(w[0]).toContain("... (4 in all)"); // the first three reasons shown
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("label --repeats takes at most MAX_REPEATS", async () => {
    const r = await runCli(["label", SAMPLES, "--run", "x", "--labels-dir", path.join(os.tmpdir(), "ipi-repeat-none"), "--repeats", String(MAX_REPEATS + 1)]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/--repeats must be at most 100/);
  });
});
