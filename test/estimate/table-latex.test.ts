/**
 * The paper table's LaTeX says in the rendered table what the text says (break52 #4, #9): a row cut to shared cells
 * is marked, every mark's text is a rendered note (not only a `%` comment), an UNSTABLE value is marked as such.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { formatTable, latexEscape, paperTable } from "../../src/estimate/table.js";
import { tableLatex } from "../../src/estimate/table-latex.js";
import { readLeanRun } from "../../src/store/lean-read.js";
import { RUNS, writeRun, type Run } from "./unlike-run.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-tablelatex-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const src = { kind: "judge" as const, judge_id: "gpt" };
/** The lines TeX renders (not comments). */
const rendered = (tex: string) => tex.split("\n").filter((l) => !l.startsWith("%"));

describe("tableLatex", () => {
  it("a row cut to shared cells carries the mark on its n, and the rendered note names its population (not only `% over:`)", async () => {
    const { index, verdicts } = await readLeanRun(writeRun(tmp, "cut", RUNS));
    const tex = rendered(tableLatex(paperTable("r", index, verdicts, src)));
    expect(tex).toContain("M & no\\_defense$^{\\mathrm{a}}$ & 3$^\\parallel$ & 66.7 {\\scriptsize [20.8, 93.9]} & 66.7 {\\scriptsize [20.8, 93.9]} & 0.0 {\\scriptsize [0.0, 56.1]} & 100.0 {\\scriptsize [43.9, 100.0]} & 100.0 {\\scriptsize [20.7, 100.0]} & 1 & 0.0 {\\scriptsize [0.0, 56.1]} & 0/0 \\\\");
    expect(tex.find((l) => l.startsWith("M & D"))).toMatch(/^M & D & 3 & /); // over all its runs: no mark
    expect(tex.find((l) => l.startsWith("\\noindent $^\\parallel$"))).toBe(
      "\\noindent $^\\parallel$ rows over part of their runs (like for like: the cells all their model's conditions ran, and utility on those cells' user tasks; -{}-own-mix gives every run): M | no\\_defense: n 3, 3 shared cells (5 runs on 5 cells left out)\\par",
    );
    expect(tex).toContain("{\\footnotesize\\par\\smallskip");
  });

  it("the marks' texts are rendered notes: a, b ... of rows not like for like, and † with each undefined cell's reason", async () => {
    const { index, verdicts } = await readLeanRun(writeRun(tmp, "own", RUNS));
    const t = paperTable("r", index, verdicts, src, { ownMix: true });
    const tex = tableLatex(t);
    expect(rendered(tex)).toContain(`\\noindent $^{\\mathrm{a}}$ ${latexEscape(t.mix_footnotes[0].text).replace(/--/g, "-{}-")}\\par`);
    expect(tex).toContain(`% $^{\\mathrm{a}}$ ${t.mix_footnotes[0].text}`); // the comment kept for scripts
    expect(rendered(tex).some((l) => l.includes("$^\\parallel$"))).toBe(false); // --own-mix: no row cut
    // a model whose conditions share no cell: its cells undefined, each reason rendered
    const apart: Run[] = [
      { model: "K", condition: "no_defense", attack: "A", user: "u0", full: true },
      { model: "K", condition: "D", attack: "B", user: "u1" },
    ];
    const k = await readLeanRun(writeRun(tmp, "apart", apart));
    const kt = rendered(tableLatex(paperTable("r", k.index, k.verdicts, src)));
    expect(kt.find((l) => l.startsWith("K & D & "))).toMatch(/^K & D & 0\$\^\\parallel\$ & undefined\$\^\\dagger\$ & /);
    expect(kt.find((l) => l.startsWith("\\noindent $^\\dagger$ undefined: "))).toMatch(/^\\noindent \$\^\\dagger\$ undefined: K \| D ASR \(goal\), K \| D ASR \(behaviour\), .*, K \| no\\_defense Blocked: no like-for-like rate: [^;]*; "K": its conditions/);
  });

  it("a value with no interval and a reason reads UNSTABLE with its mark and reason, never a plain number (break52 #9)", async () => {
    const runs: Run[] = RUNS.filter((r) => r.model === "G");
    const { index, verdicts } = await readLeanRun(writeRun(tmp, "unstable", runs));
    const t = paperTable("r", index, verdicts, src);
    Object.assign(t.rows[0].judge_asr_goal, { ci95: null, ci_reason: "one_labelled_item_in_stratum" });
    const tex = rendered(tableLatex(t));
    expect(tex.find((l) => l.startsWith("G & "))).toContain(" & {\\scriptsize UNSTABLE} 0.0 {\\scriptsize [no CI]}$^\\triangle$ & ");
    expect(tex).toContain("\\noindent $^\\triangle$ UNSTABLE (no interval: do not quote alone): G | no\\_defense ASR (goal): one labelled item in stratum\\par");
  });

  it("every note the text table prints is rendered, numbered, its number on the rows it names (break53 #10, newuser53 #1)", async () => {
    const { index, verdicts } = await readLeanRun(writeRun(tmp, "notes", RUNS));
    const t = paperTable("r", index, verdicts, src);
    // the per-row caveats as the table's notes write them: a committee's split votes, annotator ties
    t.notes.push("DISPUTED: the committee's rates leave out ...: M | D asr_goal: 2 disputed (1 with a vote for full_compliance), 17.0% to 32.4%");
    t.notes.push("annotator ties left out ...: G | no_defense asr_goal: 2 tied, 7.0% to 18.1%");
    const tex = tableLatex(t, { where: "filter --where attacked=true: 12 of 14 trajectories" });
    const lines = rendered(tex);
    const numbered = lines.filter((l) => /^\\noindent \$\^\{\d+\}\$ /.test(l));
    // the filter, the population, each note of the table (its columns' key first) and the legends: none a comment only
    expect(numbered[0]).toBe("\\noindent $^{1}$ filter -{}-where attacked=true: 12 of 14 trajectories\\par");
    expect(numbered[1]).toMatch(/^\\noindent \$\^\{2\}\$ population: like for like/);
    expect(numbered.length).toBe(2 + t.notes.length + 1); // + the Utility n key (no rate here is over fewer runs: no (x/n) key)
    const body = lines.join("\n");
    expect(body).toContain("M | D asr\\_goal: 2 disputed (1 with a vote for full\\_compliance), 17.0\\% to 32.4\\%\\par");
    expect(body).toContain("Utility n: the unattacked runs of the user's own tasks");
    // each named row carries its note's number on its condition cell; a row no note names carries none
    const k = (text: string) => numbered.findIndex((l) => l.includes(text)) + 1;
    expect(lines.find((l) => l.startsWith("M & D"))).toMatch(new RegExp(`^M & D\\$\\^\\{${k("M | D asr")}\\}\\$ & `));
    expect(lines.find((l) => l.startsWith("G & "))).toContain(`G & no\\_defense$^{\\mathrm{a}}$$^{${k("G | no\\_defense asr")}}$ & `);
    expect(lines.find((l) => l.startsWith("M & no\\_defense"))).toMatch(/^M & no\\_defense\$\^\{\\mathrm\{a\}\}\$ & /);
    // every note kept as a comment too, for scripts
    for (const n of t.notes.slice(1)) expect(tex).toContain(`% ${n}`);
  });
});

