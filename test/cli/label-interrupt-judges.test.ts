/**
 * Ctrl-C with two judges, one answering and one that hangs (review finding): `in_flight_when_stopped` counted a
 * trajectory as "read, not stored" when one judge had stored its verdict and only the other had not. Now the count
 * is of the trajectories not stored by every judge, with each judge's own count, and the text says so. The figures
 * are checked against the stored verdicts, whatever the timing of the stop.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sleep, startLabel } from "../helpers/held-label.js";
import { completion, startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { SAMPLES } from "../helpers/paths.js";

const REPLY = JSON.stringify({ findings: [], label: "not_exposed", rationale: "nothing reached the agent" });
let tmp: string;
let answers: FakeOpenAI;
let hangs: FakeOpenAI;
let release!: () => void;
const held = new Promise<void>((ok) => (release = ok));

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-label-int2-"));
  answers = await startFakeOpenAI(() => completion(REPLY));
  hangs = await startFakeOpenAI(async () => {
    await held; // until the CLI has acknowledged the stop
    return completion(REPLY);
  });
});
afterAll(async () => {
  release();
  await answers.close();
  await hangs.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const jsonl = (f: string) => (fs.existsSync(f) ? fs.readFileSync(f, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)) : []);

describe("label: Ctrl-C with one judge answering and one hanging", () => {
  it("in_flight_when_stopped counts the trajectories not stored by every judge, per judge too, as the verdicts say", async () => {
    const judges = path.join(tmp, "judges.json");
    fs.writeFileSync(
      judges,
      JSON.stringify({
        judges: [
          { id: "quick", model: "m1", family: "openai", base_url: answers.url, concurrency: 2 },
          { id: "stuck", model: "m2", family: "mistral", base_url: hangs.url, concurrency: 2 },
        ],
      }),
    );
    const labels = path.join(tmp, "labels");
    const run = path.join(labels, "i");
    const label = startLabel(["label", SAMPLES, "--judges", judges, "--run", "i", "--labels-dir", labels], release);
    // the quick judge has answered some, the stuck one holds its two requests at the server
    while ((answers.requests.length < 4 || hangs.requests.length < 2) && label.child.exitCode === null) await sleep(5);
    expect(await label.stop("SIGINT")).toBe(130);
    const stdout = label.stdout();

    const read = jsonl(path.join(run, "trajectories.jsonl")).map((r) => r.id as string);
    const verdicts = jsonl(path.join(run, "verdicts.jsonl"));
    const stored = (judge: string) => new Set(verdicts.filter((v) => v.judge_id === judge).map((v) => v.trajectory_id as string));
    const quick = stored("quick");
    const stuck = stored("stuck");
    const missing = (s: Set<string>) => read.filter((id) => !s.has(id)).length;
    const notByEvery = read.filter((id) => !quick.has(id) || !stuck.has(id)).length;
    // the finding's case is there: trajectories the quick judge stored and the stuck one did not
    expect(read.filter((id) => quick.has(id) && !stuck.has(id)).length).toBeGreaterThan(0);

    const thisRun = JSON.parse(fs.readFileSync(path.join(run, "summary.json"), "utf8")).this_run;
    expect(thisRun.in_flight_when_stopped).toBe(notByEvery);
    expect(thisRun.in_flight_when_stopped_by_judge).toEqual({ quick: missing(quick), stuck: missing(stuck) });
    expect(stdout).toContain(
      `, ${notByEvery} trajectories in flight when stopped (not stored by every judge: quick ${missing(quick)}, stuck ${missing(stuck)} left un-judged; a rerun judges what is missing)\n`,
    );
    expect(stdout).not.toContain("read, not stored");
  }, 120_000);
});
