import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildObservations, type Observations } from "../../src/compare/data.js";
import { compareConditions } from "../../src/compare/index.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";
import { buildObservationsColumns, COMPARE_ROW_FIELDS } from "../../src/compare/data-columns.js";
import { readColumnRun } from "../../src/store/columns.js";
import { readLeanRun } from "../../src/store/lean-read.js";
import { clearNormalizedGroupValues } from "../../src/store/group-value-names.js";
import { clearJournalSkips, takeJournalWarnings } from "../../src/store/skipped-lines.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-cmpmeta-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const LABELS = ["full_compliance", "partial_compliance", "unaffected", "not_exposed"];

describe("compare --by metadata.KEY on columns (issue 26): the same observations and figures as on objects", () => {
  it("values unique per row beside the key, invisible characters, missing and non-string values, __proto__", async () => {
    let seed = 11;
    const rnd = (k: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % k;
    const rows: string[] = [];
    const verdicts: string[] = [];
    for (let i = 0; i < 1200; i++) {
      const id = `m/${i}`;
      const meta: Record<string, unknown> = { duration: i / 7, stamp: `t${i}` }; // unique per row
      const d = rnd(7);
      if (d < 3) meta.defense = ["none", "spotlight", "filter"][d];
      else if (d === 3) meta.defense = "spot\u200blight"; // the same group as spotlight, said once
      else if (d === 4) meta.defense = rnd(2) ? 2 : true; // numbers and booleans are strings
      else if (d === 5) meta.defense = rnd(2) ? { x: 1 } : ""; // no value
      const r: Record<string, unknown> = {
        id,
        content_sha256: "c",
        attacked: rnd(9) !== 0,
        agent_model: `model-${i % 3}`,
        suite: `s${i % 3 === 2 ? 1 : 0}`,
        condition: "no_defense",
        attack: ["important_instructions", "tool_knowledge"][rnd(2)],
        user_task_id: `user_task_${rnd(2)}`,
        injection_task_id: `injection_task_${rnd(2)}`,
        reference: { security: i % 3 === 0, utility: i % 3 === 1 },
      };
      if (rnd(15)) r.metadata = meta;
      else if (rnd(2)) r.metadata = null;
      let line = JSON.stringify(r);
      // a metadata "__proto__" key (JSON.parse reads it as an own key)
      if (i % 97 === 0) line = line.replace('"metadata":{', '"metadata":{"__proto__":"p","defense":"proto-row",');
      rows.push(line);
      if (rnd(12) === 0) continue;
      const status = rnd(8) ? "ok" : "judge_error";
      verdicts.push(JSON.stringify({ trajectory_id: id, judge_id: "a", judge_model: "m", repeat: 0, prompt_sha256: "p", status, label: status === "ok" ? LABELS[rnd(4)] : null, ...(rnd(2) ? { blocked_attempt: rnd(2) === 0 } : {}) }));
    }
    const dir = path.join(tmp, "run");
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, "trajectories.jsonl"), rows.join("\n") + "\n");
    fs.writeFileSync(path.join(dir, "verdicts.jsonl"), verdicts.join("\n") + "\n");
    const { index, verdicts: vs } = await readLeanRun(dir);
    const bare = await readColumnRun(dir, { rowFields: COMPARE_ROW_FIELDS });
    const whole = await readColumnRun(dir, { rowFields: [...COMPARE_ROW_FIELDS, "metadata"] });
    for (const field of ["metadata.defense", "metadata.__proto__", "metadata.nosuch"]) {
      const run = await readColumnRun(dir, { rowFields: [...COMPARE_ROW_FIELDS, field] });
      // the per-row values beside the key are not kept: at most as many row records as without the field times its
      // values, where the whole metadata makes one per row
      expect(run.rows.length).toBeLessThanOrEqual(bare.rows.length * 9);
      expect(whole.rows.length).toBeGreaterThan(1000);
      expect(run.rows.length).toBeLessThan(whole.rows.length / 2);
      clearJournalSkips();
      clearNormalizedGroupValues();
      const want = buildObservations(index, { verdicts: vs }, { kind: "judge", judge_id: "a" }, field);
      const b = analyse(want, { bootstrap: { B: 30, seed: 5 }, index, run: "r" });
      const wantNotes = takeJournalWarnings();
      clearJournalSkips();
      clearNormalizedGroupValues();
      const got = buildObservationsColumns(run, "a", field);
      const rowsIt = { *values() { for (let s = 0; s < run.nRows; s++) yield run.rows[run.rowCode[s]] as TrajectoryIndexRow; } };
      const a = analyse(got, { bootstrap: { B: 30, seed: 5 }, index: rowsIt, run: "r" });
      expect(takeJournalWarnings()).toEqual(wantNotes);
      const { observations: go, unlabelled: gu, ...gotRest } = got;
      const { observations: wo, unlabelled: wu, ...wantRest } = want;
      expect(JSON.stringify(gotRest)).toBe(JSON.stringify(wantRest));
      expect(expand(go)).toEqual(expand(wo));
      expect(expand(gu!)).toEqual(expand(wu!));
      expect(JSON.stringify(a)).toBe(JSON.stringify(b));
      if (field === "metadata.defense") {
        expect(go.length).toBeLessThan(wo.length); // merged by weight
        expect(JSON.stringify(a)).toContain("spotlight");
        expect(wantNotes.join("\n")).toContain("name_normalized: metadata.defense");
      }
      if (field === "metadata.nosuch") expect(a).toHaveProperty("error");
    }
  });
});

/** Each item repeated `weight` times, without its id and weight, sorted by its JSON (a multiset). */
function expand(xs: readonly { weight?: number; trajectory_id?: string }[]): string[] {
  const out: string[] = [];
  for (const x of xs) {
    const { weight, trajectory_id, ...rest } = x;
    const keep = trajectory_id !== undefined && Object.values(rest).includes(trajectory_id) ? { ...rest, trajectory_id } : rest;
    for (let i = 0; i < (weight ?? 1); i++) out.push(JSON.stringify(keep));
  }
  return out.sort();
}

/** `compareConditions`, or the message it throws. */
function analyse(o: Observations, opts: Parameters<typeof compareConditions>[1]): unknown {
  try {
    return compareConditions(o, opts);
  } catch (e) {
    return { error: (e as Error).message };
  }
}
