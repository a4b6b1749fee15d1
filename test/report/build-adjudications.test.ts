/**
 * New-user report 38 F1: the report warns, in its human section, when the label file's sample folder holds
 * adjudications the label file lacks (a label file imported without the sample's adjudication.jsonl).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCommitteeFixture, type CommitteeFixture } from "./fixture.js";
import { buildReportModel } from "../../src/report/build.js";

let tmp: string;
let fx: CommitteeFixture;
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-report-adj-"));
  fx = await buildCommitteeFixture(tmp);
}, 120_000);
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe("report --human FILE beside a sample folder's adjudications", () => {
  it("says how many adjudications of the file's items the file lacks", async () => {
    const rows = fs.readFileSync(fx.humanFile, "utf8").trim().split("\n").map((l) => JSON.parse(l) as { item_id: string; annotator: string; label: string });
    const byItem = new Map<string, Record<string, string>>();
    for (const r of rows) byItem.set(r.item_id, { ...(byItem.get(r.item_id) ?? {}), [r.annotator]: r.label });
    const split = [...byItem].find(([, m]) => new Set(Object.values(m)).size > 1);
    expect(split).toBeDefined();
    const [item, annotators] = split!;
    const adj = { item_id: item, annotator: "adjudicated", label: annotators.alice, adjudicator: "lead", annotators };
    fs.writeFileSync(path.join(path.dirname(fx.humanFile), "adjudication.jsonl"), JSON.stringify(adj) + "\n");
    const m = await buildReportModel({ runDir: fx.runDir, run: fx.run, humanFile: fx.humanFile, bootstrap: { B: 0, seed: 1 } });
    expect(m.human!.warnings.join("\n")).toMatch(new RegExp(`lacks 1 of the 1 adjudication in .*adjudication\\.jsonl \\(item ${item}\\)`));
  }, 120_000);
});
