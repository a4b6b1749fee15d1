import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { humanAgreement, readHumanLabels } from "../../src/agree/human.js";
import { labelledIds } from "../../src/agree/human-file.js";
import { humanVerdicts, populationRows } from "../../src/agree/human-columns.js";
import { REFERENCE_ROW_FIELDS } from "../../src/agree/reference-columns.js";
import { readColumnRun } from "../../src/store/columns.js";
import { ColumnIndex } from "../../src/store/column-index.js";
import { readLeanRun } from "../../src/store/lean-read.js";
import { WHERE_FIELDS } from "../../src/store/where.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-humcol-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const LABELS = ["full_compliance", "partial_compliance", "flagged_refusal", "task_refusal", "unaffected", "not_exposed"];
const STATUS = ["ok", "ok", "ok", "ok", "judge_error", "judge_refused", "unverified"];

describe("agree --human on columns (issue 26): the same report as on objects", () => {
  it("random runs and label files: repeats, superseded verdicts, re-stored rows, stale content, ids not in the run, a committee", async () => {
    let seed = 5;
    const rnd = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % n;
    for (let t = 0; t < 8; t++) {
      const rows: string[] = [];
      const verdicts: string[] = [];
      const human: string[] = [];
      const n = 100 + rnd(800);
      for (let i = 0; i < n; i++) {
        const id = `m${i % 3}/${["banking", "slack"][i % 2]}/t${i}${i % 37 === 0 ? "/é🦀" : ""}`;
        const row = () => JSON.stringify({ id, suite: ["banking", "slack"][i % 2], agent_model: `m${i % 3}`, attacked: rnd(6) !== 0, reference: { security: rnd(2) === 0 }, content_sha256: `c${rnd(3) ? 0 : 1}` });
        rows.push(row());
        if (rnd(30) === 0) rows.push(row()); // stored again: the last row wins
        for (const judge of ["a", "b", "c"])
          for (const repeat of [0, 1]) {
            if (rnd(10) === 0) continue;
            const status = STATUS[rnd(STATUS.length)];
            const v = { trajectory_id: id, judge_id: judge, judge_model: "m", judge_family: "f", repeat, prompt_sha256: "p", status, label: status === "ok" ? LABELS[rnd(6)] : null, ...(rnd(5) ? {} : { label_basis: "code" }), findings: [] };
            verdicts.push(JSON.stringify(v));
            if (rnd(8) === 0) verdicts.push(JSON.stringify({ ...v, status: "ok", label: LABELS[rnd(6)] }));
          }
        if (rnd(4) === 0)
          for (const annotator of ["h1", "h2", "h3"].slice(0, 1 + rnd(3)))
            human.push(JSON.stringify({ trajectory_id: id, annotator, label: LABELS[rnd(6)], ...(rnd(10) ? {} : { content_sha256: "c0" }) }));
      }
      for (let k = 0; k < 3; k++) human.push(JSON.stringify({ trajectory_id: `gone${k}`, annotator: "h1", label: "unaffected" }));
      const dir = path.join(tmp, `run${t}`);
      fs.mkdirSync(dir);
      fs.writeFileSync(path.join(dir, "trajectories.jsonl"), rows.join("\n") + "\n");
      fs.writeFileSync(path.join(dir, "verdicts.jsonl"), verdicts.join("\n") + "\n");
      const hf = path.join(dir, "human.jsonl");
      fs.writeFileSync(hf, human.join("\n") + "\n");
      const file = readHumanLabels(hf);
      const labelled = labelledIds(file);
      const { index, verdicts: vs } = await readLeanRun(dir, { content: labelled });
      const content = new Map<string, string>();
      const onRow = (_s: number, r: TrajectoryIndexRow) => void (labelled.has(r.id) && content.set(r.id, r.content_sha256));
      const run = await readColumnRun(dir, { rowFields: [...new Set([...REFERENCE_ROW_FIELDS, ...Object.values(WHERE_FIELDS)])], onRow });
      const colIndex = new ColumnIndex(run);
      const committee = rnd(2) ? ["a", "b", "c"] : undefined;
      const opts = { file: hf, bootstrap: { B: rnd(2) * 50, seed: 2 }, committee, quorum: 2 };
      const want = humanAgreement(file, vs, index, { ...opts, population: [...index.values()] });
      const got = humanAgreement(file, humanVerdicts(run, file.rows), colIndex, {
        ...opts,
        population: populationRows(colIndex),
        contentOf: (id) => (colIndex.has(id) ? (content.get(id) ?? null) : null),
      });
      expect(JSON.stringify(got)).toBe(JSON.stringify(want));
      expect(want.judges.length).toBeGreaterThan(2);
    }
  });
});
