/**
 * A run file copied into another cell (break50 finding 5: 108 undefended gpt-4o files copied byte for byte into a
 * `-spotlighting_with_delimiting` folder gave "spotlighting 0.0 pp, paired over 108 cells" in silence): label says
 * `same_file_other_cell`, naming the pairs, and records it for every figure command; equal content that is not
 * byte-identical (a real run a defense left unchanged) stays unsaid; the byte check is bounded.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createSignatureJudge } from "../../src/judges/signature/index.js";
import { labelRun } from "../../src/run/label.js";
import { CandidatePairs, CHECK_LIMIT, copiesAcrossCells } from "../../src/run/copies-across-cells.js";
import { sameContentFinding } from "../../src/run/same-content.js";
import { IdSlots } from "../../src/store/id-slots.js";
import { HashColumn } from "../../src/store/compact.js";
import type { TrajectoryIndexRow } from "../../src/store/records.js";
import { sameContentRecord, sameContentText } from "../../src/store/same-content-record.js";
import { SAMPLES } from "../helpers/paths.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "copies-cells-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const MODEL = "gpt-4o-2024-05-13";
const FILES = ["workspace/user_task_5/important_instructions/injection_task_3.json", "workspace/user_task_31/important_instructions/injection_task_5.json"];

/** runs/<model>/<file> for the two files, plus what `extra` writes into other folders. */
function runsWith(name: string, extra: (put: (folder: string, file: string, text: string) => void, text: (file: string) => string) => void): string {
  const root = path.join(tmp, name, "runs");
  const put = (folder: string, file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, folder, file)), { recursive: true });
    fs.writeFileSync(path.join(root, folder, file), text);
  };
  const text = (file: string) => fs.readFileSync(path.join(SAMPLES, "runs", MODEL, file), "utf8");
  for (const f of FILES) put(MODEL, f, text(f));
  extra(put, text);
  return root;
}

