/**
 * Review rev2b #8 at the command line: a blank tasks file given alone, with the sample folder's adjudication.jsonl
 * beside it, rewrote human.jsonl with the adjudication only (10 label rows became 1, a warning). Now it is refused and
 * the earlier import left as it was; a blank file given beside a labelled one is named in a warning.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { unwrapText } from "../../src/format/wrap-text.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-cli-labelless-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const jsonl = (rows: object[]) => rows.map((r) => JSON.stringify(r)).join("\n") + "\n";
const ITEMS = ["abc-001", "abc-002"];

describe("import-annotations: a given file with no label, the sample folder's adjudication beside it", () => {
  it("alone: refused, nothing written; beside a labelled file: named", async () => {
    const d = path.join(tmp, "s");
    fs.mkdirSync(d, { recursive: true });
    const header = { ipi_judge_manifest: 1, run: "r", scale: "six", labels: [], seed: 1, n_items: 2, design: {} };
    const row = (id: string, t: string) => ({ item_id: id, trajectory_id: t, stratum: "A", sampling_stratum: "all", committee_stratum: "A", stratum_size: 10, phase: 1, inclusion_probability: 0.2, weight: 5 });
    fs.writeFileSync(path.join(d, "manifest.jsonl"), jsonl([header, row(ITEMS[0], "t1"), row(ITEMS[1], "t2")]));
    fs.writeFileSync(path.join(d, "a.csv"), ["item_id,annotator,label", `${ITEMS[0]},ann_a,unaffected`, `${ITEMS[1]},ann_a,full_compliance`].join("\n") + "\n");
    fs.writeFileSync(path.join(d, "b.csv"), ["item_id,annotator,label", `${ITEMS[0]},ann_b,unaffected`, `${ITEMS[1]},ann_b,unaffected`].join("\n") + "\n");
    fs.writeFileSync(path.join(d, "blank.csv"), ["item_id,annotator,label", `${ITEMS[0]},ann_b,`, `${ITEMS[1]},ann_b,`].join("\n") + "\n");
    fs.writeFileSync(path.join(d, "adjudication.jsonl"), jsonl([{ item_id: ITEMS[1], annotator: "adjudicated", label: "full_compliance", adjudicator: "lead", annotators: { ann_a: "full_compliance", ann_b: "unaffected" } }]));
    const imp = (...files: string[]) => runCli(["import-annotations", ...files, "--manifest", "manifest.jsonl", "--out", "human.jsonl"], { cwd: d });

    const first = await imp("a.csv", "b.csv");
    expect(first.code, first.stderr).toBe(0);
    const before = fs.readFileSync(path.join(d, "human.jsonl"), "utf8");
    expect(before.split("\n").filter(Boolean)).toHaveLength(5); // 4 annotators' labels and 1 adjudicated

    const alone = await imp("blank.csv");
    expect(alone.code).toBe(1);
    expect(unwrapText(alone.stderr)).toContain(
      "no row of blank.csv carries a label (2 rows/annotations without one); the sample folder's 1 adjudication (adjudication.jsonl) is not imported alone: an adjudication settles annotators' labels, it is none itself: nothing was written; human.jsonl is unchanged",
    );
    expect(fs.readFileSync(path.join(d, "human.jsonl"), "utf8")).toBe(before);

    const beside = await imp("a.csv", "blank.csv");
    expect(beside.code, beside.stderr).toBe(0);
    expect(unwrapText(beside.stderr)).toContain("warning: a file given carries no label: blank.csv (2 rows without one); nothing was imported from it");
    // a labelled file alone names nothing of the kind
    const clean = await imp("a.csv", "b.csv");
    expect(clean.stderr).not.toMatch(/carries no label/);
  }, 60_000);
});
