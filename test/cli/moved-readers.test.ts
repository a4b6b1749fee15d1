/**
 * A run whose input moved after `label` (runs53), through the built CLI: a model folder renamed (new ids, verdicts
 * carried over) and the corpus folder moved above the ids (same ids). `label` said "moved"; the commands after it said
 * "input_removed: N trajectories whose input is gone" for the renamed folder's old ids, and `sample` refused the
 * same-id ones ("source file ... not found ... trajectories whose input is gone"). Now every later command says the
 * old ids moved (from where to where), as a note, the index rows follow the moved folder, and no figure changes.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { SAMPLES } from "../helpers/paths.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "moved-readers-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const MODEL = "gemini-1.5-pro-001";

describe("commands after label on a run whose input moved", () => {
  it("say moved (old -> new), never 'gone'; sample reads the moved files; the figures are the same", async () => {
    const w = path.join(tmp, "w");
    fs.cpSync(path.join(SAMPLES, "runs"), path.join(w, "ad", "runs"), { recursive: true });
    const cli = async (args: string[], code = 0) => {
      const r = await runCli([...args, "--run", "r", "--labels-dir", "L"], { cwd: w });
      expect(r.code, r.stderr).toBe(code);
      return r;
    };
    await cli(["label", "ad/runs", "--judge", "signature", "--json"]);
    const figures = async () => {
      const agree = JSON.parse((await cli(["agree", "--reference", "security", "--json"])).stdout);
      const compare = JSON.parse((await cli(["compare", "--json"])).stdout);
      const { n_total, n_used, kappa, confusion, rates } = agree;
      return { agree: JSON.stringify({ n_total, n_used, kappa, confusion, rates }), n: compare.n_observations, cells: JSON.stringify(compare.cells), asr: JSON.stringify(compare.asr) };
    };
    const before = await figures();
    fs.renameSync(path.join(w, "ad", "runs", MODEL), path.join(w, "ad", "runs", "renamed"));
    fs.mkdirSync(path.join(w, "mv"));
    fs.renameSync(path.join(w, "ad", "runs"), path.join(w, "mv", "runs"));
    const again = JSON.parse((await cli(["label", "mv/runs", "--judge", "signature", "--json"])).stdout);
    expect(again.this_run.judged).toBe(0);
    expect(again.warnings.some((x: string) => x.startsWith("the input files of ") && x.includes("ad/runs/") && x.includes("-> mv/runs/"))).toBe(true);
    for (const args of [["agree", "--reference", "security"], ["compare"], ["estimate", "--table"]]) {
      const r = await cli(args);
      const out = (r.stdout + r.stderr).replace(/\s+/g, " ");
      expect(out, args[0]).toContain(`input_removed: the 22 old ids of trajectories whose input moved (the same content read under a new id, e.g. "${MODEL}/`);
      expect(out, args[0]).toMatch(/-> "renamed\//);
      expect(out, args[0]).toContain("no trajectory was lost");
      expect(out, args[0]).not.toContain("whose input is gone");
    }
    expect((await cli(["agree", "--reference", "security"])).stdout).toMatch(/^note: input_removed: the 22 old ids/m);
    // compare and estimate say it as label and agree do: a note (the figures are right), never a WARNING (fixb54);
    // --json carries it under `notes`, not `warnings`
    for (const args of [["compare"], ["estimate", "--table"]]) {
      const r = await cli(args);
      expect(r.stdout, args[0]).toMatch(/^note: input_removed: the 22 old ids/m);
      expect(r.stdout + r.stderr, args[0]).not.toMatch(/WARNING: input_removed/);
    }
    const cj = JSON.parse((await cli(["compare", "--json"])).stdout);
    expect(cj.notes.some((n: string) => n.startsWith("input_removed: the 22 old ids"))).toBe(true);
    expect(cj.warnings.some((w: string) => w.includes("input_removed"))).toBe(false);
    // the index holds a second row of each trajectory whose folder moved; every reader counted each once (figures below)
    const rows = fs.readFileSync(path.join(w, "L", "r", "trajectories.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l).id);
    expect(rows.length).toBeGreaterThan(new Set(rows).size);
    const sample = await cli(["sample", "--random", "20", "--seed", "1", "--out", path.join(w, "s")]);
    expect(sample.stderr).not.toContain("not found");
    const after = await figures();
    expect(after).toEqual(before);
    expect(before.agree).toContain('"kappa":');
    // agree names its inputs' folders (a pool of folders is warned); the rows now say mv/runs only
    expect((await cli(["agree", "--reference", "security"])).stdout).not.toContain("several inputs");
  }, 240_000);
});
