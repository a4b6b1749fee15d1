import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { buildCommitteeFixture, type CommitteeFixture } from "../report/fixture.js";

let tmp: string;
let fx: CommitteeFixture;
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-cli-report-"));
  fx = await buildCommitteeFixture(tmp);
}, 120_000);
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe("ipi-judge report", () => {
  it("writes the report of a committee run with human labels over a sample", async () => {
    const out = path.join(tmp, "out", "report.html");
    const r = await runCli(["report", "--run", fx.run, "--labels-dir", fx.labelsDir, "--human", fx.humanFile, "--out", out, "--bootstrap", "200", "--committee", "--json"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.out).toBe(out);
    expect(s.judges).toEqual(["lenient-a", "signature", "strict-b"]);
    expect(s.committee).toBe("committee.jsonl");
    expect(s.human).toMatchObject({ scale: "six" });
    expect(s.human.items).toBeGreaterThan(30);
    expect(s.reference).toBe(4);
    expect(s.items).toBe(s.items_total);
    expect(s.items_unavailable).toBe(0);
    const html = fs.readFileSync(out, "utf8");
    expect(Buffer.byteLength(html)).toBe(s.bytes);
    for (const id of ["overview", "asr", "labels", "agreement", "conditions", "disagreements"]) expect(html).toContain(`<section id="${id}"`);
  });

  it("paper table: --judge / --committee as estimate takes them; several judges and no choice leave it out, named", async () => {
    const base = ["report", "--run", fx.run, "--labels-dir", fx.labelsDir, "--bootstrap", "0", "--json"];
    // no choice: the table is left out with estimate's own message, on stderr and in the page; the rest is written
    const none = path.join(tmp, "none.html");
    const r0 = await runCli([...base, "--out", none]);
    expect(r0.code).toBe(0);
    const est = await runCli(["estimate", "--run", fx.run, "--labels-dir", fx.labelsDir, "--table"]);
    expect(est.code).toBe(2);
    const msg = "run committee has 3 judges (lenient-a, signature, strict-b): choose one with --judge ID, or --committee";
    expect(est.stderr).toContain(msg);
    expect(r0.stderr).toBe(`ipi-judge: warning: paper table left out: ${msg}\n`);
    const s0 = JSON.parse(r0.stdout);
    expect(s0.paper_table).toBeNull();
    expect(s0.paper_table_reason).toBe(msg);
    const h0 = fs.readFileSync(none, "utf8");
    expect(h0).toContain(`<section id="paper-table"><h2>The table of a paper</h2>`);
    expect(h0).toContain("Not shown: <bdi>run committee has 3 judges");
    expect(h0).toContain(`<section id="disagreements"`);
    // --judge ID: the table names that judge
    const one = path.join(tmp, "one.html");
    const r1 = await runCli([...base, "--out", one, "--judge", "strict-b"]);
    expect(r1.code).toBe(0);
    // with each row's n and marks (as estimate --table): the fields the page's table shows
    const t1 = JSON.parse(r1.stdout).paper_table;
    expect(t1).toMatchObject({ source: "strict-b", population: { kind: "like_for_like" }, mix_footnotes: expect.any(Array) });
    expect(t1.rows.length).toBeGreaterThan(0);
    for (const r of t1.rows) expect(Object.keys(r)).toEqual(["agent_model", "condition", "n_attacked", "n_attacked_left_out", "cells_left_out", "over", "mix_marks"]);
    const h1 = fs.readFileSync(one, "utf8");
    expect(h1).toContain("The table of a paper — <bdi>strict-b</bdi></h2>");
    expect(h1).toContain("judge: strict-b;");
    // --committee: the committee with its quorum
    const r2 = await runCli([...base, "--out", path.join(tmp, "c.html"), "--committee", "--quorum", "2"]);
    expect(r2.code).toBe(0);
    expect(JSON.parse(r2.stdout).paper_table).toMatchObject({ source: "committee (lenient-a, signature, strict-b; quorum 2)", population: { kind: "like_for_like" } });
    // explicit choices that do not fit refuse as estimate refuses (exit 2)
    const [bad, both] = await Promise.all([
      runCli([...base, "--out", path.join(tmp, "bad.html"), "--judge", "nosuch"]),
      runCli([...base, "--out", path.join(tmp, "both.html"), "--judge", "strict-b", "--committee"]),
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`judge "nosuch" has no verdicts in run committee`);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("give either --judge or --committee, not both");
  });

  it("caps the list with --max-items and prints a one-line summary without --json", async () => {
    const out = path.join(tmp, "capped.html");
    const r = await runCli(["report", "--run", fx.run, "--labels-dir", fx.labelsDir, "--out", out, "--max-items", "3", "--bootstrap", "0"]);
    expect(r.code).toBe(0);
    // the path as written, absolute (as `out` in --json), not relative to the working directory ("../../tmp/...")
    expect(r.stdout.startsWith(`report written to ${out} (`), r.stdout).toBe(true);
    expect(r.stdout).toMatch(/^report written to .*capped\.html \(\d+ KB\): 3 judge\(s\), committee \(lenient-a, signature, strict-b; quorum 2\), benchmark verdicts; 3 of \d+ disagreements listed\n$/);
    const html = fs.readFileSync(out, "utf8");
    expect((html.match(/<details class="item"/g) ?? []).length).toBe(3);
    expect(html).toContain("raise --max-items to list more");
  });

  it("prints the absolute path of a relative --out, from the working directory it was given in", async () => {
    const cwd = fs.mkdtempSync(path.join(tmp, "cwd-"));
    const r = await runCli(["report", "--run", fx.run, "--labels-dir", fx.labelsDir, "--out", "sub/rel.html", "--max-items", "1", "--bootstrap", "0"], { cwd });
    expect(r.code, r.stderr).toBe(0);
    expect(fs.existsSync(path.join(cwd, "sub", "rel.html"))).toBe(true);
    expect(r.stdout.startsWith(`report written to ${path.join(fs.realpathSync(cwd), "sub", "rel.html")} (`), r.stdout).toBe(true);
  });

  it("usage errors exit 2", async () => {
    const cases: Array<[string[], RegExp]> = [
      [["report", "--run", "nope", "--labels-dir", fx.labelsDir], /no run "nope"/],
      [["report", "--run", fx.run, "--labels-dir", fx.labelsDir, "--human", path.join(tmp, "missing.csv")], /human label file .* not found/],
      [["report", "--run", fx.run, "--labels-dir", fx.labelsDir, "--max-items", "x"], /--max-items must be an integer/],
    ];
    // each refuses before any work: started together, not one by one
    const rs = await Promise.all(cases.map(([args]) => runCli(args)));
    cases.forEach(([args, msg], i) => {
      expect(rs[i].code, args.join(" ")).toBe(2);
      expect(rs[i].stderr, args.join(" ")).toMatch(msg);
    });
  });
});
