/**
 * A two-judge run from real runs (test/data/like-for-like): labelled by the signature judge, then a second judge
 * "other" (family "other") added to store.json whose verdicts are the signature's passed through `relabel`, and the
 * committee written. Shared by the committee-tie tests (test/cli/committee-goal-split, test/cli/estimate-disputed).
 */
import fs from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import { runCli } from "./cli.js";
import { DATA } from "./paths.js";

/** A JSONL file's records, blank lines skipped. */
export const jsonLines = (f: string) => fs.readFileSync(f, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));

/**
 * Label like-for-like as run "g" under `labels`, add judge "other" with `relabel(verdict)` of each signature verdict
 * (given with `judge_id: "other"` already set), and write the committee (`--bootstrap 0`). Asserts each command's exit 0.
 * @returns the run folder
 */
export async function otherJudgeRun(labels: string, relabel: (v: Record<string, unknown>) => Record<string, unknown>): Promise<string> {
  const run = path.join(labels, "g");
  const l = await runCli(["label", path.join(DATA, "like-for-like"), "--judge", "signature", "--run", "g", "--labels-dir", labels]);
  expect(l.code).toBe(0);
  const store = JSON.parse(fs.readFileSync(path.join(run, "store.json"), "utf8"));
  store.judges.push({ ...store.judges[0], id: "other", family: "other" });
  fs.writeFileSync(path.join(run, "store.json"), JSON.stringify(store));
  const other = jsonLines(path.join(run, "verdicts.jsonl")).map((v) => relabel({ ...v, judge_id: "other" }));
  fs.appendFileSync(path.join(run, "verdicts.jsonl"), other.map((v) => JSON.stringify(v)).join("\n") + "\n");
  expect((await runCli(["committee", "--run", "g", "--labels-dir", labels, "--bootstrap", "0"])).code).toBe(0);
  return run;
}
