/**
 * New user 33: `agree --run both --reference security` gave one kappa over AgentDojo's and AgentDyn's checkers (two
 * input folders labelled into one run), and its pooling line named models and conditions but not suites. The line
 * now names the suites, and a warning names the source folders with their runs and suites.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { SAMPLES } from "../helpers/paths.js";
import { SourceFold, POOLED_SOURCES_MARK } from "../../src/agree/pooled-sources.js";
import { poolingOf } from "../../src/format/pooled-text.js";
import { unwrapText } from "../../src/format/wrap-text.js";

let tmp: string;
let labels: string;
/** A copy of the sample runs keeping only `suites`, as `<tmp>/<name>/runs/<model>/<suite>/...`. */
function bench(name: string, suites: string[]): string {
  const root = path.join(tmp, name);
  for (const model of fs.readdirSync(path.join(SAMPLES, "runs"))) {
    for (const s of suites) {
      const from = path.join(SAMPLES, "runs", model, s);
      if (fs.existsSync(from)) fs.cpSync(from, path.join(root, "runs", model, s), { recursive: true });
    }
  }
  return root;
}
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-pooled-sources-"));
  labels = path.join(tmp, "labels");
  const a = bench("benchA", ["workspace"]);
  const b = bench("benchB", ["slack", "banking", "travel"]);
  expect((await runCli(["label", a, b, "--run", "both", "--labels-dir", labels, "--json"])).code).toBe(0);
  expect((await runCli(["label", a, "--run", "one", "--labels-dir", labels, "--json"])).code).toBe(0);
}, 180_000);
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe("agree --reference over runs from two input folders (new user 33)", () => {
  it("text and JSON: a warning naming each folder's runs and suites; the pooling line names the suites; --where and one folder: none", async () => {
    const text = await runCli(["agree", "--run", "both", "--labels-dir", labels, "--reference", "security"]);
    expect(text.code).toBe(0);
    const w = unwrapText(text.stdout).split("\n").find((l) => l.includes(POOLED_SOURCES_MARK))!;
    expect(w).toMatch(new RegExp(`^WARNING: the figures pool runs read from several inputs: 2 source folders \\(\\d+ runs compared, attacked with a benchmark security verdict and no agent error; ${tmp}/benchA/runs: \\d+ runs, 1 suite \\(workspace\\); ${tmp}/benchB/runs: \\d+ runs, \\d suites \\(`));
    expect(w).toMatch(/--where suite=workspace keeps those of .*benchA\/runs only/);
    expect(unwrapText(text.stdout)).toMatch(/^the figures pool the \d+ trajectories .* over \d suites \([a-z, ]*workspace\): one figure over all of them, not per model, condition or suite/m);
    const json = JSON.parse((await runCli(["agree", "--run", "both", "--labels-dir", labels, "--reference", "security", "--json"])).stdout);
    expect(json.warnings.some((x: string) => x.includes(POOLED_SOURCES_MARK))).toBe(true);
    expect(json.pooling.suites).toContain("workspace");
    // the object path (--where) says the same
    const where = await runCli(["agree", "--run", "both", "--labels-dir", labels, "--reference", "security", "--where", "model=gpt-4o-2024-05-13"]);
    expect(unwrapText(where.stdout)).toContain("the figures (of the trajectories --where keeps) pool runs read from several inputs: 2 source folders");
    const narrowed = await runCli(["agree", "--run", "both", "--labels-dir", labels, "--reference", "security", "--where", "suite=workspace"]);
    expect(unwrapText(narrowed.stdout)).not.toContain(POOLED_SOURCES_MARK);
    const one = await runCli(["agree", "--run", "one", "--labels-dir", labels, "--reference", "security"]);
    expect(unwrapText(one.stdout)).not.toContain(POOLED_SOURCES_MARK);
  });
});

describe("SourceFold and the pooling line's suites", () => {
  it("formats and folders; the recorded input when a row has no run_folder; overlapping suites: label apart", () => {
    const f = new SourceFold(["/in/a", "/in/b"]);
    f.add({ source: { format: "chat_jsonl", path: "/in/a/x.jsonl" }, suite: "s" });
    f.add({ source: { format: "inspect", path: "/in/b/y.eval" }, suite: "s" });
    expect(f.warning("the figures")).toBe(
      "the figures pool runs read from several inputs: 2 source folders (/in/a: 1 runs, 1 suite (s); /in/b: 1 runs, 1 suite (s)) and 2 input formats (chat_jsonl 1, inspect 1): " +
        "possibly different benchmarks, whose checkers and tasks differ, and one figure over them mixes them; label each input as a run of its own for one figure per input",
    );
    // the counts say what they count when the caller names it (new user 44 item 9b)
    expect(f.warning("the figures", "runs compared, attacked with a benchmark security verdict and no agent error")).toContain(
      "2 source folders (2 runs compared, attacked with a benchmark security verdict and no agent error; /in/a: 1 runs, 1 suite (s); /in/b: 1 runs",
    );
    const same = new SourceFold();
    same.add({ source: { format: "agentdojo", path: "/x/1.json" }, run_folder: "/x/runs", suite: "s" });
    same.add({ source: { format: "agentdojo", path: "/x/2.json" }, run_folder: "/x/runs", suite: "t" });
    expect(same.warning("the figures")).toBeNull();
  });
  it("keyCode: one small integer per distinct key, from 0 in order of first appearance; counting by codes warns as add() does (issue 26)", () => {
    const rows = [
      { source: { format: "chat_jsonl", path: "/in/a/x.jsonl" }, suite: "s" },
      { source: { format: "inspect", path: "/in/b/y.eval" }, suite: "s" },
      { source: { format: "chat_jsonl", path: "/in/a/z.jsonl" }, suite: "s" },
      { source: { format: "agentdojo", path: "/in/b/w.json" }, run_folder: "/in/b", suite: "t" },
    ];
    const byRow = new SourceFold(["/in/a", "/in/b"]);
    const byCode = new SourceFold(["/in/a", "/in/b"]);
    const codes = rows.map((r) => byCode.keyCode(r));
    expect(codes).toEqual([0, 1, 0, 2]);
    codes.forEach((c, i) => expect(byCode.keyOfCode(c)).toBe(byCode.key(rows[i])));
    expect(() => byCode.keyOfCode(3)).toThrow(/no source key has code 3/);
    for (const r of rows) byRow.add(r);
    for (const c of codes) byCode.addKey(byCode.keyOfCode(c));
    expect(byCode.warning("the figures", "runs")).toBe(byRow.warning("the figures", "runs"));
    expect(byRow.warning("the figures")).toContain("/in/a: 2 runs, 1 suite (s)");
  });
  it("poolingOf names the suites when the rows carry them", () => {
    const p = poolingOf([{ attacked: true, agent_model: "m", condition: "c", suite: "b" }, { attacked: true, agent_model: "m", condition: "c", suite: "a" }], "x");
    expect(p.suites).toEqual(["a", "b"]);
    expect(p.text).toBe("x pool the 2 attacked trajectories of 1 agent model (m) and 1 condition (c), over 2 suites (a, b): one figure over all of them, not per model, condition or suite");
  });
});
