/**
 * A run whose only judge was stopped before it stored any verdict (task s40 #1): the endpoint refuses every call
 * (HTTP 401: a fatal error), or `--max-cost` is below one conversation's worst case. Before, `agree` and `committee`
 * exited 0 with "nothing to compare" and `committee` wrote a file of 0 judges with a quorum warning; `compare`,
 * `estimate` and `report` exited 2 or 1 with a usage or "no verdicts" message. Now every figure command exits 3
 * (`EXIT.brokenJudge`, the broken-judge rule) naming the judge and why (../../src/verdict/stopped-judges.ts), and no
 * committee file is written. The built CLI against scripted 127.0.0.1 servers.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { apiError, completion, startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { SAMPLES } from "../helpers/paths.js";

let tmp: string;
let labels: string;
let deaf: FakeOpenAI;
let fine: FakeOpenAI;
const writeJudges = (name: string, id: string, url: string, extra: Record<string, unknown> = {}) => {
  const f = path.join(tmp, `${name}.json`);
  fs.writeFileSync(f, JSON.stringify({ judges: [{ id, model: "m", family: "meta", base_url: url, concurrency: 2, output_mode: "json_object", ...extra }] }));
  return f;
};

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-stopped-exit-"));
  labels = path.join(tmp, "labels");
  deaf = await startFakeOpenAI([apiError(401, "invalid api key", { code: "invalid_api_key" })]);
  fine = await startFakeOpenAI([completion(JSON.stringify({ findings: [], label: "unaffected", rationale: "r" }))]);
  const a = await runCli(["label", SAMPLES, "--judges", writeJudges("deaf", "deaf", deaf.url), "--run", "r401", "--labels-dir", labels]);
  expect(a.code, a.stderr).toBe(1);
  expect(a.stderr).toMatch(/judge deaf stopped/);
  const price = { price: { input_per_mtok: 2, output_per_mtok: 8 }, max_tokens: 1000 };
  const b = await runCli(["label", SAMPLES, "--judges", writeJudges("cap", "capped", fine.url, price), "--run", "rcap", "--labels-dir", labels, "--max-cost", "0.000001"]);
  expect(b.code, b.stderr).toBe(1);
  expect(fine.requests.length).toBe(0); // nothing sent: the cap is below one conversation's worst case
}, 120_000);
afterAll(async () => {
  await deaf.close();
  await fine.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const WHY_401 = /deaf: it was stopped by a fatal error in the last label run \(judge "deaf": the API refused the credentials \(HTTP 401\)/;
const WHY_CAP = /capped: the last label run was stopped by its cost cap \(--max-cost \$0\.000001\) \([^)]*\) before it stored a verdict of this judge here/;
const COMMANDS: string[][] = [
  ["agree", "--reference", "security"],
  ["agree", "--reference", "security", "--json"],
  ["committee"],
  ["committee", "--json"],
  ["compare", "--by", "attack"],
  ["estimate", "--table"],
  ["report", "--out", "r.html"],
];

describe("figure commands on a run whose only judge was stopped before any verdict", () => {
  for (const [run, why] of [["r401", WHY_401], ["rcap", WHY_CAP]] as const) {
    it(`${run}: every command exits 3 naming the judge and why; committee writes no file`, async () => {
      for (const args of COMMANDS) {
        const r = await runCli([...args, "--run", run, "--labels-dir", labels], { cwd: tmp });
        expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(3);
        expect(r.stderr).toMatch(new RegExp(`ipi-judge: ${args[0]} has no figures: the judge (it was asked for|of the run) stored no verdict in run ${run} and was stopped`));
        expect(r.stderr).toMatch(why);
        expect(r.stdout).not.toMatch(/nothing to compare/);
        if (args.includes("--json")) expect(JSON.parse(r.stdout).error).toMatchObject({ exit_code: 3, kind: "broken_judge" });
      }
      expect(fs.existsSync(path.join(labels, run, "committee.jsonl"))).toBe(false);
      // the judge named: the same exit
      const j = await runCli(["compare", "--by", "attack", "--judge", run === "r401" ? "deaf" : "capped", "--run", run, "--labels-dir", labels]);
      expect(j.code, j.stderr).toBe(3);
      expect(j.stderr).toMatch(why);
    }, 120_000);
  }

  it("a committee file of 0 judges (an older version's) is stale, never read as the committee's labels", async () => {
    const file = path.join(labels, "r401", "committee.jsonl");
    const ids = fs.readFileSync(path.join(labels, "r401", "trajectories.jsonl"), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l).id as string);
    fs.writeFileSync(file, ids.map((id) => JSON.stringify({ trajectory_id: id, label: "no_quorum", votes: {}, committee_judges: [], excluded_judges: [], quorum: 2 })).join("\n") + "\n");
    try {
      const r = await runCli(["compare", "--by", "attack", "--committee", "--run", "r401", "--labels-dir", labels]);
      expect(r.code, r.stderr).toBe(3); // the stopped judge first
      const { checkCommitteeFile, readCommitteeFile } = await import("../../src/committee/file.js");
      const cf = await readCommitteeFile(path.join(labels, "r401"));
      expect(checkCommitteeFile(cf!, []).stale.join("\n")).toMatch(/is the committee of no judge/);
    } finally {
      fs.rmSync(file);
    }
  }, 60_000);
});
