/**
 * New user 46 F3: after `sample --where attacked=true --where suite=...`, `estimate --human` (and `report --human`)
 * without the same `--where` printed only `undefined (outside_sample_population)` human and calibrated figures.
 * The human file records the sample's `--where`; the commands now apply it when no `--where` is given and say so
 * (src/cli/sample-where-default.ts). Through the built CLI on the 516 real AgentDojo runs (signature judge), a
 * 40-item sample of the attacked workspace runs and one annotator copying the judge.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { runCli } from "../helpers/cli.js";
import { corpusRun, inFolder } from "./corpus-run.js";
import { applySampleWhere } from "../../src/cli/sample-where-default.js";
import { resetWarnings } from "../../src/cli/warn.js";
import { readHumanLabels } from "../../src/agree/human-file.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-sample-where-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const { readJsonl } = inFolder(tmp);

beforeAll(async () => {
  const { run, judged } = await corpusRun(tmp);
  await run(["sample", "--run", "r", "--random", "40", "--disagreement", "0", "--seed", "3", "--where", "attacked=true", "--where", "suite=workspace", "--out", "s1"]);
  const label = judged();
  const rows = readJsonl("s1/manifest.jsonl").slice(1);
  fs.writeFileSync(path.join(tmp, "ann.csv"), ["item_id,annotator,label", ...rows.map((m) => `${m.item_id},ann,${label.get(m.trajectory_id)}`)].join("\n") + "\n");
  await run(["import-annotations", "ann.csv", "--manifest", "s1/manifest.jsonl", "--out", "s1/human.jsonl"]);
}, 180_000);

describe("estimate and report take the sample's recorded population as --where when none is given", () => {
  it("estimate --human without --where equals estimate --where <the sample's>, said on stderr; --no-sample-population keeps the whole run", async () => {
    const plain = await runCli(["estimate", "--run", "r", "--human", "s1/human.jsonl", "--json"], { cwd: tmp });
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stderr).toContain(
      "estimate: s1/human.jsonl records the population its sample was drawn from (--where attacked=true --where suite=workspace): every figure below is over it, the judge's too",
    );
    const given = await runCli(["estimate", "--run", "r", "--human", "s1/human.jsonl", "--json", "--where", "attacked=true", "--where", "suite=workspace"], { cwd: tmp });
    expect(given.code, given.stderr).toBe(0);
    expect(given.stderr).not.toContain("records the population its sample was drawn from");
    const a = JSON.parse(plain.stdout);
    const g = JSON.parse(given.stdout);
    // --json says where its where came from (not only stderr): the label file's sample population, or --where
    expect([a.where_from, g.where_from]).toEqual(["sample", "option"]);
    expect({ ...a, where_from: "option" }).toEqual(g);
    expect(a.groups[0].calibrated.asr).not.toBeNull();
    // the judge's figure is over the sample's population: the attacked workspace runs, recounted from the run's files
    const ids = new Set(readJsonl("labels/r/trajectories.jsonl").filter((t) => t.attacked === true && t.suite === "workspace").map((t) => t.id));
    expect(a.groups[0].n_population).toBe(ids.size);
    const whole = await runCli(["estimate", "--run", "r", "--human", "s1/human.jsonl", "--json", "--no-sample-population"], { cwd: tmp });
    expect(whole.code, whole.stderr).toBe(0);
    const w = JSON.parse(whole.stdout);
    expect(w.groups[0].calibrated.asr).toBeNull();
    expect(w.groups[0].calibrated.reason).toMatch(/^outside_sample_population/);
  });

  it("report --human without --where is over the sample's population too, said on stderr", async () => {
    const r = await runCli(["report", "--run", "r", "--human", "s1/human.jsonl", "--bootstrap", "0", "--out", "rep.html", "--json"], { cwd: tmp });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("report: s1/human.jsonl records the population its sample was drawn from (--where attacked=true --where suite=workspace)");
    expect(fs.readFileSync(path.join(tmp, "rep.html"), "utf8")).toContain("attacked=true");
  });

  it("applySampleWhere: nothing applied with a --where given, --no-sample-population, no --human, no record, or an unreadable file", () => {
    const f = path.join(tmp, "s1/human.jsonl");
    expect(applySampleWhere({ human: f, where: ["model=x"] }, "t")).toEqual({ args: null });
    expect(applySampleWhere({ human: f, samplePopulation: false }, "t")).toEqual({ args: null });
    expect(applySampleWhere({}, "t")).toEqual({ args: null });
    expect(applySampleWhere({ human: path.join(tmp, "missing.jsonl") }, "t")).toEqual({ args: null });
    const bare = path.join(tmp, "bare.jsonl");
    fs.writeFileSync(bare, `${JSON.stringify({ trajectory_id: "x", annotator: "a", label: "unaffected" })}\n`);
    // read and nothing to apply: the read is handed on all the same (the command does not read the file again)
    expect(applySampleWhere({ human: bare }, "t")).toEqual({ args: null, labels: readHumanLabels(bare) });
    const unknown = path.join(tmp, "unknown.jsonl");
    fs.writeFileSync(unknown, `${JSON.stringify({ trajectory_id: "x", annotator: "a", label: "unaffected", sample_where: { filter: "zzz=1", clauses: { zzz: ["1"] }, N: 3 } })}\n`);
    expect(applySampleWhere({ human: unknown }, "t").args).toBeNull();
    const o: { human: string; where?: string[] } = { human: f };
    const applied = applySampleWhere(o, "t");
    expect(applied.args).toBe("--where attacked=true --where suite=workspace");
    expect(applied.labels).toEqual(readHumanLabels(f));
    expect(o.where).toEqual(["attacked=true", "suite=workspace"]);
  });

  it("a file whose rows record no one population (two samples pasted together, rows recording none beside one, a malformed record): nothing applied, said; the same population written two ways is one (break47)", () => {
    const row = (id: string, sw: unknown) => JSON.stringify({ trajectory_id: id, annotator: "a", label: "unaffected", ...(sw === undefined ? {} : { sample_where: sw }) });
    const ws = { filter: "attacked=true suite=workspace", clauses: { attacked: ["true"], suite: ["workspace"] }, N: 105 };
    const bk = { filter: "attacked=true suite=banking", clauses: { attacked: ["true"], suite: ["banking"] }, N: 103 };
    const file = (name: string, lines: string[]) => (fs.writeFileSync(path.join(tmp, name), lines.join("\n") + "\n"), path.join(tmp, name));
    const said = (f: string) => {
      let err = "";
      resetWarnings();
      const se = vi.spyOn(process.stderr, "write").mockImplementation((c: string | Uint8Array) => ((err += String(c)), true));
      const o: { human: string; where?: string[] } = { human: f };
      let r: string | null;
      try {
        r = applySampleWhere(o, "estimate").args;
      } finally {
        se.mockRestore();
      }
      return { r, where: o.where, err };
    };
    // before: the first row's population was taken, so the judge's figures hung on the order of the rows
    for (const lines of [[row("x", ws), row("y", bk)], [row("y", bk), row("x", ws)]]) {
      const s = said(file("two.jsonl", lines));
      expect(s.r).toBeNull();
      expect(s.where).toBeUndefined();
      expect(s.err).toContain("holds rows of samples drawn from 2 different populations");
      expect(s.err).toContain("--where attacked=true --where suite=workspace (1 row from line");
      expect(s.err).toContain("--where attacked=true --where suite=banking (1 row from line");
      expect(s.err).toContain("none is taken as --where, so the figures below are over the whole run");
    }
    const mixed = said(file("mixed.jsonl", [row("x", undefined), row("y", ws), row("z", ws)]));
    expect(mixed.r).toBeNull();
    expect(mixed.err).toContain("no population recorded (the whole run, or rows made by hand) (1 row from line 1); --where attacked=true --where suite=workspace (2 rows from line 2)");
    const bad = said(file("bad.jsonl", [row("x", ws), row("y", { filter: "suite=workspace", clauses: { suite: "workspace" }, N: 105 })]));
    expect(bad.r).toBeNull();
    expect(bad.err).toContain("bad.jsonl line 2: sample_where.clauses.suite must be a list of strings");
    // one population, its clauses in another order: applied
    const ws2 = { ...ws, clauses: { suite: ["workspace"], attacked: ["true"] } };
    const same = said(file("same.jsonl", [row("x", ws), row("y", ws2)]));
    expect(same.r).toBe("--where attacked=true --where suite=workspace");
    expect(same.where).toEqual(["attacked=true", "suite=workspace"]);
  });
});
