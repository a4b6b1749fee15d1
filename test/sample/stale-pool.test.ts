/**
 * `sample --disagreement` refused for a short pool when committee.jsonl is stale (hostile52 F4, src/sample/index.ts
 * `drawOrStale`): the refusal names the out-of-date file and `committee` first, the old advice after it.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createSample, SampleError } from "../../src/sample/index.js";
import { buildCommittee } from "../../src/verdict/vote.js";
import { readLeanRun } from "../../src/store/lean-read.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-stalepool-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const verdict = (id: string, judge: string, label: string) =>
  JSON.stringify({ trajectory_id: id, judge_id: judge, judge_model: "m", judge_family: `f${judge}`, repeat: 0, prompt_sha256: "p", status: "ok", label, findings: [] });

describe("sample --disagreement on a stale committee", () => {
  it("says the committee file is out of date before 'lower it or pass --allow-short'", async () => {
    const dir = path.join(tmp, "run");
    fs.mkdirSync(dir);
    const ids = Array.from({ length: 30 }, (_, i) => `m/t${i}`);
    fs.writeFileSync(path.join(dir, "trajectories.jsonl"), ids.map((id, i) => JSON.stringify({ id, content_sha256: `c${i}`, attacked: true })).join("\n") + "\n");
    const two = ids.flatMap((id) => [verdict(id, "a", "unaffected"), verdict(id, "b", "unaffected")]);
    fs.writeFileSync(path.join(dir, "verdicts.jsonl"), two.join("\n") + "\n");
    const { index, verdicts } = await readLeanRun(dir);
    const committee = buildCommittee(verdicts, [...index.keys()], { judgeIds: ["a", "b"] });
    const meta = { committee_judges: ["a", "b"], excluded_judges: [], quorum: 2 };
    fs.writeFileSync(path.join(dir, "committee.jsonl"), committee.map((c) => JSON.stringify({ ...c, ...meta })).join("\n") + "\n");
    // judge c labels the run after the committee file, disagreeing everywhere
    fs.appendFileSync(path.join(dir, "verdicts.jsonl"), ids.map((id) => verdict(id, "c", "full_compliance")).join("\n") + "\n");
    const o = { runDir: dir, run: "r", random: 5, disagreement: 3, seed: 1, outDir: path.join(tmp, "out") };
    const e = await createSample(o).then(
      () => null,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(SampleError);
    const m = (e as Error).message;
    expect(m).toMatch(/^committee\.jsonl is out of date \(judge\(s\) c labelled the run after committee\.jsonl was written \(the committee of a, b\)\): .*run ipi-judge committee --run r again first/);
    expect(m.indexOf("committee --run r")).toBeLessThan(m.indexOf("--allow-short"));
    expect(fs.existsSync(o.outDir)).toBe(false);
  });
});