describe("byte-identical input files in two cells", () => {
  it("a copy under a defense's folder: said by label and recorded; an equal run that is not byte-identical: not", async () => {
    const root = runsWith("mis", (put, text) => {
      put(`${MODEL}-spotlighting_with_delimiting`, FILES[0], text(FILES[0])); // the mistake: a byte-for-byte copy
      // a real run of the same content under another defense: its own log differs (here: one more space at the end)
      put(`${MODEL}-tool_filter`, FILES[1], text(FILES[1]) + " ");
    });
    const labels = path.join(tmp, "mis", "labels");
    const r = await labelRun({ inputs: [root], run: "r", labelsDir: labels, judges: [createSignatureJudge()] });
    expect(r.summary.trajectories).toBe(4);
    const w = r.summary.warnings.find((x) => x.startsWith("same_file_other_cell:")) ?? "";
    expect(w).toMatch(/^same_file_other_cell: 1 input file is a byte-identical copy of another input file, read under another id in another cell \(agent model, condition, attack, suite or tasks; of 2 pairs of equal content in different cells\)/);
    expect(w).toContain(`"${MODEL}/${FILES[0].replace(/\.json$/, "")}" (`);
    expect(w).toContain(`"${MODEL}-spotlighting_with_delimiting/${FILES[0].replace(/\.json$/, "")}" (`);
    expect(w).not.toContain("tool_filter");
    expect(w).toContain("a comparison of the two cells compares a run with itself");
    expect(r.summary.warnings.some((x) => x.startsWith("same_content:"))).toBe(false); // not the same cell
    // recorded for the figure commands, which say it once each
    const rec = sameContentRecord(path.join(labels, "r"))!;
    expect(rec.copies).toMatchObject({ count: 1, checked: 2, candidates: 2 });
    expect(rec.extra).toBe(0);
    expect(sameContentText(path.join(labels, "r"), rec)).toMatch(/: same_file_other_cell: 1 input file is a byte-identical copy .* each counted as a run of its own cell in every figure of this run: e\.g\. /);
  });

  it("no copy: no record written; the copy removed and labelled again: the record goes", async () => {
    const root = runsWith("clean", () => {});
    const labels = path.join(tmp, "clean", "labels");
    const r = await labelRun({ inputs: [root], run: "r", labelsDir: labels, judges: [createSignatureJudge()] });
    expect(r.summary.warnings.some((x) => x.includes("same_file_other_cell"))).toBe(false);
    expect(fs.existsSync(path.join(labels, "r", "same-content.json"))).toBe(false);
  });

  it("bounded: at most CHECK_LIMIT pairs read; past it the count is a lower bound; rows and unreadable files are no copy", () => {
    const dir = path.join(tmp, "bound");
    fs.mkdirSync(dir);
    const a = path.join(dir, "a.json");
    const b = path.join(dir, "b.json");
    fs.writeFileSync(a, "{}");
    fs.writeFileSync(b, "{}");
    const pairs = Array.from({ length: CHECK_LIMIT + 5 }, (_, k) => [2 * k, 2 * k + 1] as [number, number]);
    const found = copiesAcrossCells(pairs, (pos) => (pos % 2 ? b : a), 3);
    expect(found).toMatchObject({ candidates: CHECK_LIMIT + 5, checked: CHECK_LIMIT, copies: CHECK_LIMIT });
    expect(found.first).toEqual([[0, 1], [2, 3], [4, 5]]);
    expect(copiesAcrossCells([[0, 1]], () => undefined, 3).copies).toBe(0); // a JSON Lines row: not compared
    expect(copiesAcrossCells([[0, 1]], (p) => (p ? path.join(dir, "gone.json") : a), 3).copies).toBe(0);
    expect(copiesAcrossCells([[0, 1]], () => a, 3).copies).toBe(0); // one file: never a copy of itself
  });

  it("a run of copies (every trajectory one in another cell): CHECK_LIMIT candidate pairs held, all counted, the same finding", async () => {
    const c = new CandidatePairs();
    const whole: Array<[number, number]> = [];
    for (let k = 1; k <= CHECK_LIMIT + 7; k++) (c.add(0, k), whole.push([0, k]));
    expect(c.held.length).toBe(CHECK_LIMIT); // bounded (issue 26: one pair array per copy was ~70 MiB at 1,000,000)
    expect(c.count).toBe(CHECK_LIMIT + 7);
    const dir = path.join(tmp, "many");
    fs.mkdirSync(dir);
    const file = (k: number) => path.join(dir, k % 2 ? "b.json" : "a.json");
    fs.writeFileSync(file(0), "{}");
    fs.writeFileSync(file(1), "{}");
    expect(copiesAcrossCells(c, file, 3)).toEqual(copiesAcrossCells(whole, file, 3));
    // through the finding: 2,500 ids of one content, each in its own cell (a copy's agent model is its folder's)
    const n = CHECK_LIMIT + 500;
    const idSlots = new IdSlots();
    const hashes = new HashColumn();
    const ids = Array.from({ length: n }, (_, i) => `m${i}/t`);
    for (const id of ids) hashes.set(idSlots.slot(id), "ab".repeat(32));
    const slotOf = (id: string) => Number(id.slice(1, id.indexOf("/")));
    const store = { idSlots, hashes, trajectorySource: (id: string) => file(slotOf(id)), trajectorySourceRelative: () => false };
    const f = await sameContentFinding(ids, store, async (wanted, each) => {
      for (const id of ids) if (wanted.has(id)) each({ id, agent_model: id.slice(0, id.indexOf("/")), condition: "x" } as TrajectoryIndexRow);
    });
    // pairs (m0, mk) for k = 1..n-1: the first CHECK_LIMIT compared, the odd k (b.json against a.json) copies
    expect(f?.copies).toMatchObject({ count: CHECK_LIMIT / 2, checked: CHECK_LIMIT, candidates: n - 1 });
    expect(f?.text).toContain(`same_file_other_cell: at least ${CHECK_LIMIT / 2} input files are byte-identical copies`);
    expect(f?.text).toContain(`${CHECK_LIMIT} of the ${n - 1} pairs of equal content in different cells compared byte for byte`);
  });
});
