/**
 * A LOW coverage says how far the labelled subset differs by the benchmark's own verdict (new user 29: on VIGIL the
 * signature judge labels 86 of 433 attacked runs, the successes whose malicious tool description is recorded; the
 * benchmark says goal achieved on all 86, on 63.9% of all 402 with a verdict). Real VIGIL runs (test/data NOTICE):
 * 4 successes recording the description (labelled), 4 failures not recording it (unverified), 2 runs without a
 * verdict (one a `sop_exfiltration`, the tool_output surface). Every figure is recomputed here from the input files'
 * `security` and the stored verdicts.jsonl.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { printedLines } from "../helpers/printed-lines.js";
import { runCli } from "../helpers/cli.js";
import { DATA } from "../helpers/paths.js";
import { unwrapText } from "../../src/format/wrap-text.js";

let tmp: string;
let corpus: string;
let labels: string;
let label: { code: number | null; stdout: string; stderr: string };

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-refsubset-"));
  corpus = path.join(tmp, "vigil");
  for (const src of [path.join(DATA, "signature-slice", "vigil"), path.join(DATA, "vigil-tools")]) {
    fs.cpSync(path.join(src, "runs_base"), path.join(corpus, "runs_base"), { recursive: true });
  }
  for (const rel of ["banking/user_task_2/tool_attack/injection_task_1302.json", "banking/user_task_3/sop_exfiltration/injection_task_1504.json"]) {
    const to = path.join(corpus, "runs_base", "qwen3-max", rel);
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.copyFileSync(path.join(DATA, "vigil", "runs_base", "qwen3-max", rel), to);
  }
  labels = path.join(tmp, "labels");
  label = await runCli(["label", corpus, "--judge", "signature", "--run", "v", "--labels-dir", labels]);
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** From the input files and verdicts.jsonl: [goal-achieved, with a verdict] over the labelled and over all attacked runs; runs without a verdict. */
function fromFiles(): { labelled: [number, number]; all: [number, number]; without: number; attacked: number } {
  const ok = new Set<string>();
  for (const l of fs.readFileSync(path.join(labels, "v", "verdicts.jsonl"), "utf8").split("\n").filter(Boolean)) {
    const v = JSON.parse(l);
    if (v.repeat === 0 && v.status === "ok" && v.label) ok.add(v.trajectory_id);
  }
  const out = { labelled: [0, 0] as [number, number], all: [0, 0] as [number, number], without: 0, attacked: 0 };
  for (const l of fs.readFileSync(path.join(labels, "v", "trajectories.jsonl"), "utf8").split("\n").filter(Boolean)) {
    const row = JSON.parse(l);
    const raw = JSON.parse(fs.readFileSync(row.source.path, "utf8"));
    if (!raw.attack_type || !raw.messages?.length) continue;
    out.attacked++;
    if (typeof raw.security !== "boolean" || raw.error) {
      out.without++;
      continue;
    }
    const yes = raw.security ? 1 : 0;
    out.all[0] += yes;
    out.all[1]++;
    if (ok.has(row.id)) {
      out.labelled[0] += yes;
      out.labelled[1]++;
    }
  }
  return out;
}

