/**
 * Session 41: import-annotations checks the annotations against the sample's design, not only against its item ids
 * (src/sample/manifest-design.ts): a manifest edited by hand (an item moved to another stratum, a probability changed,
 * an item removed) is refused naming the item, nothing written; an item outside the sample is refused; a stratum left
 * with no labelled item is a named warning (`strata_without_labels`), which estimate's coverage warning follows; a label
 * file edited after the import is named by estimate and agree (`label_design_drift`, src/agree/label-design-drift.ts).
 * Through the built CLI on the 516 real AgentDojo runs (signature judge, 60 items over 4 suite strata).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { CORPUS } from "../helpers/paths.js";
import { unwrapText } from "../../src/format/wrap-text.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-import-design-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const lines = (f: string) => fs.readFileSync(path.join(tmp, f), "utf8").split("\n").filter(Boolean);
let header = "";
let items: Array<Record<string, unknown> & { item_id: string; trajectory_id: string; stratum: string; inclusion_probability: number }> = [];

/** Write a manifest (the header, then `rows`) and annotations of `labelled` items; import them. */
async function importWith(name: string, rows: typeof items, labelled: typeof items, extra: string[] = []) {
  fs.writeFileSync(path.join(tmp, `${name}.manifest.jsonl`), [header, ...rows.map((r) => JSON.stringify(r))].join("\n") + "\n");
  fs.writeFileSync(path.join(tmp, `${name}.csv`), ["item_id,annotator,label", ...labelled.map((r) => `${r.item_id},ann,unaffected`), ...extra].join("\n") + "\n");
  return runCli(["import-annotations", `${name}.csv`, "--manifest", `${name}.manifest.jsonl`, "--out", `${name}.human.jsonl`], { cwd: tmp });
}

beforeAll(async () => {
  for (const args of [
    ["label", path.join(CORPUS, "runs"), "--run", "r"],
    ["committee", "--run", "r", "--quorum", "1"],
    ["sample", "--run", "r", "--random", "60", "--disagreement", "0", "--strata", "suite", "--seed", "7", "--out", "s1"],
  ]) {
    const r = await runCli(args, { cwd: tmp });
    expect(r.code, r.stderr).toBe(0);
  }
  [header, ...items] = lines("s1/manifest.jsonl") as never;
  items = (items as unknown as string[]).map((l) => JSON.parse(l));
}, 180_000);

