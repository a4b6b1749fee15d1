/**
 * The sample's `tasks.jsonl`, the text the view shows for an item whose source changed since the sample was drawn
 * (break45): it was read with plain `JSON.parse`, a bad line skipped without a word and a key given twice read as its
 * last value, so the view could show one of two texts as "the one the sample was drawn with". Now such lines are
 * warnings naming file and line, and an item whose line is refused gets no drawn text, with the reason.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readDrawnTexts } from "../../src/view/drawn-text.js";
import { SampleStore } from "../../src/view/annotations.js";

const LABELS = ["full_compliance", "partial_compliance", "flagged_refusal", "task_refusal", "unaffected", "not_exposed"];
const items = [1, 2, 3].map((i) => ({ item_id: `s-00${i}`, trajectory_id: `t${i}`, stratum: "all", phase: 1, inclusion_probability: 1, weight: 1, content_sha256: `h${i}` }));
let dir: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-view-drawn-"));
  fs.writeFileSync(path.join(dir, "manifest.jsonl"), [{ ipi_judge_manifest: 1, run: "r", scale: "six", labels: LABELS, seed: 1, n_items: 3 }, ...items].map((x) => JSON.stringify(x)).join("\n") + "\n");
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const tasks = (lines: string[]) => fs.writeFileSync(path.join(dir, "tasks.jsonl"), lines.join("\n") + "\n");

describe("readDrawnTexts", () => {
  it("reads good lines; a line not JSON, not a task line, or with a repeated key is a warning naming file and line", () => {
    tasks([
      JSON.stringify({ item_id: "s-001", trajectory: "one" }),
      "{not json",
      JSON.stringify({ item_id: "s-009" }),
      '{"item_id": "s-002", "trajectory": "drawn", "trajectory": "other"}',
      "[1]",
    ]);
    const f = path.join(dir, "tasks.jsonl");
    const d = readDrawnTexts(f);
    expect([...d.texts]).toEqual([["s-001", "one"]]);
    expect(d.refused.get("s-002")).toMatch(/line 4: key "trajectory" given twice with different values \("drawn", then "other"\)/);
    expect(d.warnings).toEqual([
      `${f} line 2: not JSON, skipped`,
      `${f} line 3: not a task line (item_id, trajectory), skipped`,
      expect.stringMatching(/^.*tasks\.jsonl line 4: key "trajectory" given twice.*: item s-002's drawn text is not shown$/),
      `${f} line 5: not a task line (item_id, trajectory), skipped`,
    ]);
  });

  it("an item given twice with different texts gets neither; the same text twice is kept", () => {
    tasks([
      JSON.stringify({ item_id: "s-001", trajectory: "a" }),
      JSON.stringify({ item_id: "s-001", trajectory: "b" }),
      JSON.stringify({ item_id: "s-001", trajectory: "c" }),
      JSON.stringify({ item_id: "s-002", trajectory: "same" }),
      JSON.stringify({ item_id: "s-002", trajectory: "same" }),
    ]);
    const d = readDrawnTexts(path.join(dir, "tasks.jsonl"));
    expect(d.texts.get("s-001")).toBeUndefined();
    expect(d.texts.get("s-002")).toBe("same");
    expect(d.refused.get("s-001")).toMatch(/line 2: item s-001 has another text here than at line 1/);
    expect(d.warnings).toHaveLength(1);
  });

  it("no file: nothing, said by the caller", () => {
    expect(readDrawnTexts(path.join(dir, "nope.jsonl"))).toEqual({ texts: new Map(), refused: new Map(), warnings: [] });
  });
});

describe("the view's item whose source changed", () => {
  it("refuses a drawn text whose line repeats a key, says so, and the warning joins the sample's", async () => {
    tasks([JSON.stringify({ item_id: "s-001", trajectory: "one" }), '{"item_id": "s-002", "trajectory": "drawn", "trajectory": "other"}']);
    const logged: string[] = [];
    const s = new SampleStore(dir, async () => ({ error: "gone" }), (m) => logged.push(m));
    const a = await s.itemDoc("s-002");
    expect(a.doc).toBeNull();
    expect(a.drawn_text).toBeUndefined();
    expect(a.error).toMatch(/its line in the sample folder's tasks\.jsonl cannot be read/);
    expect(a.error).not.toContain(dir);
    expect(s.warnings.join("\n")).toMatch(/tasks\.jsonl line 2: key "trajectory" given twice/);
    expect(logged.join("\n")).toMatch(/item s-002: its drawn text is not shown: .*line 2/);
    expect((await s.itemDoc("s-001")).drawn_text).toBe("one");
  });
});
