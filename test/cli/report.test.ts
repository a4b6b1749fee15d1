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
    const r = await runCli(["report", "--run", fx.run, "--labels-dir", fx.labelsDir, "--human", fx.humanFile, "--out", out, "--bootstrap", "200", "--json"]);
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

  it("caps the list with --max-items and prints a one-line summary without --json", async () => {
    const out = path.join(tmp, "capped.html");
    const r = await runCli(["report", "--run", fx.run, "--labels-dir", fx.labelsDir, "--out", out, "--max-items", "3", "--bootstrap", "0"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^report written to .*capped\.html \(\d+ KB\): 3 judge\(s\), committee, benchmark verdicts; 3 of \d+ disagreements listed\n$/);
    const html = fs.readFileSync(out, "utf8");
    expect((html.match(/<details class="item"/g) ?? []).length).toBe(3);
    expect(html).toContain("raise --max-items to list more");
  });

  it("usage errors exit 2", async () => {
    const cases: Array<[string[], RegExp]> = [
      [["report", "--run", "nope", "--labels-dir", fx.labelsDir], /no run "nope"/],
      [["report", "--run", fx.run, "--labels-dir", fx.labelsDir, "--human", path.join(tmp, "missing.csv")], /human label file .* not found/],
      [["report", "--run", fx.run, "--labels-dir", fx.labelsDir, "--max-items", "x"], /--max-items must be an integer/],
    ];
    for (const [args, msg] of cases) {
      const r = await runCli(args);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr, args.join(" ")).toMatch(msg);
    }
  });
});