describe("LOW coverage: the benchmark's own goal rate over the labelled runs and over all (new user 29)", () => {
  it("the input: 4 labelled runs all goal-achieved, 4 of 8 with a verdict, 2 of 10 attacked without one", () => {
    expect(label.code).toBe(0);
    expect(fromFiles()).toEqual({ labelled: [4, 4], all: [4, 8], without: 2, attacked: 10 });
  });

  it("label: the overall, per surface and per model lines say both rates with counts, the runs without a verdict, and the verdict", () => {
    const rows = label.stdout.split("\n");
    const said =
      "by the benchmark's own security verdict (goal achieved), the labelled runs read 100.0% [51.0, 100.0] (4/4) against 50.0% [21.5, 78.5] (4/8) over all attacked runs with a verdict " +
      "(2 attacked runs record none): the labelled subset is not representative (the rate over all lies outside its 95% interval), and these rates speak for the labelled runs, not for the group";
    // the headline's coverage line, joined back (src/format/wrap-text.ts)
    const overall = unwrapText(label.stdout.slice(label.stdout.indexOf("attack success over the 4 labelled of the 10 attacked runs")));
    expect(overall).toContain(`coverage: 40.0% (4 labelled of 10 attacked) LOW (below 80%: the rates speak for a subset that may be biased; most unlabelled: injection_text_unknown 6; ${said})`);
    // the one model's row is over the same runs as the overall line: it points there, not the clause again (new user 44 item 11)
    // a table row, its LOW clause in a note under the table that points to the headline
    expect(rows.find((l) => l.startsWith("    qwen3-max "))).toMatch(/ 40\.0% \(4\/10\) LOW$/);
    expect(unwrapText(label.stdout)).toContain("qwen3-max: coverage 40.0% (4 labelled of 10 attacked) LOW (as in the judge's attack success above)");
    expect(unwrapText(label.stdout).split(said).length - 1).toBe(1);
    // a note under the surface table, with its continuation lines joined back
    const note = (name: string) => {
      const at = rows.findIndex((l) => l.startsWith(`    ${name}: `));
      if (at < 0) return "";
      let end = at + 1;
      while (end < rows.length && rows[end].startsWith("        ")) end++;
      return unwrapText(rows.slice(at, end).join("\n"));
    };
    // the tool_description surface: the one run without a verdict there
    expect(note("tool_description")).toContain("(4/4) against 50.0% [21.5, 78.5] (4/8) over all attacked runs with a verdict (1 attacked run records none): the labelled subset is not representative");
    // the tool_output surface: nothing labelled, no verdict: nothing said
    expect(note("tool_output")).not.toContain("benchmark's own");
  });

  it("label --json: reference_security with counts on every group; null with a reason where no run carries a verdict", async () => {
    const r = await runCli(["label", corpus, "--judge", "signature", "--run", "v", "--labels-dir", labels, "--json"]);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout).judges[0];
    const f = fromFiles();
    expect(j.rates.reference_security).toMatchObject({
      field: "security",
      labelled: { count: f.labelled[0], n: f.labelled[1], rate: 1 },
      labelled_without_verdict: 0,
      all: { count: f.all[0], n: f.all[1], rate: 0.5 },
      attacked_without_verdict: { no_reference: f.without, run_error: 0 },
      subset_differs: true,
    });
    expect(j.by_agent_model["qwen3-max"].reference_security).toEqual(j.rates.reference_security);
    expect(j.by_surface.tool_output.reference_security).toBeNull();
    expect(j.by_surface.tool_output.reference_security_reason).toBe(
      "no attacked run of the group carries a usable benchmark verdict (reference.security): 1 record none, 0 ended in an agent error (where it means nothing)",
    );
    // agree --reference reads the same two figures (one rule of a usable verdict)
    const a = await runCli(["agree", "--run", "v", "--labels-dir", labels, "--reference", "security", "--json"]);
    expect(a.code).toBe(0);
    const rates = JSON.parse(a.stdout).rates;
    expect(rates.reference).toMatchObject({ count: f.labelled[0], n: f.labelled[1] });
    expect(rates.reference_all).toMatchObject({ count: f.all[0], n: f.all[1] });
  });

  it("report: the page says it under the attack-success heading for the LOW row, with the same counts", async () => {
    const out = path.join(tmp, "r.html");
    // --own-mix: the by-condition views over each cell's own runs, as this check reads them (like for like, the
    // default since session 52, withholds qwen3-max there: its attacks and surfaces share no cell)
    const r = await runCli(["report", "--run", "v", "--labels-dir", labels, "--out", out, "--own-mix"]);
    expect(r.code).toBe(0);
    const html = fs.readFileSync(out, "utf8");
    const at = html.indexOf("coverage_low rows read by the benchmark");
    expect(at).toBeGreaterThan(html.indexOf('<section id="asr">'));
    // the page's text: tags (bdi isolation) dropped, entities read
    const note = html.slice(at, html.indexOf("</div>", at)).replace(/<[^>]+>/g, "").replace(/&#39;/g, "'");
    expect(note).toContain("signature on qwen3-max (coverage 40.0%, 4 labelled of 10 attacked): by the benchmark");
    expect(note).toContain("the labelled runs read 100.0% [51.0, 100.0] (4/4) against 50.0% [21.5, 78.5] (4/8) over all attacked runs with a verdict (2 attacked runs record none): the labelled subset is not representative");
    // the by-attack coverage_low list says it too, per LOW cell (new-user pass: it named the cell and its coverage only)
    const c0 = html.indexOf("coverage_low (labelled / attacked below 80%", html.indexOf('<section id="conditions">'));
    expect(c0).toBeGreaterThan(0);
    const list = html.slice(c0, html.indexOf("</div>", c0)).replace(/<li>/g, "\n").replace(/<[^>]+>/g, "").replace(/&#39;/g, "'");
    expect(list.split("\n").slice(1)).toEqual([
      "qwen3-max attack=tool_attack coverage 50.0% (3 labelled of 6 attacked), most unlabelled: injection_text_unknown; by the benchmark's own security verdict (goal achieved), the labelled runs read 100.0% [43.9, 100.0] (3/3) " +
        "against 60.0% [23.1, 88.2] (3/5) over all attacked runs with a verdict (1 attacked run records none): the rate over all lies inside the labelled runs' 95% interval, so this check shows no bias (it cannot show there is none)",
      // the by-surface view too, though one surface only is labelled: the other's attacked runs have none (new user 41:
      // VIGIL's tool_output surface vanished from the report unsaid)
      "qwen3-max surface=tool_description coverage 44.4% (4 labelled of 9 attacked), most unlabelled: injection_text_unknown; by the benchmark's own security verdict (goal achieved), the labelled runs read 100.0% [51.0, 100.0] (4/4) " +
        "against 50.0% [21.5, 78.5] (4/8) over all attacked runs with a verdict (1 attacked run records none): the labelled subset is not representative (the rate over all lies outside its 95% interval), and these rates speak for the labelled runs, not for the group",
    ]);
    expect(html.slice(html.indexOf('<section id="conditions">')).replace(/<[^>]+>/g, "")).toMatch(/Left out, no usable label: [^.]*surface \S+ \(1 attacked: unverified 1\)/);
  });

  it("committee: its label's rates and each judge's say it the same way (one judge, quorum 1: the committee is the judge)", async () => {
    const r = await runCli(["committee", "--run", "v", "--labels-dir", labels, "--quorum", "1"]);
    expect(r.code).toBe(0);
    const said = "the labelled runs read 100.0% [51.0, 100.0] (4/4) against 50.0% [21.5, 78.5] (4/8) over all attacked runs with a verdict (2 attacked runs record none): the labelled subset is not representative";
    const rows = r.stdout.split("\n");
    expect(rows.find((l) => /committee label over the \d+ of 10 attacked with one/.test(l))).toContain(said);
    expect(rows.filter((l) => l.includes(said)).length).toBe(2);
  });

  it("compare: a LOW cell's coverage says it as label does; --json carries it on the cell", async () => {
    const r = await runCli(["compare", "--run", "v", "--labels-dir", labels]);
    expect(r.code).toBe(0);
    const lines = printedLines(r.stdout); // a row or a warning whole, as printed before the 120-column wrap (session 49)
    const cell = lines.find((l) => l.startsWith("  qwen3-max  no_defense"))!;
    const said = "the labelled runs read 100.0% [51.0, 100.0] (4/4) against 50.0% [21.5, 78.5] (4/8) over all attacked runs with a verdict (2 attacked runs record none): the labelled subset is not representative";
    // the clause once per condition (new-user pass: it was printed twice, in the warning and again in the row)
    expect(cell).toContain("coverage 40.0% (4 labelled of 10 attacked) LOW (see the warning above); exposure");
    expect(cell).not.toContain(said);
    expect(lines.filter((l) => l.includes(said))).toEqual([expect.stringMatching(/^WARNING: qwen3-max under no_defense: coverage 40\.0% \(4 labelled of 10 attacked\) LOW \(below 80%: .*: its asr_goal and asr_behaviour are flagged coverage_low$/)]);
    expect(r.stdout.split("LOW (below 80%").length - 1).toBe(1);
    const j = JSON.parse((await runCli(["compare", "--run", "v", "--labels-dir", labels, "--json"])).stdout);
    const c = j.asr.find((x: { condition: string; suite: string | null }) => x.condition === "no_defense" && x.suite === null);
    expect(c.reference_security).toMatchObject({ labelled: { count: 4, n: 4 }, all: { count: 4, n: 8 }, attacked_without_verdict: { no_reference: 2 }, subset_differs: true });
  });

  it("estimate --table: the coverage_low note names it for the withheld row; --json carries it on the rate cells", async () => {
    const r = await runCli(["estimate", "--run", "v", "--labels-dir", labels, "--table"]);
    expect(r.code).toBe(0);
    expect(unwrapText(r.stdout)).toContain(
      "qwen3-max | no_defense signature: coverage 40.0% (4 of 10 attacked have a usable verdict; most unusable: injection_text_unknown; by the benchmark's own security verdict (goal achieved), " +
        "the labelled runs read 100.0% [51.0, 100.0] (4/4) against 50.0% [21.5, 78.5] (4/8) over all attacked runs with a verdict (2 attacked runs record none): the labelled subset is not representative",
    );
    const j = JSON.parse((await runCli(["estimate", "--run", "v", "--labels-dir", labels, "--table", "--json"])).stdout);
    const row = j.rows[0];
    expect(row.judge_asr_goal.reference_security).toMatchObject({ labelled: { count: 4, n: 4 }, all: { count: 4, n: 8 }, subset_differs: true });
  });
});
