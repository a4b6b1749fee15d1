/**
 * A committee with one judge stopped before its first verdict beside working ones (task s41 #1): before, `committee`
 * formed the committee of the others with warnings and exit 0 (with one other: a 1-judge "committee" file). Now it
 * exits 3 naming the stopped judge and why, writes no file, and says `--exclude-judge` is the way to the committee
 * of the others (src/cli/committee-stopped.ts). The built CLI against scripted 127.0.0.1 servers: "deaf" answers
 * every call with HTTP 401, the others with the bench server's realistic replies.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { benchReply } from "../../bench/server.js";
import { runCli } from "../helpers/cli.js";
import { apiError, completion, startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { userMessageOf } from "../helpers/fake-batch.js";
import { SAMPLES } from "../helpers/paths.js";

let tmp: string;
let labels: string;
let deaf: FakeOpenAI;
let fine: FakeOpenAI;
const judge = (id: string, url: string, family: string) => ({ id, model: `m-${id}`, family, base_url: url, concurrency: 2, output_mode: "json_object" });

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-committee-stopped-"));
  labels = path.join(tmp, "labels");
  deaf = await startFakeOpenAI([apiError(401, "invalid api key", { code: "invalid_api_key" })]);
  fine = await startFakeOpenAI((req) => completion(benchReply(userMessageOf(req.body))));
  for (const [run, judges] of [
    ["two", [judge("deaf", deaf.url, "meta"), judge("fine", fine.url, "openai")]],
    ["three", [judge("deaf", deaf.url, "meta"), judge("fine", fine.url, "openai"), judge("fine2", fine.url, "google")]],
  ] as const) {
    const f = path.join(tmp, `${run}.json`);
    fs.writeFileSync(f, JSON.stringify({ judges }));
    const r = await runCli(["label", SAMPLES, "--judges", f, "--run", run, "--labels-dir", labels]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/judge deaf stopped/);
  }
}, 180_000);
afterAll(async () => {
  await deaf.close();
  await fine.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const WHY = /deaf: it was stopped by a fatal error in the last label run \(judge "deaf": the API refused the credentials \(HTTP 401\)/;

describe("committee with a judge stopped at zero verdicts beside working judges", () => {
  it("one working judge beside it: exit 3 naming the stopped judge, no committee file (before: a 1-judge committee, exit 0)", async () => {
    for (const json of [false, true]) {
      const r = await runCli(["committee", "--bootstrap", "0", "--run", "two", "--labels-dir", labels, ...(json ? ["--json"] : [])]);
      expect(r.code, r.stderr).toBe(3);
      expect(r.stderr).toMatch(/ipi-judge: committee has no figures: the judge of the committee stored no verdict in run two and was stopped/);
      expect(r.stderr).toMatch(WHY);
      expect(r.stderr).toMatch(/or add --exclude-judge deaf for judge "fine" alone, which is no committee \(a committee needs at least two judges\): exit code 3/);
      if (json) expect(JSON.parse(r.stdout).error).toMatchObject({ exit_code: 3, kind: "broken_judge" });
      else expect(r.stdout).toBe("");
      expect(fs.existsSync(path.join(labels, "two", "committee.jsonl"))).toBe(false);
    }
  }, 60_000);

  it("two working judges beside it: exit 3 too (the committee of the others is not the one labelled); --exclude-judge forms it", async () => {
    const r = await runCli(["committee", "--bootstrap", "0", "--run", "three", "--labels-dir", labels]);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(WHY);
    expect(r.stderr).toMatch(/or add --exclude-judge deaf for the committee of the other 2 judges \(fine, fine2\): exit code 3/);
    expect(fs.existsSync(path.join(labels, "three", "committee.jsonl"))).toBe(false);
    const x = await runCli(["committee", "--bootstrap", "0", "--exclude-judge", "deaf", "--run", "three", "--labels-dir", labels]);
    expect(x.stderr, x.stderr).not.toMatch(/has no figures/);
    expect(x.stdout, x.stderr).not.toBe("");
    expect(x.stdout).toMatch(/^committee of run three: 2 judges \(fine \[openai\], fine2 \[google\]\)/);
    expect(fs.existsSync(path.join(labels, "three", "committee.jsonl"))).toBe(true);
  }, 60_000);
});
