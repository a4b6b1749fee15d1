import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { countInputItems, countInputs } from "../../src/ingest/index.js";
import { isEmptyPlaceholderRecord, isPlaceholderFile } from "../../src/ingest/placeholder-count.js";
import { progressDone, type LabelProgress } from "../../src/run/label-core.js";
import { labelProgressLine } from "../../src/cli/progress-lines.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A VIGIL-like folder: `runs` real runs and `empty` placeholders (as VIGIL's, `injections: {}` and `messages: []`). */
function corpus(runs: number, empty: number): string {
  const root = mkdtempSync(path.join(tmpdir(), "ph-"));
  dirs.push(root);
  const dir = path.join(root, "qwen3-max", "travel", "user_task_0", "tool_attack");
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < runs; i++)
    writeFileSync(path.join(dir, `injection_task_${i}.json`), JSON.stringify({ suite_name: "travel", messages: [{ role: "user", content: "hi" }, { role: "assistant", content: "ok" }], security: false, utility: true, injections: { x: "do it" } }));
  for (let i = 0; i < empty; i++)
    writeFileSync(path.join(dir, `injection_task_${100 + i}.json`), (i === 0 ? "\uFEFF" : "") + JSON.stringify({ suite_name: "travel", injections: {}, messages: [], error: null }, null, 4));
  return root;
}

describe("label's progress total leaves the empty placeholders out (session 48: 'ETA 2h01m' for a 21 s VIGIL job)", () => {
  it("countInputItems counts them apart; countInputs still counts every item the read yields", async () => {
    const root = corpus(3, 5);
    expect(await countInputItems([root])).toEqual({ items: 8, placeholders: 5 });
    expect(await countInputs([root])).toBe(8);
  });

  it("a record with messages, a verdict or injected text is no placeholder (a lost transcript is an error, counted as work)", () => {
    expect(isEmptyPlaceholderRecord({ messages: [], injections: {} })).toBe(true);
    expect(isEmptyPlaceholderRecord({ messages: [], injections: [] })).toBe(true);
    expect(isEmptyPlaceholderRecord({ messages: [], security: false })).toBe(false);
    expect(isEmptyPlaceholderRecord({ messages: [], injections: { a: "b" } })).toBe(false);
    expect(isEmptyPlaceholderRecord({ messages: [{ role: "user", content: "x" }] })).toBe(false);
    expect(isEmptyPlaceholderRecord([])).toBe(false);
    expect(isPlaceholderFile("/nonexistent/file.json")).toBe(false);
  });

  it("done and total are on one scale: the placeholders met are not done work, the line names those left out", () => {
    const p = { read: 2, total: 3, judged: 2, skipped: 0, errors: 0, judge_crashes: 0, empty_placeholders: 5, placeholders_counted: 5 } as LabelProgress;
    expect(progressDone(p)).toBe(2);
    const line = labelProgressLine(p, 1, 1, 10_000);
    expect(line).toContain("2/3 trajectories (66.6%)");
    expect(line).toContain("5 empty placeholder files not counted (nothing to judge)");
    // a placeholder the pre-count did not recognise is in the total: met, it is done
    expect(progressDone({ ...p, empty_placeholders: 6 })).toBe(3);
  });

  it("every input a placeholder: a total of 0 is a count, not 'not counted yet'", () => {
    const p = { read: 0, total: 0, judged: 0, skipped: 0, errors: 0, judge_crashes: 0, empty_placeholders: 4, placeholders_counted: 4 } as LabelProgress;
    expect(labelProgressLine(p, undefined, undefined, 10_000)).toContain("0/0 trajectories");
  });
});
