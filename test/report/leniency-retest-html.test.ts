import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { labelRun } from "../../src/run/label.js";
import { buildReportModel, renderReportHtml, type ReportModel } from "../../src/report/index.js";
import { committeeReport, formatCommitteeReport } from "../../src/committee/report.js";
import { readTrajectoryIndex, readVerdicts } from "../../src/store/run-store.js";
import { fixtureJudges } from "./fixture.js";
import { SAMPLES } from "../helpers/paths.js";

// new user 36 #3: the report left out the self-family leniency and test-retest that ipi-judge committee prints
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-lenretest-"));
let model: ReportModel;
let html: string;
let text: string;

beforeAll(async () => {
  const labelsDir = path.join(tmp, "labels");
  // three judges of three families, each judging twice
  await labelRun({ inputs: [SAMPLES], run: "rr", labelsDir, judges: fixtureJudges(), repeats: 2 });
  const runDir = path.join(labelsDir, "rr");
  model = await buildReportModel({ runDir, run: "rr", bootstrap: { B: 0, seed: 1 } });
  html = await renderReportHtml(model);
  const [verdicts, index] = await Promise.all([readVerdicts(runDir), readTrajectoryIndex(runDir)]);
  text = formatCommitteeReport(committeeReport(verdicts, index, { run: "rr", bootstrap: { B: 200, seed: 1 } }).report);
}, 120_000);
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const blocks = (page: string) =>
  [...page.matchAll(/<pre class="figures">(.*?)<\/pre>/gs)].map((m) => m[1].replace(/<\/?bdi>/g, "").replace(/&gt;/g, ">").replace(/&lt;/g, "<").replace(/&amp;/g, "&").replace(/&quot;/g, '"').replace(/&#39;/g, "'"));

describe("the report's committee section shows the members' self-family leniency and test-retest", () => {
  it("both subsections, in the committee command's words; the adjusted gap with its interval", () => {
    const overview = html.slice(html.indexOf('<section id="overview"'), html.indexOf("</section>", html.indexOf('<section id="overview"')));
    expect(overview).toContain("<h3>Self-family leniency</h3>");
    expect(overview).toContain("<h3>Test-retest</h3>");
    const [len, rt] = blocks(overview);
    expect(model.committee!.members.length).toBe(3);
    for (const j of model.committee!.members) {
      expect(len).toMatch(new RegExp(`^  ${j} \\[[^\\]]+\\]: crude: `, "m"));
      expect(rt).toMatch(new RegExp(`^  ${j}: 2 repeats over \\d+ trajectories, \\d+ of them labelled by every repeat$`, "m"));
    }
    // every test-retest line is the committee command's (no bootstrap in either: the same figures)
    for (const l of rt.split("\n")) expect(text.split("\n")).toContain(l);
    // the adjusted gap's analytic interval is there, as the committee command prints it (the flag rests on it)
    const gaps = len.split("\n").filter((l) => l.includes("adjusted gap (own − other, within strata)"));
    const textGaps = text.split("\n").filter((l) => l.includes("adjusted gap (own − other, within strata)"));
    expect(gaps.length).toBe(3);
    expect(gaps).toEqual(textGaps);
    expect(gaps.some((l) => l.includes("(MOVER-Wilson)")) || gaps.every((l) => l.includes("undefined ("))).toBe(true);
  });

  it("no such subsection without a committee's repeats or several families", async () => {
    const none = await renderReportHtml({ ...model, committee: { ...model.committee!, retest: [], leniency: [] } });
    expect(none).not.toContain("<h3>Test-retest</h3>");
    expect(none).not.toContain("<h3>Self-family leniency</h3>");
    const oneFamily = await renderReportHtml({ ...model, judges: model.judges.map((j) => ({ ...j, family: "same" })) });
    expect(oneFamily).not.toContain("<h3>Self-family leniency</h3>");
  });
});
