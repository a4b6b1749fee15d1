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
import { renderReportHtml } from "../../src/report/html.js";

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
    // and among the report's own warnings, so the summary counts it (break52 #2)
    expect(m.warnings.filter((w) => /lacks 1 of the 1 adjudication/.test(w))).toHaveLength(1);
    fs.rmSync(path.join(path.dirname(fx.humanFile), "adjudication.jsonl"));
  }, 120_000);

  it("a drawn item without a label: in the human section and among the report's warnings, named by the summary's \"Read with\" and counted as changing how a figure reads (break52 #2)", async () => {
    const lines = fs.readFileSync(fx.humanFile, "utf8").trim().split("\n");
    const first = (JSON.parse(lines[0]) as { item_id: string }).item_id;
    const file = path.join(path.dirname(fx.humanFile), "human-one-left.jsonl");
    fs.writeFileSync(file, lines.filter((l) => (JSON.parse(l) as { item_id: string }).item_id !== first).join("\n") + "\n");
    const m = await buildReportModel({ runDir: fx.runDir, run: fx.run, humanFile: file, bootstrap: { B: 0, seed: 1 } });
    const drawn = m.warnings.filter((w) => w.startsWith("drawn_without_label: 1 of the "));
    expect(drawn).toHaveLength(1);
    expect(m.human!.warnings.join("\n")).toContain(drawn[0]);
    const html = await renderReportHtml(m);
    const summary = html.slice(html.indexOf('<section id="summary">'), html.indexOf("</section>", html.indexOf('<section id="summary">'))).replace(/<[^>]+>/g, "");
    expect(summary.slice(summary.indexOf("Read with:"), summary.indexOf("All warnings"))).toContain("Human labels to check (1 warning)");
    const reading = html.slice(html.indexOf("That change how a figure reads"), html.indexOf("<h3>Notes"));
    expect(reading).toContain("drawn_without_label: 1 of the ");
  }, 120_000);
});