describe("import-annotations against the sample's design", () => {
  it("the manifest as sample wrote it imports, with no design warning", async () => {
    const r = await importWith("ok", items, items);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/strata_without_labels|does not match the design/);
  });

  it("an item moved to another stratum by hand is refused, naming it; nothing is written", async () => {
    const moved = items.map((r, i) => (i === 0 ? { ...r, stratum: items.find((x) => x.stratum !== r.stratum)!.stratum } : r));
    const r = await importWith("moved", moved, items);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/moved\.manifest\.jsonl does not match the design that drew the sample/);
    expect(r.stderr).toContain(`item ${items[0].item_id} (trajectory ${items[0].trajectory_id}) in stratum`);
    expect(r.stderr).toMatch(/stratum A\|suite=\w+: 16 items, the design drew 15/);
    expect(fs.existsSync(path.join(tmp, "moved.human.jsonl"))).toBe(false);
  });

  it("a probability changed by hand (weight kept consistent) is refused: its stratum's 1/pi no longer sum to its size", async () => {
    const pi = items[0].inclusion_probability;
    const edited = items.map((r) => (r.stratum === items[0].stratum ? { ...r, inclusion_probability: pi / 2, weight: 2 / pi } : r));
    const r = await importWith("pi", edited, items);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`inclusion_probability ${pi / 2}, the design's ${pi}`);
    expect(fs.existsSync(path.join(tmp, "pi.human.jsonl"))).toBe(false);
  });

  it("an item removed from the manifest is refused (the stratum holds fewer than the design drew); an annotation of it is outside the sample", async () => {
    const r = await importWith("removed", items.slice(1), items.slice(1));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/stratum A\|suite=\w+: 14 items, the design drew 15/);
    const outside = await importWith("outside", items, items, ["zzzzzz-999,ann,unaffected"]);
    expect(outside.code).toBe(1);
    expect(outside.stderr).toMatch(/unknown item_id "zzzzzz-999" \(not in this sample's manifest\)/);
  });

  it("a stratum with no labelled item left is a named warning, in the JSON too, and estimate says its trajectories are not represented", async () => {
    const travel = items.filter((r) => r.stratum === "A|suite=travel");
    expect(travel.length).toBe(15);
    const r = await importWith("empty", items, items.filter((x) => x.stratum !== "A|suite=travel"));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      "strata_without_labels: 1 stratum of the design has no labelled item: A|suite=travel (N 125; 15 sampled, none labelled): the label file holds no row of it",
    );
    const json = JSON.parse((await runCli(["import-annotations", "empty.csv", "--manifest", "empty.manifest.jsonl", "--out", "empty.human.jsonl", "--json"], { cwd: tmp })).stdout);
    expect(json.strata_without_labels).toEqual([{ stratum: "A|suite=travel", N: 125, sampled: 15 }]);
    const est = await runCli(["estimate", "--run", "r", "--human", "empty.human.jsonl", "--judge", "signature"], { cwd: tmp });
    expect(unwrapText(est.stdout)).toMatch(/cover 391 of the run's 516 trajectories/);
  });
  it("a label file edited after the import (a row moved to another stratum) is named by estimate and agree --human: label_design_drift", async () => {
    expect((await importWith("drift", items, items)).code).toBe(0);
    const rows = lines("drift.human.jsonl").map((l) => JSON.parse(l));
    rows[0] = { ...rows[0], stratum: "A|suite=banking", stratum_size: 130 };
    fs.writeFileSync(path.join(tmp, "drift.human.jsonl"), rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
    const want = `label_design_drift: label file drift.human.jsonl carries another design than the sample manifest its rows name for 1 item (item ${rows[0].item_id}: stratum "A|suite=banking" here, "${items.find((x) => x.item_id === rows[0].item_id)!.stratum}" in the manifest, stratum_size 130 here`;
    const est = await runCli(["estimate", "--run", "r", "--human", "drift.human.jsonl", "--judge", "signature"], { cwd: tmp });
    expect(unwrapText(est.stdout)).toContain(want);
    const agree = await runCli(["agree", "--run", "r", "--human", "drift.human.jsonl"], { cwd: tmp });
    expect(unwrapText(agree.stdout) + agree.stderr).toContain(want);
    const clean = await runCli(["estimate", "--run", "r", "--human", "ok.human.jsonl", "--judge", "signature"], { cwd: tmp });
    expect(unwrapText(clean.stdout)).not.toMatch(/label_design_drift/);
  });

  it("a file with no label (an untouched tasks file) is refused, and an earlier import is left as it was (newuser54 #4)", async () => {
    const first = await importWith("keep", items, items.slice(0, 20));
    expect(first.code, first.stderr).toBe(0);
    const before = fs.readFileSync(path.join(tmp, "keep.human.jsonl"), "utf8");
    expect(before.split("\n").filter(Boolean)).toHaveLength(20);
    fs.writeFileSync(path.join(tmp, "empty.csv"), ["item_id,annotator,label", ...items.slice(0, 5).map((r) => `${r.item_id},ann,`)].join("\n") + "\n");
    const r = await runCli(["import-annotations", "empty.csv", "--manifest", "keep.manifest.jsonl", "--out", "keep.human.jsonl"], { cwd: tmp });
    expect(r.code).toBe(1);
    expect(unwrapText(r.stderr)).toMatch(/no row of empty\.csv carries a label \(5 rows\/annotations without one\): nothing was written; keep\.human\.jsonl is unchanged/);
    expect(fs.readFileSync(path.join(tmp, "keep.human.jsonl"), "utf8")).toBe(before);
  });

  it("an import with fewer label rows than the file it replaces says so", async () => {
    const r = await importWith("keep", items, items.slice(0, 8));
    expect(r.code, r.stderr).toBe(0);
    expect(unwrapText(r.stderr)).toMatch(/keep\.human\.jsonl held 20 label rows and now holds 8: an import replaces the file whole/);
  });
});