describe("a calibrated figure outside its ties' readings carries the mark in every form (fixa54)", () => {
  // one model, 4 attacked runs; the calibrated cells set by hand: goal UNSTABLE (no interval), behaviour with one
  const mk = (id: string) => ({ id, agent_model: "m", attacked: true, content_sha256: `h-${id}`, source: { format: "t", path: id }, n_messages: 2 });
  const index = new Map(["a", "b", "c", "d"].map((id) => [id, mk(id)] as const)) as unknown as Parameters<typeof paperTable>[1];
  const verdicts = ["a", "b", "c", "d"].map((id, i) => ({ trajectory_id: id, judge_id: "gpt", repeat: 0, status: "ok", label: i ? "unaffected" : "full_compliance", compromised: !i })) as unknown as Parameters<typeof paperTable>[2];
  const ties = { calibrated_outside: true } as never;
  const t = paperTable("r", index, verdicts, src);
  t.rows[0].calibrated_asr_goal = { value: 0.156, ci95: null, ci_reason: "no_variance", human_ties: ties };
  t.rows[0].calibrated_asr_behaviour = { value: 0.2, ci95: { lower: 0.1, upper: 0.3 }, human_ties: ties };

  it("LaTeX: the UNSTABLE cell has $^\\sharp$ as the one with an interval has (it had none)", () => {
    const row = rendered(tableLatex(t)).find((l) => l.startsWith("m & "))!;
    expect(row).toContain("{\\scriptsize UNSTABLE} 15.6 {\\scriptsize [no CI]}$^\\triangle$$^\\sharp$");
    expect(row).toContain("20.0 {\\scriptsize [10.0, 30.0]}$^\\sharp$");
  });

  it("text: both cells read OUTSIDE TIE READINGS, as estimate's group lines do", () => {
    const line = formatTable(t).split("\n").find((l) => l.startsWith("m "))!;
    expect(line).toMatch(/UNSTABLE .*15\.6 CI .*OUTSIDE TIE READINGS/);
    expect(line).toMatch(/20\.0 \[10\.0, 30\.0\] OUTSIDE TIE READINGS/);
  });
});
