/**
 * An annotator's conflicting labels (red team 30, M3): `agree`, `estimate` and `report --human` let the later row
 * win silently while `import-annotations` refused the same file. One check now (`refuseConflicts`, in the one
 * reader `readHumanLabels` and in the groupings a file built in code reaches): two different labels of one
 * annotator for one trajectory refuse the file, naming both lines; the same label repeated is counted once.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HumanLabelsError, labelConflicts, readHumanLabels, type HumanLabelFile } from "../../src/agree/human-file.js";
import { humanAgreement } from "../../src/agree/human.js";
import { humanConsensus } from "../../src/estimate/human-consensus.js";
import { runCli } from "../helpers/cli.js";
import { SAMPLES } from "../helpers/paths.js";

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-human-conflicts-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const write = (name: string, text: string) => {
  const f = path.join(tmp, name);
  fs.writeFileSync(f, text);
  return f;
};
const jsonl = (rows: Array<[string, string, string]>) => rows.map(([t, a, l]) => JSON.stringify({ trajectory_id: t, annotator: a, label: l })).join("\n") + "\n";

describe("readHumanLabels: conflicting labels refuse the file", () => {
  it("names the trajectory, the annotator, both labels and both lines", () => {
    const f = write(
      "bad.jsonl",
      jsonl([
        ["t1", "bob", "task_refusal"],
        ["t1", "alice", "not_exposed"],
        ["t2", "bob", "unaffected"],
        ["t1", "alice", "not_exposed"], // repeated: no conflict
        ["t1", "bob", "full_compliance"],
      ]),
    );
    let err: unknown;
    try {
      readHumanLabels(f);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(HumanLabelsError);
    expect((err as Error).message).toBe(
      `${f}: 1 conflicting label (one annotator, one trajectory, two different labels); nothing is computed from this file (keep one label per annotator and trajectory, as import-annotations requires):\n` +
        `  line 5: annotator "bob" labelled trajectory "t1" "full_compliance" here and "task_refusal" at line 1`,
    );
  });

  it("CSV too; the same label spelled another way, and a row without a label, are no conflict", () => {
    const ok = write("ok.csv", "trajectory_id,annotator,label\nt1,a,Full compliance\nt1,a,full_compliance\nt2,a,\nt2,a,unaffected\n");
    expect(readHumanLabels(ok).rows).toHaveLength(4);
    const bad = write("bad.csv", "trajectory_id,annotator,label\nt1,a,full_compliance\nt1,a,complied\n");
    expect(() => readHumanLabels(bad)).toThrow(/line 3: annotator "a" labelled trajectory "t1" "complied" here and "full_compliance" at line 2/);
  });

  it("lists the first 50 and says how many more", () => {
    const rows: Array<[string, string, string]> = [];
    for (let i = 0; i < 60; i++) rows.push([`t${i}`, "a", "unaffected"], [`t${i}`, "a", "full_compliance"]);
    const msg = (() => {
      try {
        readHumanLabels(write("many.jsonl", jsonl(rows)));
      } catch (e) {
        return (e as Error).message;
      }
      return "";
    })();
    expect(msg).toMatch(/: 60 conflicting labels /);
    expect(msg.split("\n")).toHaveLength(52);
    expect(msg).toMatch(/\.\.\. and 10 more$/);
  });
});

describe("a label file built in code meets the same check", () => {
  const file: HumanLabelFile = {
    format: "jsonl",
    rows: [
      { trajectory_id: "t1", annotator: "a", label: "full_compliance", line: 1 },
      { trajectory_id: "t1", annotator: "a", label: "unaffected", line: 2 },
    ],
    bad_rows: [],
  };
  it("labelConflicts names it; agree's and estimate's consensus refuse it", () => {
    expect(labelConflicts(file)).toEqual([`line 2: annotator "a" labelled trajectory "t1" "unaffected" here and "full_compliance" at line 1`]);
    expect(() => humanAgreement(file, [], new Map(), { bootstrap: { B: 0, seed: 1 } })).toThrow(HumanLabelsError);
    expect(() => humanConsensus(file)).toThrow(HumanLabelsError);
  });
  it("a repeated label is counted once (duplicate_repeated), in agree and in estimate", () => {
    const same: HumanLabelFile = { ...file, rows: [file.rows[0], { ...file.rows[0], line: 2 }] };
    expect(humanConsensus(same).excluded_rows).toEqual({ duplicate_repeated: 1 });
    expect(humanAgreement(same, [], new Map(), { bootstrap: { B: 0, seed: 1 } }).rows).toEqual({ total: 2, used: 1, excluded: { duplicate_repeated: 1 } });
  });
});

describe("agree, estimate and report --human refuse it alike (exit 2, both lines named)", () => {
  it("on a real run", async () => {
    const L = ["--labels-dir", path.join(tmp, "labels")];
    const r = await runCli(["label", SAMPLES, "--run", "s", ...L]);
    expect(r.code, r.stderr).toBe(0);
    const id = JSON.parse(fs.readFileSync(path.join(tmp, "labels", "s", "trajectories.jsonl"), "utf8").split("\n")[0]).id as string;
    const human = write("human.jsonl", jsonl([[id, "bob", "task_refusal"], [id, "bob", "full_compliance"]]));
    const runs = await Promise.all([
      runCli(["agree", "--run", "s", ...L, "--human", human, "--bootstrap", "0"]),
      runCli(["estimate", "--run", "s", ...L, "--human", human]),
      runCli(["report", "--run", "s", ...L, "--human", human, "--out", path.join(tmp, "r.html"), "--bootstrap", "0"]),
    ]);
    for (const x of runs) {
      expect(x.code, x.stderr).toBe(2);
      expect(x.stderr).toContain(`1 conflicting label`);
      expect(x.stderr).toContain(`line 2: annotator "bob" labelled trajectory "${id}" "full_compliance" here and "task_refusal" at line 1`);
    }
    expect(fs.existsSync(path.join(tmp, "r.html"))).toBe(false);
  }, 120_000);
});
