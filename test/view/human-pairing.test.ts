/**
 * humans14: `view --human FILE` shows a label beside its trajectory only when the run holds the text the label was
 * given for (the content hash the sample's manifest recorded, src/agree/label-pairing.ts); a label of an edited
 * trajectory is not shown, and said once.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadViewRun } from "../../src/view/run-data.js";
import { pairedSampleLabels } from "../../src/view/sample-humans.js";

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-view-pairing-"));
  fs.mkdirSync(path.join(dir, "r"));
  const rows = ["t1", "t2", "t3"].map((id) => ({ id, content_sha256: `h-${id}`, source: { format: "agentdojo", path: `/x/${id}.json` }, attacked: true, attack: "a" }));
  // t2 was edited after the sample and labelled again: its latest row has another content hash
  rows.push({ ...rows[1], content_sha256: "h-t2-edited" });
  fs.writeFileSync(path.join(dir, "r", "trajectories.jsonl"), rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
  const verdicts = ["t1", "t2", "t3"].map((id) => ({ trajectory_id: id, judge_id: "j", repeat: 0, prompt_sha256: "p", status: "ok", label: "unaffected", findings: [] }));
  fs.writeFileSync(path.join(dir, "r", "verdicts.jsonl"), verdicts.map((v) => JSON.stringify(v)).join("\n") + "\n");
  const labels = ["t1", "t2", "t3"].map((id) => ({ trajectory_id: id, annotator: "ann", label: "full_compliance", content_sha256: `h-${id}` }));
  fs.writeFileSync(path.join(dir, "human.jsonl"), labels.map((l) => JSON.stringify(l)).join("\n") + "\n");
  fs.writeFileSync(path.join(dir, "old.jsonl"), labels.map(({ content_sha256: _c, ...l }) => JSON.stringify(l)).join("\n") + "\n");
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("view --human: labels of trajectories edited since the sample (humans14)", () => {
  it("are not shown beside the new text; one warning names the file and the count", async () => {
    const run = await loadViewRun(path.join(dir, "r"), { humanFile: path.join(dir, "human.jsonl") });
    expect(run.byId.get("t1")?.humans).toEqual({ ann: "full_compliance" });
    expect(run.byId.get("t2")?.humans).toBeUndefined();
    expect(run.byId.get("t3")?.humans).toEqual({ ann: "full_compliance" });
    const w = run.warnings.filter((x) => x.includes("content_changed_since_sample"));
    expect(w).toEqual([expect.stringMatching(/^label file human\.jsonl: 1 labelled trajectory \(1 label row\) changed since the sample was drawn: .*first: t2, line 2\).*their labels are not shown/)]);
  });
  it("a file without hashes: every label shown, one line saying the pairing cannot be checked", async () => {
    const run = await loadViewRun(path.join(dir, "r"), { humanFile: path.join(dir, "old.jsonl") });
    expect(run.byId.get("t2")?.humans).toEqual({ ann: "full_compliance" });
    expect(run.warnings.filter((x) => /record no content_sha256/.test(x))).toHaveLength(1);
  });
});

describe("view --sample: the annotators' labels in the run's list (humans14)", () => {
  it("a label of an item whose trajectory the run now holds with other content is not copied to its row; said once", async () => {
    const run = await loadViewRun(path.join(dir, "r"));
    const sample = {
      dir: "/s",
      manifest: { header: {} as never, rows: ["t1", "t2"].map((id, i) => ({ item_id: `x-${i}`, trajectory_id: id, content_sha256: `h-${id}` }) as never) },
      humanLabels: () => new Map([["t1", { ann: "unaffected" }], ["t2", { ann: "full_compliance", bob: "full_compliance" }]]),
    };
    const said = new Set<string>();
    const logged: string[] = [];
    const out = pairedSampleLabels(sample, run, said, (m) => logged.push(m));
    expect([...out]).toEqual([["t1", { ann: "unaffected" }]]);
    expect(logged).toEqual([expect.stringMatching(/^label file \/s\/annotations\/\*\.jsonl: 1 labelled trajectory \(2 label rows\) changed since the sample was drawn: .*first: t2\).*their labels are not shown in the run's list/)]);
    pairedSampleLabels(sample, run, said, (m) => logged.push(m));
    expect(logged).toHaveLength(1);
  });
});
