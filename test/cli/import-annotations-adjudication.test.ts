/**
 * New-user report 38 F1 at the command line: README step 5's command (annotations/*.jsonl only) reads the sample
 * folder's adjudication.jsonl and says so first; --no-sample-adjudication leaves it out with a warning.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-cli-adj-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const jsonl = (rows: object[]) => rows.map((r) => JSON.stringify(r)).join("\n") + "\n";

describe("import-annotations with view's sample folder", () => {
  it("reads DIR/adjudication.jsonl beside DIR/annotations/ and says how many", async () => {
    const d = path.join(tmp, "study1");
    fs.mkdirSync(path.join(d, "annotations"), { recursive: true });
    const header = { ipi_judge_manifest: 1, run: "r", scale: "six", labels: [], seed: 1, n_items: 1, design: {} };
    fs.writeFileSync(path.join(d, "manifest.jsonl"), jsonl([header, { item_id: "abc-001", trajectory_id: "t1", stratum: "A", sampling_stratum: "all", committee_stratum: "A", stratum_size: 10, phase: 1, inclusion_probability: 0.1, weight: 10 }]));
    fs.writeFileSync(path.join(d, "annotations", "ann.jsonl"), jsonl([{ item_id: "abc-001", annotator: "ann", label: "unaffected" }]));
    fs.writeFileSync(path.join(d, "annotations", "bob.jsonl"), jsonl([{ item_id: "abc-001", annotator: "bob", label: "full_compliance" }]));
    fs.writeFileSync(path.join(d, "adjudication.jsonl"), jsonl([{ item_id: "abc-001", annotator: "adjudicated", label: "unaffected", adjudicator: "lead", annotators: { ann: "unaffected", bob: "full_compliance" } }]));
    const files = ["ann", "bob"].map((a) => path.join("study1", "annotations", `${a}.jsonl`));
    const r = await runCli(["import-annotations", ...files, "--manifest", "study1/manifest.jsonl", "--out", "human.jsonl"], { cwd: tmp });
    expect(r.code).toBe(0);
    expect(r.stdout.split("\n")[0]).toBe("read 1 adjudication from study1/adjudication.jsonl (the sample folder's adjudication file; --no-sample-adjudication leaves it out)");
    expect(r.stdout).toMatch(/imported 3 labels: 2 labels from 2 annotators and 1 adjudicated label/);
    const off = await runCli(["import-annotations", ...files, "--manifest", "study1/manifest.jsonl", "--out", "noadj.jsonl", "--no-sample-adjudication"], { cwd: tmp });
    expect(off.code).toBe(0);
    expect(off.stdout).toMatch(/^imported 2 labels from 2 annotators/);
    expect(off.stderr).toMatch(/1 adjudication\(s\) of this sample left out \(--no-sample-adjudication\)/);
  });
});
