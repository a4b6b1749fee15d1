/**
 * `trajectories.jsonl` is a journal: a trajectory read again from a moved folder (`src/store/source-moved.ts`), with a
 * changed reference or a renewed file stamp gets a second row, appended; nothing is rewritten in place (fixb54: a
 * moved folder of 516 files grows the index from 516 to 1,032 lines). Every reader of the index takes the latest row of
 * each id, so each trajectory counts once, with the row written last: this file checks each reader on such an index.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readTrajectoryIndex } from "../../src/store/records.js";
import { readIndexRows, readLeanIndex } from "../../src/store/lean-read.js";
import { readColumnIndex, rowOf } from "../../src/store/columns.js";
import { loadViewRun } from "../../src/view/run-data.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "index-superseded-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const row = (id: string, dir: string, model = "m") => ({
  id,
  content_sha256: `sha-${id}`,
  source: { path: `${dir}/${id}.json`, format: "agentdojo" },
  agent_model: model,
  suite: "banking",
  attacked: true,
});

describe("an index holding two rows of one id (a moved folder read again)", () => {
  const dir = path.join(tmp, "r");
  fs.mkdirSync(dir);
  // a, b, c read from ad/runs; then a and b again from mv/runs (the folder moved), and c's model renamed in its row
  const rows = [row("a", "ad/runs"), row("b", "ad/runs"), row("c", "ad/runs"), row("a", "mv/runs"), row("b", "mv/runs"), row("c", "ad/runs", "m2")];
  fs.writeFileSync(path.join(dir, "trajectories.jsonl"), rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
  const newest = { a: "mv/runs/a.json", b: "mv/runs/b.json", c: "ad/runs/c.json" };

  it("readTrajectoryIndex, readLeanIndex and readIndexRows: one row per id, the latest", async () => {
    for (const m of [await readTrajectoryIndex(dir), await readLeanIndex(dir, { source: true }), await readIndexRows(dir, new Set(["a", "b", "c"]))]) {
      expect([...m.keys()].sort()).toEqual(["a", "b", "c"]);
      for (const [id, p] of Object.entries(newest)) expect(m.get(id)!.source!.path).toBe(p);
      expect(m.get("c")!.agent_model).toBe("m2");
    }
  });

  it("the column index (agree, compare, estimate, sample, report): one slot per id, the latest row's fields", async () => {
    const idx = await readColumnIndex(dir, { rowFields: ["agent_model"] });
    expect(idx.nRows).toBe(3);
    expect(rowOf(idx as never, idx.ids.slotOf("c"))!.agent_model).toBe("m2");
  });

  it("the view: one row per id", async () => {
    const run = await loadViewRun(dir, { name: "r" });
    expect(run.rows.length).toBe(3);
    expect(run.byId.get("c")!.agent_model).toBe("m2");
  });
});
